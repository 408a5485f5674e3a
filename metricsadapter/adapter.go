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

// Package metricsadapter reads the resource metrics of the fleet: the PodMetrics and
// NodeMetrics of every member's metrics.k8s.io (a metrics-server in the member), asked in
// parallel, each item labelled with its cluster (LabelCluster), merged. A member's answer is
// kept for a short while (Options.TTL) and shared by every query of the same kind and
// namespace that comes meanwhile, so that kubectl top and the FederatedHPA controller do
// not ask the members again for each request. Selectors are evaluated here, on the cached
// answers, the cluster label included.
package metricsadapter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/rest"
	custommetrics "k8s.io/metrics/pkg/apis/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/apis/external_metrics"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// LabelCluster is the label each item gets: the member cluster it comes from. A label
// selector may name it (kubectl top pods -l cluster.fedhq.io/cluster=member1); only the
// clusters it allows are asked.
const LabelCluster = clusterv1alpha1.LabelCluster

// Members are the member clusters the adapter reads.
type Members interface {
	// Ready are the members that are Ready, by name.
	Ready() []string
	// NotReady are the others: they are not asked, and a warning names them.
	NotReady() []string
	// Config reaches a member.
	Config(cluster string) (*rest.Config, error)
}

// Options tune the adapter.
type Options struct {
	// TTL is how long a member's answer is reused. metrics-server refreshes every 15 s by
	// default, so a few seconds lose nothing. Zero means DefaultTTL.
	TTL time.Duration
	// Timeout bounds each request to a member. Zero means DefaultTimeout.
	Timeout time.Duration
}

const (
	// DefaultTTL is Options.TTL's default.
	DefaultTTL = 5 * time.Second
	// DefaultTimeout is Options.Timeout's default.
	DefaultTimeout = 5 * time.Second
)

// Adapter reads the fleet's metrics.
type Adapter struct {
	members Members
	opts    Options
	now     func() time.Time
	// fetch reads a member's answer (fetchMember; tests replace it).
	fetch func(ctx context.Context, key cacheKey) (*answer, error)

	flight singleflight.Group
	mu     sync.Mutex
	cache  map[cacheKey]*answer
}

// New returns an adapter reading members.
func New(members Members, opts Options) *Adapter {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	a := &Adapter{members: members, opts: opts, now: time.Now, cache: map[cacheKey]*answer{}}
	a.fetch = a.fetchMember
	return a
}

// Query selects metrics.
type Query struct {
	// Namespace is the pods' namespace; "" for all (and for nodes).
	Namespace string
	// Labels and Fields select items (nil: all). Fields knows metadata.name and
	// metadata.namespace, as metrics-server does.
	Labels labels.Selector
	Fields fields.Selector
	// Clusters limits the members asked (nil: every Ready one).
	Clusters []string
}

// Result is what the members answered, merged.
type Result[T any] struct {
	// Items are the selected items, by member (in order of name) and then by namespace
	// and name, each labelled with its member.
	Items []T
	// Warnings name the members left out and why: not Ready, not serving the group asked,
	// or their metrics could not be read.
	Warnings []string
	// LeftOut are those members, by name.
	LeftOut []string
}

// kind is the kind of metrics an answer holds.
type kind string

const (
	pods  kind = "pods"
	nodes kind = "nodes"
)

type cacheKey struct {
	cluster   string
	kind      kind
	namespace string
	// path is the member's path and query, for custom and external metrics.
	path string
}

// answer is one member's list of one kind (and namespace), as read at a time.
type answer struct {
	read  time.Time
	pods  []metricsv1beta1.PodMetrics
	nodes []metricsv1beta1.NodeMetrics
	// custom and external are custom.metrics.k8s.io and external.metrics.k8s.io values;
	// groups the member's API groups, and resources its resources of one group version.
	custom    []custommetrics.MetricValue
	external  []externalmetrics.ExternalMetricValue
	groups    *metav1.APIGroupList
	resources []metav1.APIResource
	// err is why the member could not be read.
	err error
}

