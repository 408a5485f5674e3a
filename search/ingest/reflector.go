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

// Package ingest keeps the search cache in step with the members: one Reflector per
// source (a kind of one member, in one namespace or all) lists it into the store, then
// follows its watch, and after a restart resumes that watch from the resourceVersion the
// store kept instead of listing the member again.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	"github.com/fedhq/fed/search/store"
)

// Client lists and watches a member's objects of one kind (a dynamic client's
// ResourceInterface is one; MetadataClient adapts a metadata client).
type Client interface {
	List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Status is how far a reflector is.
type Status struct {
	// Synced: the store holds what the member had when the reflector last listed it or
	// resumed its watch, and follows it.
	Synced bool
	// Err is the last error talking to the member, nil once it answers again.
	Err error
	// LastSync is when the member last sent a list or an event.
	LastSync time.Time
}

// Reflector keeps one source of the store in step with its member.
type Reflector struct {
	source    store.Source
	store     *store.Store
	client    Client
	converter *Converter
	// pageSize is how many objects one list request asks for.
	pageSize int64
	backoff  wait.Backoff

	mu     sync.Mutex
	status Status
	// changed is called after the status changed.
	changed func()
}

// NewReflector returns the reflector of source, reading the member through client.
// changed (optional) is called whenever Status changes.
func NewReflector(s *store.Store, source store.Source, client Client, converter *Converter, changed func()) *Reflector {
	if changed == nil {
		changed = func() {}
	}
	return &Reflector{source: source, store: s, client: client, converter: converter, pageSize: 500, changed: changed}
}

// Status is the reflector's status now.
func (r *Reflector) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func (r *Reflector) setStatus(update func(*Status)) {
	r.mu.Lock()
	before := r.status
	update(&r.status)
	changed := before.Synced != r.status.Synced || (before.Err == nil) != (r.status.Err == nil) ||
		(before.Err != nil && r.status.Err != nil && before.Err.Error() != r.status.Err.Error())
	r.mu.Unlock()
	if changed {
		r.changed()
	}
}

var (
	listsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "fed", Subsystem: "search", Name: "member_lists_total",
		Help:           "Full lists of a member's kind by the search cache (at start without a resumable resourceVersion, or when the member had forgotten it).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"cluster", "resource"})
	resumesTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "fed", Subsystem: "search", Name: "member_watch_resumes_total",
		Help:           "Watches of a member's kind the search cache resumed at start from the resourceVersion it had kept, without listing.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"cluster", "resource"})
)

func init() {
	legacyregistry.MustRegister(listsTotal, resumesTotal)
}

// errExpired: the member no longer has the resourceVersion the watch would start from.
var errExpired = errors.New("the member no longer has the resourceVersion")

// Run lists and watches until ctx ends.
func (r *Reflector) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("source", r.source.String())
	resource := r.source.Resource.String()
	rv, err := r.store.Checkpoint(r.source)
	if err != nil {
		logger.Error(err, "Reading where the search cache stopped; listing the member again")
		rv = ""
	}
	if rv != "" {
		resumesTotal.WithLabelValues(r.source.Cluster, resource).Inc()
		logger.V(2).Info("Resuming the member's watch", "resourceVersion", rv)
	}
	for ctx.Err() == nil {
		if rv == "" {
			listsTotal.WithLabelValues(r.source.Cluster, resource).Inc()
			if rv, err = r.list(ctx); err != nil {
				r.fail(ctx, err)
				continue
			}
		}
		err := r.watch(ctx, &rv)
		switch {
		case errors.Is(err, errExpired):
			logger.V(2).Info("The member no longer has the resourceVersion; listing it again", "resourceVersion", rv)
			rv = ""
			r.setStatus(func(s *Status) { s.Synced = false })
		case err != nil:
			r.fail(ctx, err)
		}
	}
}

// fail records err and waits before the next attempt: a second after the first failure,
// twice as long after each next one, up to 30 s.
func (r *Reflector) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	klog.FromContext(ctx).V(2).Info("The search cache cannot read a member", "source", r.source.String(), "err", err)
	r.setStatus(func(s *Status) { s.Synced, s.Err = false, err })
	if r.backoff.Steps == 0 {
		r.backoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.2, Steps: math.MaxInt32, Cap: 30 * time.Second}
	}
	t := time.NewTimer(r.backoff.Step())
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// succeeded resets the wait after failures.
func (r *Reflector) succeeded() { r.backoff = wait.Backoff{} }

