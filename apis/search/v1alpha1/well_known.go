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

package v1alpha1

import federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"

// Where the search endpoints live, and how the host cluster sees requests to them. The host
// authorizes a request to an aggregated API before forwarding it, resolving the path as its
// own: the segment after the version is the resource, the next one the name, the one after
// that the subresource (see FleetPath in federation.fedhq.io for the same reasoning).
const (
	// SearchResource and CacheName name the cache's endpoint in the host's authorization. For
	// the host, a request to CachePath + "/apis/apps/v1/deployments" is a request on the
	// "apis" subresource of search/cache in this group, and one to CachePath +
	// "/api/v1/pods" on its "api" subresource; the verb is the HTTP method's (get for a list
	// or a watch too, since the host sees a name). RBAC has no "search/*" wildcard (only
	// "*/subresource"), so a rule names both: search/api and search/apis. The host does not
	// count these requests as long-running (their subresource is not proxy): its request
	// timeout applies to watches under CachePath.
	SearchResource = "search"
	CacheName      = "cache"

	// CachePath is where fed-apiserver answers Kubernetes list and watch paths from the cache
	// of the kinds ResourceRegistries select: CachePath + "/apis/apps/v1/deployments" lists
	// the Deployments of every cached cluster, each annotated with AnnotationCluster.
	CachePath = "/apis/" + GroupName + "/v1alpha1/" + SearchResource + "/" + CacheName

	// ProxyingResource and ProxyingName name the proxy endpoint in the host's
	// authorization: a request under ProxyPath is, for the host, a request on the proxy
	// subresource of proxying/fleet, like clusters/NAME/proxy: one RBAC rule on
	// proxying/proxy lets a user in, and the host treats watches through it as long-running.
	ProxyingResource = "proxying"
	ProxyingName     = "fleet"

	// ProxyPath is where fed-apiserver serves any Kubernetes path across the fleet: reads of
	// cached kinds come from the cache, everything else goes to the member that holds the
	// object.
	ProxyPath = "/apis/" + GroupName + "/v1alpha1/" + ProxyingResource + "/" + ProxyingName + "/proxy"

	// AnnotationCluster, on an object of a search result, names the member cluster the
	// object came from.
	AnnotationCluster = "search.fedhq.io/cluster"

	// AnnotationStale, set to "true" on an object of a search result, says that its member
	// cannot be reached: the object is as the cache last saw it.
	AnnotationStale = "search.fedhq.io/stale"
)

// MetadataOnly says whether the search cache keeps only the metadata of a kind's objects:
// Secrets, whose values must not leave their member. It reads them with a metadata client
// (so their data, stringData and type never reach fed-apiserver), and even of their
// metadata it keeps only what cannot hold a value: name, namespace, generateName, uid,
// generation, timestamps, labels, owner references, finalizers, and of the annotations
// only those KeptSecretAnnotation allows (kubectl's last-applied-configuration, for one,
// holds the data of a Secret made with kubectl apply; managedFields name its keys).
func MetadataOnly(group, resource string) bool { return group == "" && resource == "secrets" }

// keptSecretAnnotations are the annotations of a Secret the search cache keeps: an
// allow-list, since any other annotation may hold a value (kubectl's
// last-applied-configuration does; tools have kept tokens in annotations of their own).
// Each names or points at something, and is written by the one program that owns it.
var keptSecretAnnotations = map[string]bool{
	// The service account a token Secret is for (kube-controller-manager's token controller).
	"kubernetes.io/service-account.name": true,
	"kubernetes.io/service-account.uid":  true,
	// The Helm release that made it.
	"meta.helm.sh/release-name":      true,
	"meta.helm.sh/release-namespace": true,
	// fed's own, on a member object it applied.
	federationv1alpha1.AnnotationWork:               true,
	federationv1alpha1.AnnotationTemplateUID:        true,
	federationv1alpha1.AnnotationTemplateGeneration: true,
	federationv1alpha1.AnnotationAppliedOverrides:   true,
}

// KeptSecretAnnotation says whether the search cache keeps an annotation of a Secret (the
// cache adds its own, AnnotationCluster and AnnotationStale, to every object it serves).
func KeptSecretAnnotation(key string) bool { return keptSecretAnnotations[key] }
