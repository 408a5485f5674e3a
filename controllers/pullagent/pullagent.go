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

// Package pullagent is the wiring of fed-agent's controllers: execution and work status on
// the Works of its cluster's execution namespace, and the cluster's health with the agent's
// Lease. It links only those three (test/rooms checks it), not the rest of fed's
// controllers.
package pullagent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	"github.com/fedhq/fed/clusterclient"
	clustercontroller "github.com/fedhq/fed/controllers/cluster"
	"github.com/fedhq/fed/controllers/execution"
	"github.com/fedhq/fed/controllers/internal/applied"
	"github.com/fedhq/fed/controllers/internal/fleet"
	"github.com/fedhq/fed/controllers/internal/membernamespaces"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/trim"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/controllers/workstatus"
	"github.com/fedhq/fed/interpreter"
	"github.com/fedhq/fed/interpreter/lua"
	"github.com/fedhq/fed/interpreter/webhook"
)

// AgentConfig is what a pull cluster's agent needs to run.
type AgentConfig struct {
	// Cluster is the name of the agent's cluster in the fleet.
	Cluster string
	// Host reaches the host cluster as the agent (its client certificate): fed's API,
	// served there through aggregation, and the agent's Lease.
	Host *rest.Config
	// Member reaches the agent's own cluster.
	Member *rest.Config
	// ProbeInterval is how often the agent probes its cluster (5s if 0).
	ProbeInterval time.Duration
	// LeaseDuration is the duration the agent writes in its Lease, which it renews every
	// quarter of that (40s if 0).
	LeaseDuration time.Duration
}

// StartAgent starts the controllers of a pull cluster's agent: execution and work status
// on the Works of its execution namespace, applied to its own cluster by the same code as
// in push mode, and the cluster's health, written to its Cluster's status, with the
// agent's Lease renewed in the host. They run until ctx is done; StartAgent returns once
// they are started.
//
// Of the fleet, the agent reads only a Namespace by name, to make a namespace of its
// cluster as fed makes one in a push member, and records events about the templates its
// Works were made from there, where `kubectl describe` shows them as for a push member.
func StartAgent(ctx context.Context, cfg AgentConfig) error {
	if cfg.Cluster == "" || cfg.Host == nil || cfg.Member == nil {
		return fmt.Errorf("the agent needs its cluster's name and the host and member client configurations")
	}
	fedClient, err := versioned.NewForConfig(rest.CopyConfig(cfg.Host))
	if err != nil {
		return fmt.Errorf("fed client: %w", err)
	}
	hostClient, err := kubernetes.NewForConfig(rest.CopyConfig(cfg.Host))
	if err != nil {
		return fmt.Errorf("host client: %w", err)
	}
	// The agent may read only its own Cluster (by name) and its own Works (by namespace):
	// fed's authorizer refuses it anything wider.
	executionNamespace := federationv1alpha1.ExecutionNamespace(cfg.Cluster)
	workFactory := fedinformers.NewSharedInformerFactoryWithOptions(fedClient, 0,
		fedinformers.WithNamespace(executionNamespace), fedinformers.WithTransform(trim.ManagedFields))
	clusterFactory := fedinformers.NewSharedInformerFactoryWithOptions(fedClient, 0, fedinformers.WithTransform(trim.ManagedFields),
		fedinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", cfg.Cluster).String()
		}))
	clusters := clusterFactory.Cluster().V1alpha1().Clusters()
	configs := clusterclient.NewStatic(cfg.Cluster, cfg.Member)
	mbs, err := members.New(ctx, configs, clusters)
	if err != nil {
		return err
	}
	fed := workFactory.Federation().V1alpha1()
	workAccess, err := works.New(fedClient, fed.Works())
	if err != nil {
		return err
	}
	rics := fed.ResourceInterpreterCustomizations()
	hooks := fed.ResourceInterpreterWebhookConfigurations()
	interp := interpreter.New(interpreter.Listed{Lister: rics.Lister()}, lua.DefaultLimits).WithWebhooks(webhook.Listed{Lister: hooks.Lister()})
	recorder, err := fleet.Recorder(ctx, cfg.Host, corev1.EventSource{Component: "fed-agent", Host: cfg.Cluster})
	if err != nil {
		return fmt.Errorf("fleet events: %w", err)
	}

	results := &applied.Log{}
	workStatusController := workstatus.NewController(fedClient, workAccess, mbs, results, interp)
	fleetClient, err := dynamic.NewForConfig(fleet.Config(cfg.Host))
	if err != nil {
		return fmt.Errorf("fleet client: %w", err)
	}
	// A namespace the agent makes in its cluster comes from the fleet's Namespace of that
	// name, which it reads by name (it may read nothing else of the fleet).
	namespaces := membernamespaces.New(func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
		return fleetClient.Resource(members.NamespacesResource).Get(ctx, name, metav1.GetOptions{})
	})
	executionController, err := execution.NewController(execution.Deps{Fed: fedClient, Works: workAccess, Members: mbs,
		Namespaces: namespaces, Results: results, Interpreter: interp, Recorder: recorder})
	if err != nil {
		return err
	}
	clusterController, err := clustercontroller.NewAgentController(clustercontroller.Deps{Fed: fedClient, Clusters: clusters,
		Members: configs, Host: hostClient, Cluster: cfg.Cluster,
		Options: clustercontroller.Options{ProbeInterval: cfg.ProbeInterval, AgentGracePeriod: cfg.LeaseDuration}})
	if err != nil {
		return err
	}
	workFactory.Start(ctx.Done())
	clusterFactory.Start(ctx.Done())
	go clusterController.Run(ctx, 1)
	go func() {
		if !cache.WaitForCacheSync(ctx.Done(), rics.Informer().HasSynced, hooks.Informer().HasSynced) {
			return
		}
		go workStatusController.Run(ctx, 4)
		go executionController.Run(ctx, 8)
	}()
	go func() {
		<-ctx.Done()
		workFactory.Shutdown()
		clusterFactory.Shutdown()
	}()
	klog.FromContext(ctx).Info("Started the agent's controllers", "cluster", cfg.Cluster)
	return nil
}
