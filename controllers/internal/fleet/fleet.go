/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package fleet is how the wiring of fed-apiserver's and fed-agent's controllers reaches
// the fleet API: its address beside fed's own API, and the recorder of events there.
package fleet

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	fedscheme "github.com/fedhq/fed/apis/generated/clientset/versioned/scheme"
)

// Config reaches the fleet API, which fed-apiserver serves at FleetPath of the same
// address as fed's own API.
func Config(fed *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(fed)
	cfg.Host = strings.TrimSuffix(cfg.Host, "/") + federationv1alpha1.FleetPath
	return cfg
}

// Recorder records events in the fleet, where `kubectl describe` of a template finds
// them, until ctx is done. Its scheme knows Kubernetes' kinds and fed's, so that an event
// may be recorded on any of them (a Cluster, a policy) by the object itself.
func Recorder(ctx context.Context, fed *rest.Config, source corev1.EventSource) (record.EventRecorder, error) {
	client, err := kubernetes.NewForConfig(Config(fed))
	if err != nil {
		return nil, err
	}
	broadcaster := newBroadcaster(ctx)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	broadcaster.StartStructuredLogging(2) // in the log too, should the fleet not take them
	go func() {
		<-ctx.Done()
		broadcaster.Shutdown()
	}()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := fedscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return broadcaster.NewRecorder(scheme, source), nil
}

func newBroadcaster(ctx context.Context) record.EventBroadcaster {
	return record.NewBroadcaster(record.WithContext(ctx), record.WithCorrelatorOptions(record.CorrelatorOptions{SpamKeyFunc: spamKey}))
}

// spamKey is what client-go's spam filter counts events by: its own key (the source, the
// object, the type) and the reason, so that a noisy reason (Synced at every apply, a
// customization's InterpreterFailed at every retry) uses up its own budget of 25 and one
// every 5 minutes, never that of the transitions users wait for (Scheduled, PolicyRemoved).
func spamKey(e *corev1.Event) string {
	o := e.InvolvedObject
	return strings.Join([]string{e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion, e.Type, e.Reason}, "/")
}
