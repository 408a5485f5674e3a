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

package search

import (
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
	custommetrics "k8s.io/metrics/pkg/apis/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/apis/external_metrics"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/apiserver/clusterproxy"
	"github.com/fedhq/fed/apiserver/internal/subtree"
)

// ProxyRequestInfoResolver resolves a request to the fleet proxy by its inner path (see
// RequestInfoResolver).
func ProxyRequestInfoResolver(delegate request.RequestInfoResolver) request.RequestInfoResolver {
	return subtree.Resolver(searchv1alpha1.ProxyPath, delegate)
}

// ProxyRoute sends requests to the fleet proxy, with ProxyPath removed, to its handler,
// and the others to next.
func ProxyRoute(next http.Handler, p func() http.Handler) http.Handler {
	return subtree.Route(searchv1alpha1.ProxyPath, next, p, "the fleet proxy is starting")
}

// Members reaches the fleet's members for the proxy.
type Members interface {
	// Config is the client configuration of a member (fed's own credentials).
	Config(cluster string) (*rest.Config, error)
	// Ready are the names of the Ready members, sorted.
	Ready() []string
}

// Proxy is the fleet proxy: one Kubernetes API made of every member, for plain kubectl
// and client-go. Lists and watches of the kinds the search cache holds are answered from
// it (with the cluster of each object); a request for one object (get, update, patch,
// delete, and its subresources: logs, exec, ...) goes to the member that holds it, as the
// caller (impersonated, so the member's RBAC applies too); discovery and OpenAPI are a
// Ready member's.
type Proxy struct {
	Cache   *Cache
	Members Members
	// Metrics serves metrics.k8s.io, custom.metrics.k8s.io and external.metrics.k8s.io:
	// the fleet's, merged from every member (so that kubectl top through the proxy shows
	// them all), not one member's.
	Metrics http.Handler
}

// metricsGroups are the groups Proxy.Metrics serves.
var metricsGroups = map[string]bool{metricsv1beta1.GroupName: true, custommetrics.GroupName: true, externalmetrics.GroupName: true}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	info, err := subtree.RequestInfoFactory.NewRequestInfo(req)
	if err != nil {
		writeError(w, req, apierrors.NewBadRequest(err.Error()))
		return
	}
	if !info.IsResourceRequest {
		ready := p.Members.Ready()
		if len(ready) == 0 {
			writeError(w, req, apierrors.NewServiceUnavailable("no member of the fleet is Ready to answer discovery"))
			return
		}
		p.forward(w, req, ready[0])
		return
	}
	if metricsGroups[info.APIGroup] && p.Metrics != nil {
		p.Metrics.ServeHTTP(w, req)
		return
	}
	gr := schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	named := len(info.Parts) > 1 // not info.Name, which a fieldSelector on metadata.name sets
	switch {
	case !named && (info.Verb == "list" || info.Verb == "watch"):
		p.Cache.ServeHTTP(w, req)
		return
	case !named:
		writeError(w, req, apierrors.NewMethodNotSupported(gr, info.Verb+" through the fleet proxy, which does not know which member is meant "+
			"(create templates in the fleet, or in one member through clusters/NAME/proxy)"))
		return
	}
	if _, ok := p.Cache.Store.Kind(gr); !ok {
		writeError(w, req, notCached(gr, "the fleet proxy finds objects through the search cache; add the kind to a ResourceRegistry"))
		return
	}
	clusters, err := p.Cache.Store.Locate(gr, info.Namespace, info.Name)
	switch {
	case err != nil:
		writeError(w, req, err)
	case len(clusters) == 0:
		writeError(w, req, apierrors.NewNotFound(gr, info.Name))
	case len(clusters) > 1:
		writeError(w, req, apierrors.NewConflict(gr, info.Name, fmt.Errorf("it exists in clusters %s; reach one of them through clusters/NAME/proxy",
			strings.Join(clusters, ", "))))
	default:
		p.forward(w, req, clusters[0])
	}
}

// forward sends the request to a member as the caller.
func (p *Proxy) forward(w http.ResponseWriter, req *http.Request, cluster string) {
	u, ok := request.UserFrom(req.Context())
	if !ok {
		writeError(w, req, apierrors.NewUnauthorized("no user"))
		return
	}
	cfg, err := p.Members.Config(cluster)
	if err != nil {
		writeError(w, req, apierrors.NewServiceUnavailable(fmt.Sprintf("cluster %s: %v", cluster, err)))
		return
	}
	h, err := clusterproxy.Handler(cfg, u, req.URL.Path, responder{req})
	if err != nil {
		writeError(w, req, apierrors.NewInternalError(err))
		return
	}
	h.ServeHTTP(w, req)
}

// responder answers a request the member could not be reached for.
type responder struct{ req *http.Request }

func (r responder) Error(w http.ResponseWriter, _ *http.Request, err error) {
	writeError(w, r.req, apierrors.NewServiceUnavailable(err.Error()))
}

var _ proxy.ErrorResponder = responder{}
