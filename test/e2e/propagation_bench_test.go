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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
)

const (
	// propagationTemplates is how many Deployments BenchmarkPropagation1000Deployments
	// propagates to each member.
	propagationTemplates = 1000
	// propagationWriters is how many goroutines create and delete the templates.
	propagationWriters = 16
)

// BenchmarkPropagation1000Deployments is issue 7's figure: 1,000 Deployments created in the
// fleet first, then one PropagationPolicy (kind-only selector, no placement: Duplicated to
// the lab's three members). It times, from the policy's creation, how long until all 3,000
// member objects exist, as watches of the members started before the policy see them; per
// object, the latency from its binding's first appearance (a watch of the fleet's
// ResourceBindings) to the member object's ADDED event; and when the last of the 1,000
// bindings appeared. The templates have 0 replicas: the bench measures propagation, not pods
// (with 1 replica each, the members' controller managers and kwok would run 3,000 pods on the
// same machine). Deleting the templates, until the members have none left, is timed too,
// off the benchmark's clock.
func BenchmarkPropagation1000Deployments(b *testing.B) {
	// Within `go test -timeout 30m`, with time left for the clean-up.
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	c, err := newPropagationClients()
	if err != nil {
		b.Fatal(err)
	}
	baseline, err := c.direct(ctx, false)
	if err != nil {
		b.Fatal(err)
	}
	var runs []propagationRun
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		r, err := c.run(ctx, b, false)
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, r)
	}
	// The same with the members' controller managers stopped, off the benchmark's clock:
	// the members then only store the Deployments, so fed's ratio to the direct apply is
	// fed's own cost.
	pausedBaseline, err := c.direct(ctx, true)
	if err != nil {
		b.Fatal(err)
	}
	paused, err := c.run(ctx, b, true)
	if err != nil {
		b.Fatal(err)
	}
	reportPropagation(b, runs, baseline)
	reportPaused(b, paused, pausedBaseline)
}

// propagationClients reach the fleet (templates, policies, and fed's bindings, which the
// fleet serves too) and each member directly.
type propagationClients struct {
	fleet   kubernetes.Interface
	fed     versioned.Interface
	members map[string]kubernetes.Interface
	// server reaches fed-apiserver itself (not through the host), for its /metrics.
	server kubernetes.Interface
	// templates is how many Deployments a run propagates (propagationTemplates unless set).
	templates int
	// memberNames are the members a run propagates to and watches (the lab's three unless
	// set); their clients are in members.
	memberNames []string
	// divided, when set, has a run's policy divide each template's replicas over the
	// members by equal weights, each template with one replica per member, instead of
	// duplicating templates of 0 replicas.
	divided bool
	// afterPropagation, when set, is called once every member object exists, before the
	// templates are deleted.
	afterPropagation func(ctx context.Context, ns string) error
}

