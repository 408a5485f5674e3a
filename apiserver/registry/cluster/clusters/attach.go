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

package clusters

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/fedhq/fed/apis/cluster"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apiserver/scheme"
	"github.com/fedhq/fed/apiserver/tunnel"
)

// AttachREST is clusters/attach: a pull cluster's agent holds its tunnel open here (a
// websocket), through which fed reaches the cluster's API server. Only the cluster's own
// agent may attach. The name is one the host treats as long-running, as it treats
// pods/attach: a tunnel lasts as long as its agent runs, and must not be cut by the host's
// request timeout nor hold a seat of its priority and fairness.
type AttachREST struct {
	// Clusters reads Cluster objects (the clusters storage).
	Clusters rest.Getter
	Tunnels  *tunnel.Server
}

var (
	_ rest.Connecter = &AttachREST{}
	_ rest.Storage   = &AttachREST{}
)

// New returns an empty Cluster, the object this subresource belongs to.
func (r *AttachREST) New() runtime.Object { return &cluster.Cluster{} }

// Destroy has nothing to release.
func (r *AttachREST) Destroy() {}

// ConnectMethods: a websocket starts with a GET.
func (r *AttachREST) ConnectMethods() []string { return []string{"GET"} }

// NewConnectOptions: the tunnel has no options.
func (r *AttachREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &cluster.ClusterProxyOptions{}, false, ""
}

// Connect returns the handler that holds the agent's tunnel.
func (r *AttachREST) Connect(ctx context.Context, name string, _ runtime.Object, _ rest.Responder) (http.Handler, error) {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewUnauthorized("no user in the request")
	}
	if u.GetName() != clusterv1alpha1.AgentUser(name) {
		return nil, apierrors.NewForbidden(clusterv1alpha1.Resource("clusters/attach"), name,
			fmt.Errorf("only cluster %s's agent (%s) attaches it, not %s", name, clusterv1alpha1.AgentUser(name), u.GetName()))
	}
	obj, err := r.Clusters.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	versioned := &clusterv1alpha1.Cluster{}
	if err := scheme.Scheme.Convert(obj, versioned, nil); err != nil {
		return nil, err
	}
	if versioned.Spec.SyncMode != clusterv1alpha1.Pull {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cluster %s is in push mode: fed dials it, nothing attaches it", name))
	}
	return r.Tunnels.Handler(name), nil
}