// PodMetrics returns the pods' metrics q selects, in every member it allows.
func (a *Adapter) PodMetrics(ctx context.Context, q Query) (Result[metricsv1beta1.PodMetrics], error) {
	var out Result[metricsv1beta1.PodMetrics]
	answers, left, err := a.fanOut(ctx, pods, q)
	out.Warnings, out.LeftOut = left.warnings, left.clusters
	for _, an := range answers {
		for i := range an.answer.pods {
			p := &an.answer.pods[i]
			if item, ok := selected(p.ObjectMeta, an.cluster, q); ok {
				c := p.DeepCopy()
				c.ObjectMeta = item
				out.Items = append(out.Items, *c)
			}
		}
	}
	return out, err
}

// NodeMetrics returns the nodes' metrics q selects, in every member it allows.
func (a *Adapter) NodeMetrics(ctx context.Context, q Query) (Result[metricsv1beta1.NodeMetrics], error) {
	var out Result[metricsv1beta1.NodeMetrics]
	q.Namespace = ""
	answers, left, err := a.fanOut(ctx, nodes, q)
	out.Warnings, out.LeftOut = left.warnings, left.clusters
	for _, an := range answers {
		for i := range an.answer.nodes {
			n := &an.answer.nodes[i]
			if item, ok := selected(n.ObjectMeta, an.cluster, q); ok {
				c := n.DeepCopy()
				c.ObjectMeta = item
				out.Items = append(out.Items, *c)
			}
		}
	}
	return out, err
}

// selected tells whether the item with metadata m of cluster is selected by q, and returns
// its metadata labelled with the cluster.
func selected(m metav1.ObjectMeta, cluster string, q Query) (metav1.ObjectMeta, bool) {
	out := *m.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels[LabelCluster] = cluster
	if q.Labels != nil && !q.Labels.Matches(labels.Set(out.Labels)) {
		return out, false
	}
	if q.Fields != nil && !q.Fields.Matches(fields.Set{"metadata.name": out.Name, "metadata.namespace": out.Namespace}) {
		return out, false
	}
	return out, true
}

// memberAnswer is a member's answer, for fanOut's caller.
type memberAnswer struct {
	cluster string
	answer  *answer
}

// fanOut asks every member q allows for its metrics of kind k in parallel (or takes their
// answers from the cache) and returns them in order of member name.
func (a *Adapter) fanOut(ctx context.Context, k kind, q Query) ([]memberAnswer, leftOut, error) {
	return a.fanOutKeys(ctx, singular(k)+" metrics", q, func(c string) cacheKey {
		return cacheKey{cluster: c, kind: k, namespace: q.Namespace}
	})
}

// fanOutKeys reads keyFor(member) of every member q allows, in parallel (or from the
// cache), and returns the answers in order of member name. Members that are not Ready,
// do not serve what is asked (errNotServed) or fail are named in the warnings, as
// leaving out their "what"; only when every member that serves it fails is that an error,
// and when none serves it, a NotServedError.
func (a *Adapter) fanOutKeys(ctx context.Context, what string, q Query, keyFor func(cluster string) cacheKey) ([]memberAnswer, leftOut, error) {
	clusters := a.members.Ready()
	var left leftOut
	for _, c := range a.members.NotReady() {
		if allowed(c, q) {
			left.add(c, "cluster %s is not Ready: its %s are left out", c, what)
		}
	}
	clusters = slices.DeleteFunc(slices.Clone(clusters), func(c string) bool { return !allowed(c, q) })
	sort.Strings(clusters)
	answers := make([]*answer, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = a.read(ctx, keyFor(c))
		}()
	}
	wg.Wait()
	var out []memberAnswer
	var failed []error
	var notServed *NotServedError
	serving := 0
	for i, c := range clusters {
		switch err := errs[i]; {
		case errors.As(err, &notServed):
			left.add(c, "cluster %s does not serve %s: its %s are left out", c, notServed.Group, what)
		case err != nil:
			serving++
			left.add(c, "cluster %s: its %s could not be read: %v", c, what, err)
			failed = append(failed, err)
		default:
			serving++
			out = append(out, memberAnswer{cluster: c, answer: answers[i]})
		}
	}
	switch {
	case serving == 0 && notServed != nil:
		return nil, left, &NotServedError{Group: notServed.Group}
	case serving > 0 && len(failed) == serving:
		return nil, left, &AllFailedError{Kind: what, Errors: failed}
	}
	return out, left, nil
}