// newPropagationClients reaches the fleet, fed-apiserver, and the named members of the lab
// (member1..3 when none is named).
func newPropagationClients(names ...string) (*propagationClients, error) {
	if len(names) == 0 {
		names = labMembers
	}
	cfg, err := clientConfigFor(theLab.FleetKubeconfig())
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 500, 1000
	c := &propagationClients{members: map[string]kubernetes.Interface{}, templates: propagationTemplates, memberNames: names}
	if c.fleet, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.fed, err = versioned.NewForConfig(cfg); err != nil {
		return nil, err
	}
	scfg, err := theLab.FedRESTConfig(theLab.FedServer())
	if err != nil {
		return nil, err
	}
	if c.server, err = kubernetes.NewForConfig(scfg); err != nil {
		return nil, err
	}
	for _, m := range names {
		mcfg, err := clientConfigFor(memberKubeconfig(m))
		if err != nil {
			return nil, err
		}
		mcfg.QPS, mcfg.Burst = 200, 400 // as fed's execution controller has for each member
		if c.members[m], err = kubernetes.NewForConfig(mcfg); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// propagationRun is what one iteration measured.
type propagationRun struct {
	all       time.Duration // policy created → the last of the 3,000 member objects
	bindings  time.Duration // policy created → the last of the 1,000 bindings
	first     time.Duration // policy created → the first member object
	latencies []time.Duration
	deleted   time.Duration // first template delete → no member object left
	cpu       cpuUse        // the lab's CPU from the policy's creation to the last member object
	// requests fed-apiserver and the first member served over the same span, per template
	fedRequests, memberRequests []string
	fedWrites                   float64      // of those to fed-apiserver, the writes (no GET, LIST, WATCH)
	fleetEvents                 int          // event writes in the run's namespace of the fleet (not in fedWrites)
	memory                      serverMemory // fed-apiserver's when the last member object arrived
}

// run propagates the templates once, in a namespace of its own, and deletes them again.
// Only the propagation runs on the benchmark's clock.
// With paused, the members' controller managers are stopped from the policy's creation until
// the members are empty again.
func (c *propagationClients) run(ctx context.Context, b *testing.B, paused bool) (propagationRun, error) {
	var r propagationRun
	ns := fmt.Sprintf("bench-prop-%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := c.fleet.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return r, err
	}
	defer c.cleanUp(ns)
	start := time.Now()
	if err := c.createTemplates(ctx, ns); err != nil {
		return r, err
	}
	b.Logf("%d Deployments (replicas 0) created in the fleet's namespace %s in %s", c.templates, ns, time.Since(start).Round(time.Millisecond))

	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	arrived, err := c.watchMembers(watchCtx, ns)
	if err != nil {
		return r, err
	}
	bound, err := c.watchBindings(watchCtx, ns)
	if err != nil {
		return r, err
	}

	fedBefore, err := countRequests(ctx, c.server)
	if err != nil {
		return r, err
	}
	memberBefore, err := countRequests(ctx, c.members[c.memberNames[0]])
	if err != nil {
		return r, err
	}
	if paused {
		resume, err := pauseMemberControllers()
		defer resume()
		if err != nil {
			return r, err
		}
	}
	profiled := c.profile(ctx, b, "")
	b.StartTimer()
	cpuBefore := markCPU()
	policyCreated := time.Now()
	policy := benchPolicy()
	if c.divided {
		policy.Spec.Placement.ReplicaScheduling = &federationv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType:     federationv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceWeighted,
		}
	}
	if _, err := c.fed.FederationV1alpha1().PropagationPolicies(ns).Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		return r, err
	}
	if err := arrived.waitFor(ctx, c.templates, c.timeout(10*time.Minute)); err != nil {
		return r, err
	}
	b.StopTimer()
	r.cpu = cpuSince(cpuBefore)
	fedAfter, err := countRequests(ctx, c.server)
	if err != nil {
		return r, err
	}
	memberAfter, err := countRequests(ctx, c.members[c.memberNames[0]])
	if err != nil {
		return r, err
	}
	<-profiled
	if r.memory, err = c.fedMemory(ctx); err != nil {
		return r, err
	}
	c.heapProfile(ctx, b)
	r.fedRequests = fedAfter.since(fedBefore, float64(c.templates))
	r.fedWrites = fedAfter.writesSince(fedBefore)
	if r.fleetEvents, err = c.countEvents(ctx, ns); err != nil {
		return r, err
	}
	r.memberRequests = memberAfter.since(memberBefore, float64(c.templates))
	if err := bound.waitFor(ctx, c.templates, c.timeout(time.Minute)); err != nil {
		return r, err
	}
	r.all, r.first, r.latencies = arrived.since(policyCreated, bound)
	r.bindings = bound.last().Sub(policyCreated)
	if c.afterPropagation != nil {
		if err := c.afterPropagation(ctx, ns); err != nil {
			return r, err
		}
	}

	start = time.Now()
	if err := c.deleteTemplates(ctx, ns); err != nil {
		return r, err
	}
	if err := arrived.waitFor(ctx, 0, c.timeout(10*time.Minute)); err != nil {
		return r, err
	}
	r.deleted = time.Since(start)
	return r, nil
}

// timeout scales a timeout for 1,000 templates to the run's number of them.
func (c *propagationClients) timeout(d time.Duration) time.Duration {
	return max(d, d*time.Duration(c.templates)/propagationTemplates)
}

