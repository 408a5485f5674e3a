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

// Package searching is what kubectl fed knows of fed's search cache: whether the cache
// holds, synced and fresh, what a query asks of some members (from the ResourceRegistries'
// status), so that kubectl fed get can read it in one request instead of asking every
// member, and what to tell a user whose kind the cache does not hold.
package searching

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

// Registries lists the host's ResourceRegistries, or says in a few words why it cannot:
// the host does not serve the search group, the user may not list them.
func Registries(ctx context.Context, fed versioned.Interface) ([]searchv1alpha1.ResourceRegistry, error) {
	list, err := fed.SearchV1alpha1().ResourceRegistries().List(ctx, metav1.ListOptions{})
	switch {
	case err == nil:
		return list.Items, nil
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("the host does not serve %s (kubectl get apiservices v1alpha1.%s)", searchv1alpha1.GroupName, searchv1alpha1.GroupName)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("you may not list resourceregistries.%s", searchv1alpha1.GroupName)
	}
	return nil, fmt.Errorf("listing resourceregistries: %w", err)
}

// maxGaps is how many clusters' gaps a reason names before "and N more".
const maxGaps = 3

// Gaps says what the search cache lacks to answer a query of gvk (resource names it in the
// message) in each of clusters, in namespace ("" for every namespace, or for a
// cluster-scoped kind), from the registries' status: "" when nothing. A cluster is covered
// when some registry has, for it and the kind at that version, a cache that is synced, not
// stale, and of every namespace or of the query's.
func Gaps(registries []searchv1alpha1.ResourceRegistry, gvk schema.GroupVersionKind, resource string, clusters []string, namespace string) string {
	byCluster := map[string][]searchv1alpha1.CacheStatus{}
	for _, rr := range registries {
		for _, c := range rr.Status.Caches {
			gv, err := schema.ParseGroupVersion(c.APIVersion)
			if err == nil && gv.Group == gvk.Group && c.Kind == gvk.Kind {
				byCluster[c.Cluster] = append(byCluster[c.Cluster], c)
			}
		}
	}
	var gaps []string
	uncached := 0
	for _, cluster := range clusters {
		caches := byCluster[cluster]
		if len(caches) == 0 {
			uncached++
		}
		if gap := clusterGap(caches, gvk.GroupVersion().String(), resource, cluster, namespace); gap != "" {
			gaps = append(gaps, gap)
		}
	}
	if len(clusters) > 0 && uncached == len(clusters) {
		return Uncached(resource)
	}
	if len(gaps) > maxGaps {
		gaps = append(gaps[:maxGaps], fmt.Sprintf("and %d more", len(gaps)-maxGaps))
	}
	return strings.Join(gaps, "; ")
}

// Uncached is the gap of a kind (resource) that no registry caches in any of the clusters
// of a query: then the cache refuses the query (see Explain).
func Uncached(resource string) string {
	return "no ResourceRegistry caches " + resource
}

// clusterGap is what the caches of one cluster's kind lack for the query, "" if nothing.
func clusterGap(caches []searchv1alpha1.CacheStatus, apiVersion, resource, cluster, namespace string) string {
	if len(caches) == 0 {
		return fmt.Sprintf("no ResourceRegistry caches %s of %s", resource, cluster)
	}
	var versions, namespaces []string
	var fitting []searchv1alpha1.CacheStatus
	for _, c := range caches {
		switch {
		case c.APIVersion != apiVersion:
			versions = append(versions, c.APIVersion)
		case c.Namespace != "" && c.Namespace != namespace:
			namespaces = append(namespaces, c.Namespace)
		default:
			fitting = append(fitting, c)
		}
	}
	for _, c := range fitting {
		if c.Synced && !c.Stale {
			return ""
		}
	}
	switch {
	case len(fitting) > 0 && fitting[0].Stale:
		return withMessage(fmt.Sprintf("%s is stale: the cache holds its %s as last seen", cluster, resource), fitting[0].Message)
	case len(fitting) > 0:
		return withMessage(fmt.Sprintf("the cache of %s of %s is not synced yet", resource, cluster), fitting[0].Message)
	case len(namespaces) > 0 && namespace == "":
		return fmt.Sprintf("%s of %s are cached in namespace %s only", resource, cluster, list(namespaces))
	case len(namespaces) > 0:
		return fmt.Sprintf("%s of %s are cached in namespace %s, not %s", resource, cluster, list(namespaces), namespace)
	}
	return fmt.Sprintf("%s of %s are cached at %s, not %s", resource, cluster, list(versions), apiVersion)
}

func withMessage(s, message string) string {
	if message == "" {
		return s
	}
	return s + " (" + message + ")"
}

// list is the distinct values, sorted, joined with commas.
func list(values []string) string {
	values = slices.Clone(values)
	slices.Sort(values)
	return strings.Join(slices.Compact(values), ", ")
}

// notCachedMessage is what the cache answers (404) for a kind no registry caches, or
// caches at another version.
const notCachedMessage = "is not in the search cache"

// IsNotCached tells whether err is the cache's answer for a kind it does not hold.
func IsNotCached(err error) bool {
	return apierrors.IsNotFound(err) && strings.Contains(err.Error(), notCachedMessage)
}

// Explain turns the search cache's refusal of a query of gvk (resource names it on the
// command line) into an error that says what to do: which command shows the registries,
// how to add one, and how to read the members instead. Other errors are returned as they
// are, but for a host without the search cache.
func Explain(err error, gvk schema.GroupVersionKind, resource string) error {
	switch {
	case IsNotCached(err):
		var status apierrors.APIStatus
		errors.As(err, &status)
		// The cache's own words, without what resource.Builder puts before them.
		msg := status.Status().Message
		if i := strings.Index(msg, resource+" "+notCachedMessage); i > 0 {
			msg = msg[i:]
		}
		return fmt.Errorf("%s.\n%s", strings.TrimSuffix(msg, "."), howToCache(gvk, resource))
	case apierrors.IsNotFound(err):
		return fmt.Errorf("the host does not serve the search cache (kubectl get apiservices v1alpha1.%s): %w", searchv1alpha1.GroupName, err)
	}
	return err
}

// howToCache says how to cache gvk, and how to read the members meanwhile, in commands
// that work when pasted.
func howToCache(gvk schema.GroupVersionKind, resource string) string {
	registry := fmt.Sprintf(`{"apiVersion":"%s","kind":"ResourceRegistry","metadata":{"name":"%s"},`+
		`"spec":{"resourceSelectors":[{"apiVersion":"%s","kind":"%s"}]}}`,
		searchv1alpha1.SchemeGroupVersion, resource, gvk.GroupVersion(), gvk.Kind)
	return fmt.Sprintf(`kubectl get resourceregistries lists what is cached. To cache %s of every member cluster:
  echo '%s' | kubectl apply -f -
or read the members themselves: kubectl fed get %s --all-clusters`, resource, registry, resource)
}