// leftOut are the members a fan-out left out, and the warnings that say why.
type leftOut struct {
	warnings, clusters []string
}

func (l *leftOut) add(cluster, format string, args ...any) {
	l.clusters = append(l.clusters, cluster)
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

func singular(k kind) string {
	return string(k[:len(k)-1])
}

// allowed tells whether q allows asking cluster: it is among q.Clusters, and a label
// selector on LabelCluster does not exclude it.
func allowed(cluster string, q Query) bool {
	if q.Clusters != nil && !slices.Contains(q.Clusters, cluster) {
		return false
	}
	if q.Labels == nil {
		return true
	}
	reqs, _ := q.Labels.Requirements()
	for _, r := range reqs {
		if r.Key() != LabelCluster {
			continue
		}
		if r.Operator() == selection.DoesNotExist || !r.Matches(labels.Set{LabelCluster: cluster}) {
			return false
		}
	}
	return true
}

// AllFailedError is the error of a query no member answered.
type AllFailedError struct {
	Kind   string
	Errors []error
}

func (e *AllFailedError) Error() string {
	return fmt.Sprintf("no member cluster answered for %s: %v", e.Kind, e.Errors[0])
}

// NotServedError is the error of a query for an API group no member asked serves.
type NotServedError struct {
	Group string
}

func (e *NotServedError) Error() string {
	return fmt.Sprintf("no member cluster asked serves %s", e.Group)
}

// read returns a member's answer for key: from the cache while it is younger than the
// TTL (a failure too, so that a member that does not answer costs one timeout per TTL,
// not one per query), else read once for every caller waiting on it. A caller that goes
// away stops waiting; the read goes on for the others.
func (a *Adapter) read(ctx context.Context, key cacheKey) (*answer, error) {
	a.mu.Lock()
	an := a.cache[key]
	a.mu.Unlock()
	if an != nil && a.now().Sub(an.read) < a.opts.TTL {
		return an, an.err
	}
	flightKey := key.cluster + "/" + string(key.kind) + "/" + key.namespace + "/" + key.path
	ch := a.flight.DoChan(flightKey, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.opts.Timeout)
		defer cancel()
		an, err := a.fetch(ctx, key)
		if err != nil {
			an = &answer{err: err}
		}
		// Its age counts from when it came: a slow member's answer is still of use.
		an.read = a.now()
		a.mu.Lock()
		a.cache[key] = an
		// Answers of members and namespaces no longer asked for go with the next write.
		for k, old := range a.cache {
			if a.now().Sub(old.read) >= a.opts.TTL {
				delete(a.cache, k)
			}
		}
		a.mu.Unlock()
		return an, nil
	})
	select {
	case res := <-ch:
		an := res.Val.(*answer)
		return an, an.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// fetchMember lists the member's metrics of the key's kind and namespace.
func (a *Adapter) fetchMember(ctx context.Context, key cacheKey) (*answer, error) {
	cfg, err := a.members.Config(key.cluster)
	if err != nil {
		return nil, err
	}
	switch key.kind {
	case groups:
		return fetchGroups(ctx, cfg)
	case resources, custom, external:
		return a.fetchMetrics(ctx, cfg, key)
	}
	client, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	an := &answer{}
	switch key.kind {
	case pods:
		list, err := client.MetricsV1beta1().PodMetricses(key.namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		an.pods = list.Items
		sort.Slice(an.pods, func(i, j int) bool {
			return an.pods[i].Namespace+"/"+an.pods[i].Name < an.pods[j].Namespace+"/"+an.pods[j].Name
		})
	case nodes:
		list, err := client.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		an.nodes = list.Items
		sort.Slice(an.nodes, func(i, j int) bool { return an.nodes[i].Name < an.nodes[j].Name })
	}
	return an, nil
}