// profile, when FED_BENCH_PROFILE names a file, writes there (its name followed by suffix)
// a CPU profile of fed-apiserver over the propagation's first FED_BENCH_PROFILE_SECONDS
// (20 s unless set): `go tool pprof -top bin/fed-apiserver FILE` says where fed's CPU goes.
// The channel it returns is closed when the profile is written (at once without one).
func (c *propagationClients) profile(ctx context.Context, b *testing.B, suffix string) <-chan struct{} {
	done := make(chan struct{})
	file := os.Getenv("FED_BENCH_PROFILE")
	if file == "" {
		close(done)
		return done
	}
	file += suffix
	seconds := os.Getenv("FED_BENCH_PROFILE_SECONDS")
	if seconds == "" {
		seconds = "20"
	}
	go func() {
		defer close(done)
		c.savePprof(ctx, b, file, "profile", "seconds", seconds, 5*time.Minute)
	}()
	return done
}

// heapProfile, when FED_BENCH_HEAP names a file, writes there fed-apiserver's heap profile
// after a collection (what is live), taken once the memory is read: `go tool pprof -top
// -sample_index=inuse_space bin/fed-apiserver FILE` says what holds it.
func (c *propagationClients) heapProfile(ctx context.Context, b *testing.B) {
	if file := os.Getenv("FED_BENCH_HEAP"); file != "" {
		c.savePprof(ctx, b, file, "heap", "gc", "1", time.Minute)
	}
}

// savePprof writes to file fed-apiserver's /debug/pprof/<profile> asked with one parameter;
// a failure is logged, not fatal: the bench's figures stand without it.
func (c *propagationClients) savePprof(ctx context.Context, b *testing.B, file, profile, param, value string, timeout time.Duration) {
	data, err := c.server.Discovery().RESTClient().Get().AbsPath("/debug/pprof/"+profile).Param(param, value).Timeout(timeout).DoRaw(ctx)
	if err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	if err != nil {
		b.Logf("fed-apiserver's %s profile: %v", profile, err)
	}
}

// directRun is what the direct baseline measured.
type directRun struct {
	exist, settled       time.Duration // start → all 3,000 exist; → the members' controllers are done with them
	existCPU, settledCPU cpuUse
}

// direct is the floor fed's figure stands on: the members' own cost of the same 3,000
// Deployments (their apiservers, etcd, and the Deployment controllers making a ReplicaSet
// for each), with no fed in between. A client server-side applies them straight to the
// members, as fed's execution controller does (field manager, 16 writers and 200 requests/s
// per member), and the members' watches time them until all exist, then until the members'
// controllers are done with them (status.observedGeneration caught up), with the lab's CPU
// up to each. Its namespace is deleted afterwards.
//
// With paused, the members' controller managers are stopped: the run ends when all exist,
// and the Deployments are deleted before the controllers start again (no ReplicaSets then).
func (c *propagationClients) direct(ctx context.Context, paused bool) (directRun, error) {
	var r directRun
	ns := fmt.Sprintf("bench-direct-%d", time.Now().UnixNano()%1_000_000_000)
	defer c.deleteMemberNamespace(ns)
	for _, m := range c.memberNames {
		if _, err := c.members[m].CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return r, err
		}
	}
	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	arrived, err := c.watchMembers(watchCtx, ns)
	if err != nil {
		return r, err
	}
	if paused {
		resume, err := pauseMemberControllers()
		defer resume()
		if err != nil {
			return r, err
		}
	}
	cpuBefore := markCPU()
	start := time.Now()
	var g errgroup.Group
	for _, m := range c.memberNames {
		deployments := c.members[m].AppsV1().Deployments(ns)
		g.Go(func() error {
			var each errgroup.Group
			each.SetLimit(propagationWriters)
			for i := range c.templates {
				each.Go(func() error {
					d := benchDeployment(i)
					d.APIVersion, d.Kind = "apps/v1", "Deployment"
					data, err := json.Marshal(d)
					if err != nil {
						return err
					}
					_, err = deployments.Patch(ctx, d.Name, types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "bench", Force: ptr.To(true)})
					return err
				})
			}
			return each.Wait()
		})
	}
	if err := g.Wait(); err != nil {
		return r, err
	}
	if err := arrived.waitFor(ctx, c.templates, 5*time.Minute); err != nil {
		return r, err
	}
	r.exist, r.existCPU = arrived.last().Sub(start), cpuSince(cpuBefore)
	if paused {
		for _, m := range c.memberNames {
			if err := c.members[m].AppsV1().Deployments(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				return r, err
			}
		}
		return r, arrived.waitFor(ctx, 0, 5*time.Minute)
	}
	if err := arrived.waitSettled(ctx, c.templates, 5*time.Minute); err != nil {
		return r, err
	}
	r.settled, r.settledCPU = arrived.lastSettled().Sub(start), cpuSince(cpuBefore)
	return r, nil
}