// list reads every object of the source, page by page from one snapshot, into the store,
// removes from the store what the member no longer has, and returns the list's
// resourceVersion.
func (r *Reflector) list(ctx context.Context) (string, error) {
	keep := map[string]struct{}{}
	opts := metav1.ListOptions{Limit: r.pageSize}
	var rv string
	for {
		l, err := r.client.List(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			// The snapshot is gone: start over.
			keep, opts.Continue, rv = map[string]struct{}{}, "", ""
			continue
		}
		if err != nil {
			return "", fmt.Errorf("listing %s: %w", r.source, err)
		}
		if rv == "" {
			rv = l.GetResourceVersion()
		}
		for i := range l.Items {
			u := &l.Items[i]
			o, err := r.converter.Object(u)
			if err != nil {
				return "", err
			}
			keep[u.GetNamespace()+"/"+u.GetName()] = struct{}{}
			if err := r.store.Put(ctx, r.source, o, ""); err != nil {
				return "", err
			}
		}
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			break
		}
	}
	if err := r.store.Sweep(ctx, r.source, keep, rv); err != nil {
		return "", err
	}
	if err := r.store.Sync(ctx); err != nil {
		return "", err
	}
	if r.store.Lost(r.source) {
		return "", fmt.Errorf("the search cache failed to write part of %s", r.source)
	}
	r.succeeded()
	r.setStatus(func(s *Status) { s.Synced, s.Err, s.LastSync = true, nil, time.Now() })
	return rv, nil
}

// watch follows the member's watch from *rv, advancing *rv, until the member ends it
// (nil: watch again from *rv), an error, or ctx ends.
func (r *Reflector) watch(ctx context.Context, rv *string) error {
	w, err := r.client.Watch(ctx, metav1.ListOptions{ResourceVersion: *rv, AllowWatchBookmarks: true})
	if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
		return errExpired
	}
	if err != nil {
		return fmt.Errorf("watching %s: %w", r.source, err)
	}
	defer w.Stop()
	r.succeeded()
	r.setStatus(func(s *Status) { s.Synced, s.Err = true, nil })
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-w.ResultChan():
		case <-ctx.Done():
			return nil
		}
		if !ok {
			return nil
		}
		if ev.Type == watch.Error {
			err := apierrors.FromObject(ev.Object)
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				return errExpired
			}
			return fmt.Errorf("watching %s: %w", r.source, err)
		}
		obj, err := meta.Accessor(ev.Object)
		if err != nil {
			return fmt.Errorf("watching %s: %w", r.source, err)
		}
		next := obj.GetResourceVersion()
		switch ev.Type {
		case watch.Added, watch.Modified:
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				return fmt.Errorf("watching %s: unexpected %T", r.source, ev.Object)
			}
			o, cerr := r.converter.Object(u)
			if cerr != nil {
				return cerr
			}
			err = r.store.Put(ctx, r.source, o, next)
		case watch.Deleted:
			err = r.store.Delete(ctx, r.source, obj.GetNamespace(), obj.GetName(), next)
		case watch.Bookmark:
			err = r.store.Mark(ctx, r.source, next)
		}
		if err != nil {
			return err
		}
		if r.store.Lost(r.source) {
			return errExpired // the cache failed to write some of it: list again
		}
		*rv = next
		r.setStatus(func(s *Status) { s.LastSync = time.Now() })
	}
}

// MetadataClient reads a kind as metadata only, into unstructured objects of apiVersion
// and kind: how the cache reads Secrets.
func MetadataClient(c metadata.ResourceInterface, apiVersion, kind string) Client {
	return &metadataClient{c: c, apiVersion: apiVersion, kind: kind}
}

type metadataClient struct {
	c                metadata.ResourceInterface
	apiVersion, kind string
}

func (m *metadataClient) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	l, err := m.c.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := &unstructured.UnstructuredList{Object: map[string]any{}}
	out.SetResourceVersion(l.ResourceVersion)
	out.SetContinue(l.Continue)
	for i := range l.Items {
		u, err := m.convert(&l.Items[i])
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, *u)
	}
	return out, nil
}

func (m *metadataClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := m.c.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if p, ok := ev.Object.(*metav1.PartialObjectMetadata); ok {
			if u, err := m.convert(p); err == nil {
				ev.Object = u
			}
		}
		return ev, true
	}), nil
}

func (m *metadataClient) convert(p *metav1.PartialObjectMetadata) (*unstructured.Unstructured, error) {
	meta, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&p.ObjectMeta)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": m.apiVersion, "kind": m.kind, "metadata": meta}}, nil
}