// deleteMemberNamespace deletes a namespace in every member and waits until it is gone,
// its Deployments and their ReplicaSets with it, so that the members' controllers are
// idle again when fed's run starts.
func (c *propagationClients) deleteMemberNamespace(ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cleanUpTimeout())
	defer cancel()
	for _, m := range c.memberNames {
		_ = c.members[m].CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	}
	for _, m := range c.memberNames {
		for ctx.Err() == nil {
			if _, err := c.members[m].CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(time.Second)
		}
	}
}

// createTemplates creates the Deployments, propagationWriters at a time.
func (c *propagationClients) createTemplates(ctx context.Context, ns string) error {
	var g errgroup.Group
	g.SetLimit(propagationWriters)
	for i := range c.templates {
		g.Go(func() error {
			d := benchDeployment(i)
			if c.divided {
				d.Spec.Replicas = ptr.To(int32(len(c.memberNames)))
			}
			_, err := c.fleet.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
			return err
		})
	}
	return g.Wait()
}

// deleteTemplates deletes the Deployments one by one, propagationWriters at a time, as a
// user's tool would.
func (c *propagationClients) deleteTemplates(ctx context.Context, ns string) error {
	var g errgroup.Group
	g.SetLimit(propagationWriters)
	for i := range c.templates {
		g.Go(func() error {
			err := c.fleet.AppsV1().Deployments(ns).Delete(ctx, benchDeploymentName(i), metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		})
	}
	return g.Wait()
}

// cleanUp removes what a run left in the fleet: the templates (their member objects go with
// them), the policy, then the namespace. After a successful run the templates are gone
// already.
func (c *propagationClients) cleanUp(ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cleanUpTimeout())
	defer cancel()
	_ = c.fleet.AppsV1().Deployments(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	for _, m := range c.memberNames {
		for ctx.Err() == nil {
			l, err := c.members[m].AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{Limit: 1})
			if err != nil || len(l.Items) == 0 {
				break
			}
			time.Sleep(time.Second)
		}
	}
	_ = c.fed.FederationV1alpha1().PropagationPolicies(ns).Delete(ctx, "bench", metav1.DeleteOptions{})
	_ = c.fleet.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	// Empty, the members' copies of the namespace are removed here too, so that runs do
	// not pile up in the lab.
	c.deleteMemberNamespace(ns)
}

// cleanUpTimeout is how long a clean-up waits for the members: 3 minutes, and 10 s more a
// member past 3 (at 30 members, fed deletes 30,000 objects in about 4 minutes), so that the
// next figure does not start while fed is still deleting.
func (c *propagationClients) cleanUpTimeout() time.Duration {
	return 3*time.Minute + time.Duration(max(len(c.memberNames)-3, 0))*10*time.Second
}

func benchDeploymentName(i int) string { return fmt.Sprintf("bench-%04d", i) }

func benchDeployment(i int) *appsv1.Deployment {
	labels := map[string]string{"app": benchDeploymentName(i)}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: benchDeploymentName(i), Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/bench:1"}}},
			},
		},
	}
}

// benchPolicy selects every Deployment of its namespace by kind only; without a placement
// every member gets each one, Duplicated.
func benchPolicy() *federationv1alpha1.PropagationPolicy {
	return &federationv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		Spec: federationv1alpha1.PropagationSpec{
			ResourceSelectors: []federationv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}},
			Placement: federationv1alpha1.Placement{ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDuplicated,
			}},
		},
	}
}

// arrivals records, per source (a member, or the fleet's bindings), when a watch first
// saw each object, which are there now, and when each Deployment was first settled (its
// controller had observed its generation).
type arrivals struct {
	mu      sync.Mutex
	changed *sync.Cond
	first   map[string]map[string]time.Time
	settled map[string]map[string]time.Time
	live    map[string]map[string]bool
	err     error
}

func newArrivals(sources []string) *arrivals {
	a := &arrivals{first: map[string]map[string]time.Time{}, settled: map[string]map[string]time.Time{}, live: map[string]map[string]bool{}}
	a.changed = sync.NewCond(&a.mu)
	for _, s := range sources {
		a.first[s], a.settled[s], a.live[s] = map[string]time.Time{}, map[string]time.Time{}, map[string]bool{}
	}
	return a
}

// follow records the events of w under source until it ends.
func (a *arrivals) follow(source string, w watch.Interface) {
	for ev := range w.ResultChan() {
		now := time.Now()
		if ev.Type == watch.Error {
			a.fail(fmt.Errorf("watching %s: %v", source, apierrors.FromObject(ev.Object)))
			continue
		}
		obj, err := meta.Accessor(ev.Object)
		if err != nil {
			continue
		}
		a.mu.Lock()
		switch ev.Type {
		case watch.Added, watch.Modified:
			if _, seen := a.first[source][obj.GetName()]; !seen {
				a.first[source][obj.GetName()] = now
			}
			if _, seen := a.settled[source][obj.GetName()]; !seen && settled(ev.Object) {
				a.settled[source][obj.GetName()] = now
			}
			a.live[source][obj.GetName()] = true
		case watch.Deleted:
			delete(a.live[source], obj.GetName())
		}
		a.changed.Broadcast()
		a.mu.Unlock()
	}
}

func (a *arrivals) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = err
	}
	a.changed.Broadcast()
}

// settled tells whether a Deployment's controller has observed its generation.
func settled(obj runtime.Object) bool {
	d, ok := obj.(*appsv1.Deployment)
	return ok && d.Generation > 0 && d.Status.ObservedGeneration >= d.Generation
}

// waitFor returns when every source has exactly n objects, or an error at the timeout.
func (a *arrivals) waitFor(ctx context.Context, n int, timeout time.Duration) error {
	return a.wait(ctx, func(source string) int { return len(a.live[source]) }, n, timeout)
}

// waitSettled returns when every source has n settled objects, or an error at the timeout.
func (a *arrivals) waitSettled(ctx context.Context, n int, timeout time.Duration) error {
	return a.wait(ctx, func(source string) int { return len(a.settled[source]) }, n, timeout)
}

// wait returns when count, called with a.mu held, is n for every source.
func (a *arrivals) wait(ctx context.Context, count func(source string) int, n int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { a.fail(fmt.Errorf("not within %s", timeout)) })
	defer stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		counts, done := map[string]int{}, true
		for s := range a.live {
			counts[s] = count(s)
			done = done && counts[s] == n
		}
		if done {
			return nil
		}
		if a.err != nil {
			return fmt.Errorf("%w: objects %v, want %d each", a.err, counts, n)
		}
		a.changed.Wait()
	}
}

// last is when the last object of any source was first seen.
func (a *arrivals) last() time.Time { return a.latest(a.first) }

// lastSettled is when the last object of any source was first seen settled.
func (a *arrivals) lastSettled() time.Time { return a.latest(a.settled) }

func (a *arrivals) latest(times map[string]map[string]time.Time) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var last time.Time
	for _, objs := range times {
		for _, t := range objs {
			if t.After(last) {
				last = t
			}
		}
	}
	return last
}

// since returns, for member arrivals, the time from start to the last and the first
// object, and each object's latency from its binding's first appearance in bound.
func (a *arrivals) since(start time.Time, bound *arrivals) (last, first time.Duration, latencies []time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	bound.mu.Lock()
	defer bound.mu.Unlock()
	first = time.Duration(1<<63 - 1)
	for _, objs := range a.first {
		for name, t := range objs {
			last, first = max(last, t.Sub(start)), min(first, t.Sub(start))
			if b, ok := bound.first[""][federationv1alpha1.BindingName("Deployment", name)]; ok {
				latencies = append(latencies, t.Sub(b))
			}
		}
	}
	slices.Sort(latencies)
	return last, first, latencies
}

// watchMembers watches the namespace's Deployments in every member from now on.
func (c *propagationClients) watchMembers(ctx context.Context, ns string) (*arrivals, error) {
	a := newArrivals(c.memberNames)
	for _, m := range c.memberNames {
		deployments := c.members[m].AppsV1().Deployments(ns)
		l, err := deployments.List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		if len(l.Items) > 0 {
			return nil, fmt.Errorf("%s already has %d Deployments in %s", m, len(l.Items), ns)
		}
		if err := a.start(ctx, m, l.ResourceVersion, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return deployments.Watch(ctx, o)
		}); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// watchBindings watches the namespace's ResourceBindings in the fleet from now on.
func (c *propagationClients) watchBindings(ctx context.Context, ns string) (*arrivals, error) {
	a := newArrivals([]string{""})
	bindings := c.fed.FederationV1alpha1().ResourceBindings(ns)
	l, err := bindings.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return a, a.start(ctx, "", l.ResourceVersion, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return bindings.Watch(ctx, o)
	})
}

// start follows a watch from resourceVersion on, reconnecting when the server ends it.
func (a *arrivals) start(ctx context.Context, source, resourceVersion string, w cache.WatchFuncWithContext) error {
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, &cache.ListWatch{WatchFuncWithContext: w})
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		rw.Stop()
	}()
	go a.follow(source, rw)
	return nil
}

// reportPropagation reports the runs' means, and the latencies of all their objects.
func reportPropagation(b *testing.B, runs []propagationRun, direct directRun) {
	var all, bindings, first, deleted time.Duration
	var latencies []time.Duration
	var uses []cpuUse
	var writes float64
	var events int
	var memory serverMemory
	for _, r := range runs {
		writes += r.fedWrites
		events += r.fleetEvents
		memory.rss, memory.peak, memory.heap = max(memory.rss, r.memory.rss), max(memory.peak, r.memory.peak), max(memory.heap, r.memory.heap)
		memory.file = max(memory.file, r.memory.file)
		all, bindings, first, deleted = all+r.all, bindings+r.bindings, first+r.first, deleted+r.deleted
		latencies = append(latencies, r.latencies...)
		uses = append(uses, r.cpu)
	}
	cpu := meanCPU(uses)
	n := time.Duration(len(runs))
	all, bindings, first, deleted = all/n, bindings/n, first/n, deleted/n
	slices.Sort(latencies)
	objects := float64(propagationTemplates * len(labMembers))
	p50, p99, worst := percentile(latencies, 0.50), percentile(latencies, 0.99), percentile(latencies, 1)
	b.ReportMetric(all.Seconds(), "s")
	b.ReportMetric(objects/all.Seconds(), "objects/s")
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(worst), "max-ms")
	b.ReportMetric(bindings.Seconds(), "bindings-s")
	b.ReportMetric(objects/deleted.Seconds(), "deleted-objects/s")
	b.ReportMetric(direct.exist.Seconds(), "direct-s")
	b.ReportMetric(direct.settled.Seconds(), "direct-settled-s")
	b.ReportMetric(cpu.roles["fed-apiserver"].Seconds(), "fed-cpu-s")
	b.ReportMetric(ms(cpu.roles["fed-apiserver"])/propagationTemplates, "fed-cpu-ms/template")
	b.ReportMetric(writes/float64(len(runs))/propagationTemplates, "fed-writes/template")
	b.ReportMetric(memory.rss/(1<<20), "fed-rss-MiB")
	b.ReportMetric(cpu.total().Seconds(), "lab-cpu-s")
	fmt.Printf("baseline, no fed: the same %.0f Deployments server-side applied straight to the members exist after %s (%.0f objects/s); "+
		"the members' controllers are done with them (observedGeneration) after %s\n",
		objects, direct.exist.Round(time.Millisecond), objects/direct.exist.Seconds(), direct.settled.Round(time.Millisecond))
	fmt.Printf("  CPU used until they exist: %s\n", direct.existCPU)
	fmt.Printf("  CPU used until the members' controllers are done: %s\n", direct.settledCPU)
	fmt.Printf("propagation of %d Deployments (replicas 0: propagation, not pods) to %d members: all %.0f member objects %s after the policy (%.0f objects/s), "+
		"the first %s, all %d bindings %s; per object from its binding: p50 %s, p99 %s, max %s (%d measured); deleting the templates emptied the members in %s (%.0f objects/s)\n",
		propagationTemplates, len(labMembers), objects, all.Round(time.Millisecond), objects/all.Seconds(),
		first.Round(time.Millisecond), propagationTemplates, bindings.Round(time.Millisecond),
		p50.Round(time.Millisecond), p99.Round(time.Millisecond), worst.Round(time.Millisecond), len(latencies),
		deleted.Round(time.Millisecond), objects/deleted.Seconds())
	fmt.Printf("  fed's run is %.2f times the direct apply; fed-apiserver used %.1f ms of CPU and got %.2f writes per template to its own API, "+
		"and %.2f event writes per template to the fleet (the fleet's requests, template status among them, are not in apiserver_request_total); "+
		"when the last member object arrived: %s\n",
		all.Seconds()/direct.exist.Seconds(), ms(cpu.roles["fed-apiserver"])/propagationTemplates, writes/float64(len(runs))/propagationTemplates,
		float64(events)/float64(len(runs))/propagationTemplates, memory)
	fmt.Printf("  CPU used from the policy to the last member object: %s\n", cpu)
	for i, r := range runs {
		fmt.Printf("  run %d, requests per template from the policy to the last member object, to fed-apiserver:\n    %s\n", i+1, strings.Join(r.fedRequests, "\n    "))
		fmt.Printf("  and to %s:\n    %s\n", labMembers[0], strings.Join(r.memberRequests, "\n    "))
	}
}

// percentile is the q-quantile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pauseMemberControllers stops the controller managers of member1..3; resume starts them
// again. The lab's light members run only the namespace controller, which is left running.
func pauseMemberControllers() (resume func(), err error) {
	var stopped []string
	resume = func() {
		for _, name := range stopped {
			if err := theLab.StartProcess(name); err != nil {
				fmt.Fprintf(os.Stderr, "starting %s again: %v\n", name, err)
			}
		}
	}
	for _, m := range labMembers {
		name := m + "-controller-manager"
		if err := theLab.StopProcess(name); err != nil {
			return resume, err
		}
		stopped = append(stopped, name)
	}
	return resume, nil
}

// serverMemory is fed-apiserver's memory at one moment: its resident set, the peak of it so
// far, and the Go heap in use.
type serverMemory struct {
	rss, peak, file, heap float64 // bytes
}

func (m serverMemory) String() string {
	const mib = 1 << 20
	return fmt.Sprintf("RSS %.0f MiB (peak %.0f MiB; %.0f MiB of it pages of mapped files), Go heap in use %.0f MiB",
		m.rss/mib, m.peak/mib, m.file/mib, m.heap/mib)
}

// fedMemory reads fed-apiserver's memory now.
func (c *propagationClients) fedMemory(ctx context.Context) (serverMemory, error) {
	mem, err := theLab.ProcessMemory("fed-apiserver")
	if err != nil {
		return serverMemory{}, err
	}
	heap, err := readGauge(ctx, c.server, "go_memstats_heap_inuse_bytes")
	if err != nil {
		return serverMemory{}, err
	}
	return serverMemory{rss: float64(mem.RSS), peak: float64(mem.Peak), file: float64(mem.File), heap: heap}, nil
}

// reportPaused reports the run with the members' controller managers stopped beside its
// direct apply: fed's own cost (target: within 2 times the direct apply).
func reportPaused(b *testing.B, r propagationRun, direct directRun) {
	ratio := r.all.Seconds() / direct.exist.Seconds()
	b.ReportMetric(direct.exist.Seconds(), "paused-direct-s")
	b.ReportMetric(r.all.Seconds(), "paused-s")
	b.ReportMetric(ratio, "paused-ratio")
	slices.Sort(r.latencies)
	fmt.Printf("with the members' controller managers stopped: the direct apply %s, fed %s: %.2f times (target: 2); per object p50 %s, p99 %s; fed-apiserver %.1f ms of CPU and %.2f writes per template\n",
		direct.exist.Round(time.Millisecond), r.all.Round(time.Millisecond), ratio,
		percentile(r.latencies, 0.5).Round(time.Millisecond), percentile(r.latencies, 0.99).Round(time.Millisecond),
		ms(r.cpu.roles["fed-apiserver"])/propagationTemplates, r.fedWrites/propagationTemplates)
	fmt.Printf("  CPU used from the policy to the last member object: %s\n", r.cpu)
	fmt.Printf("  CPU used by the direct apply: %s\n", direct.existCPU)
}

// countEvents is how many event writes the fleet took in a namespace: each event once,
// and once more for each repetition counted into it.
func (c *propagationClients) countEvents(ctx context.Context, ns string) (int, error) {
	events, err := c.fleet.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range events.Items {
		n += int(max(e.Count, 1))
	}
	return n, nil
}
