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
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
)

const (
	benchClusters  = 100
	bindingsPerOp  = 2000
	benchNamespace = "bench"
	// benchWriters is how many bindings are created at once.
	benchWriters = 32
)

// BenchmarkSchedulerEndToEnd measures the scheduler controller through the API: bindings
// created in a fed-apiserver of its own with 100 simulated clusters, from the first create
// until every binding has spec.clusters and Scheduled=True, as a watch sees it. The pure
// algorithm's figure is BenchmarkSchedule in controllers/scheduler.
//
// The clusters are Pull mode: fed does not dial a Pull member (its agent reports its
// health), so the cluster-health controller leaves the status written here alone. A Push
// cluster it cannot reach would get the unreachable NoSchedule taint within a probe, and the
// scheduler, which reads health only through those taints, would place nothing new there.
// The bindings name Deployments that do not exist, under names that are not the detector's
// (<name>-deployment): the detector and the binding controller look them up and leave them.
func BenchmarkSchedulerEndToEnd(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f, stop, err := theLab.StartFedServer(ctx, "fed-apiserver-bench", "--data-dir="+b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	cfg, err := theLab.FedRESTConfig(f)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS = -1 // no client-side throttling: the server decides how fast
	fed, err := versioned.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := createBenchNamespace(ctx, cfg); err != nil {
		b.Fatal(err)
	}
	if err := createSimulatedClusters(ctx, fed, benchClusters); err != nil {
		b.Fatal(err)
	}

	scheduled := newScheduledSet()
	factory := fedinformers.NewSharedInformerFactoryWithOptions(fed, 0, fedinformers.WithNamespace(benchNamespace))
	informer := factory.Federation().V1alpha1().ResourceBindings().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    scheduled.observe,
		UpdateFunc: func(_, obj any) { scheduled.observe(obj) },
	}); err != nil {
		b.Fatal(err)
	}
	informerCtx, stopInformers := context.WithCancel(ctx)
	factory.Start(informerCtx.Done())
	defer func() {
		stopInformers()
		factory.Shutdown() // waits for the informers, which stop with informerCtx
	}()
	factory.WaitForCacheSync(ctx.Done())
	if err := warmUp(ctx, fed, scheduled); err != nil {
		b.Fatal(err)
	}

	placements := benchPlacements()
	// With a FederatedResourceQuota in the namespace (one that holds everything: the cost of
	// admission, not of refusals), then without, against the same server.
	b.Run("quotas=on", func(b *testing.B) {
		q := &federationv1alpha1.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: benchNamespace},
			Spec: federationv1alpha1.FederatedResourceQuotaSpec{Overall: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1G"), corev1.ResourceMemory: resource.MustParse("1000Pi"), corev1.ResourcePods: resource.MustParse("1G")}}}
		if _, err := fed.FederationV1alpha1().FederatedResourceQuotas(benchNamespace).Create(ctx, q, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		benchSchedule(ctx, b, fed, scheduled, placements, "on")
		if err := fed.FederationV1alpha1().FederatedResourceQuotas(benchNamespace).Delete(ctx, q.Name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("quotas=off", func(b *testing.B) { benchSchedule(ctx, b, fed, scheduled, placements, "off") })
}

// benchSchedule creates bindingsPerOp bindings (named rb-<tag>-<i>-<j>) b.N times and waits
// until each is scheduled.
func benchSchedule(ctx context.Context, b *testing.B, fed versioned.Interface, scheduled *scheduledSet, placements []*federationv1alpha1.Placement, tag string) {
	var created, elapsed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		names := make(chan int)
		errs := make(chan error, benchWriters)
		var wg sync.WaitGroup
		for range benchWriters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var failed error
				for j := range names { // drained to the end, failed or not, so the sender never blocks
					rb := benchBinding(fmt.Sprintf("rb-%s-%d-%d", tag, i, j), int32([]int{3, 40, 400}[j%3]), placements[j%len(placements)])
					if _, err := fed.FederationV1alpha1().ResourceBindings(benchNamespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && failed == nil {
						failed = fmt.Errorf("creating %s: %w", rb.Name, err)
					}
				}
				errs <- failed
			}()
		}
		for j := range bindingsPerOp {
			names <- j
		}
		close(names)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		created += time.Since(start)
		if err := scheduled.wait(ctx, fmt.Sprintf("rb-%s-%d-", tag, i), bindingsPerOp, 2*time.Minute); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
	}
	b.StopTimer()
	total := float64(b.N * bindingsPerOp)
	b.ReportMetric(total/elapsed.Seconds(), "bindings/s")
	b.ReportMetric(total/created.Seconds(), "creates/s")
}

// scheduledSet counts the bindings a watch has seen with spec.clusters and Scheduled=True,
// by prefix of their name.
type scheduledSet struct {
	mu      sync.Mutex
	changed *sync.Cond
	done    map[string]bool
	count   map[string]int
}

func newScheduledSet() *scheduledSet {
	s := &scheduledSet{done: map[string]bool{}, count: map[string]int{}}
	s.changed = sync.NewCond(&s.mu)
	return s
}

func (s *scheduledSet) observe(obj any) {
	rb, ok := obj.(*federationv1alpha1.ResourceBinding)
	if !ok || len(rb.Spec.Clusters) == 0 || !meta.IsStatusConditionTrue(rb.Status.Conditions, federationv1alpha1.BindingConditionScheduled) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done[rb.Name] {
		return
	}
	s.done[rb.Name] = true
	if i := strings.LastIndexByte(rb.Name, '-'); i >= 0 {
		s.count[rb.Name[:i+1]]++
	}
	s.changed.Broadcast()
}

func (s *scheduledSet) isDone(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done[name]
}

// wait returns when n bindings whose names start with prefix (and go on without a dash)
// are scheduled, or an error at the timeout.
func (s *scheduledSet) wait(ctx context.Context, prefix string, n int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.changed.Broadcast()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.count[prefix] < n {
		if ctx.Err() != nil {
			return fmt.Errorf("%d of %d bindings %s* scheduled within %s", s.count[prefix], n, prefix, timeout)
		}
		s.changed.Wait()
	}
	return nil
}

func createBenchNamespace(ctx context.Context, cfg *rest.Config) error {
	fleetConfig := rest.CopyConfig(cfg)
	fleetConfig.Host = strings.TrimSuffix(fleetConfig.Host, "/") + federationv1alpha1.FleetPath
	fleet, err := kubernetes.NewForConfig(fleetConfig)
	if err != nil {
		return err
	}
	_, err = fleet.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}, metav1.CreateOptions{})
	return err
}

// createSimulatedClusters creates n Pull clusters over 3 providers and 5 regions of 2 zones,
// labelled with an environment and a tier, each reporting itself Ready with room for 64 to
// 256 replicas of 250m CPU; one in twenty is cordoned.
func createSimulatedClusters(ctx context.Context, fed versioned.Interface, n int) error {
	providers := []string{"aws", "gcp", "huaweicloud"}
	envs := []string{"production", "staging"}
	tiers := []string{"gold", "silver", "bronze"}
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			region := fmt.Sprintf("region-%d", i%5)
			c := &clusterv1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sim%03d", i),
					Labels: map[string]string{"environment": envs[i%2], "tier": tiers[i%3]}},
				Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull, Provider: providers[i%3], Region: region,
					Zone: fmt.Sprintf("%s%c", region, 'a'+rune(i%2))},
			}
			if i%20 == 7 {
				c.Spec.Taints = []corev1.Taint{{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
			}
			created, err := fed.ClusterV1alpha1().Clusters().Create(ctx, c, metav1.CreateOptions{})
			if err != nil {
				errs <- err
				return
			}
			nodes := int64(1 + i%4)
			created.Status = clusterv1alpha1.ClusterStatus{
				KubernetesVersion: "v1.32.4",
				Conditions: []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue,
					Reason: "ClusterReady", Message: "simulated", LastTransitionTime: metav1.Now()}},
				ResourceSummary: &clusterv1alpha1.ResourceSummary{
					Allocatable: corev1.ResourceList{
						corev1.ResourceCPU:    *resource.NewQuantity(16*nodes, resource.DecimalSI),
						corev1.ResourceMemory: *resource.NewQuantity(64*nodes<<30, resource.BinarySI),
						corev1.ResourcePods:   *resource.NewQuantity(110*nodes, resource.DecimalSI),
					},
					Allocated: corev1.ResourceList{
						corev1.ResourceCPU:  *resource.NewMilliQuantity(int64(i%7)*1000, resource.DecimalSI),
						corev1.ResourcePods: *resource.NewQuantity(int64(i%11), resource.DecimalSI),
					},
				},
			}
			if _, err := fed.ClusterV1alpha1().Clusters().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// warmUp waits until the scheduler sees every simulated cluster with its resources: a
// binding that needs one replica on each of them is scheduled. One that came too early is
// retried only after a minute, so a new one is created every second until one is.
func warmUp(ctx context.Context, fed versioned.Interface, scheduled *scheduledSet) error {
	placement := &federationv1alpha1.Placement{
		ClusterTolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		SpreadConstraints:  []federationv1alpha1.SpreadConstraint{{SpreadByField: federationv1alpha1.SpreadByFieldCluster, MinGroups: benchClusters}},
		ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: federationv1alpha1.ReplicaDivisionPreferenceDynamic},
	}
	deadline := time.Now().Add(time.Minute)
	for i := 0; time.Now().Before(deadline); i++ {
		name := fmt.Sprintf("warmup-%d", i)
		// The fleet's namespace may take a moment to be known to admission.
		if _, err := fed.FederationV1alpha1().ResourceBindings(benchNamespace).Create(ctx, benchBinding(name, benchClusters, placement), metav1.CreateOptions{}); err != nil {
			time.Sleep(time.Second)
			continue
		}
		for range 10 {
			if scheduled.isDone(name) {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return fmt.Errorf("no warm-up binding over all %d clusters was scheduled within a minute", benchClusters)
}

// benchPlacements are the placements of the bindings, in turn: duplicated by labels,
// static and dynamic weights, aggregated, spread by region and by label,
// clusterAffinities, and none.
func benchPlacements() []*federationv1alpha1.Placement {
	prod := &federationv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "production"}}}
	gold := &federationv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"gold"}}}}}
	divided := func(pref federationv1alpha1.ReplicaDivisionPreference) *federationv1alpha1.ReplicaSchedulingStrategy {
		return &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: pref}
	}
	weight := func(cluster string, w int64) federationv1alpha1.StaticClusterWeight {
		return federationv1alpha1.StaticClusterWeight{TargetCluster: federationv1alpha1.ClusterAffinity{ClusterNames: []string{cluster}}, Weight: w}
	}
	static := divided(federationv1alpha1.ReplicaDivisionPreferenceWeighted)
	static.WeightPreference = &federationv1alpha1.ClusterPreferences{StaticWeightList: []federationv1alpha1.StaticClusterWeight{
		weight("sim000", 3), weight("sim003", 2), weight("sim006", 1)}}
	spread := func(by federationv1alpha1.SpreadFieldValue, lo, hi int32) federationv1alpha1.SpreadConstraint {
		return federationv1alpha1.SpreadConstraint{SpreadByField: by, MinGroups: lo, MaxGroups: hi}
	}
	return []*federationv1alpha1.Placement{
		{ClusterAffinity: prod},
		{ClusterAffinity: gold, ReplicaScheduling: static},
		{ClusterAffinity: prod, ReplicaScheduling: divided(federationv1alpha1.ReplicaDivisionPreferenceDynamic)},
		{ReplicaScheduling: divided(federationv1alpha1.ReplicaDivisionPreferenceAggregated)},
		{ReplicaScheduling: divided(federationv1alpha1.ReplicaDivisionPreferenceDynamic), SpreadConstraints: []federationv1alpha1.SpreadConstraint{
			spread(federationv1alpha1.SpreadByFieldRegion, 3, 4), spread(federationv1alpha1.SpreadByFieldCluster, 1, 2)}},
		{ReplicaScheduling: divided(federationv1alpha1.ReplicaDivisionPreferenceAggregated), SpreadConstraints: []federationv1alpha1.SpreadConstraint{
			spread(federationv1alpha1.SpreadByFieldRegion, 2, 3), spread(federationv1alpha1.SpreadByFieldCluster, 1, 0)}},
		{SpreadConstraints: []federationv1alpha1.SpreadConstraint{{SpreadByLabel: "tier", MinGroups: 2, MaxGroups: 3}}},
		{ReplicaScheduling: divided(""), ClusterAffinities: []federationv1alpha1.ClusterAffinityTerm{
			{AffinityName: "gold", ClusterAffinity: *gold}, {AffinityName: "production", ClusterAffinity: *prod}}},
		nil,
	}
}

// benchBinding is a binding of a Deployment that does not exist, as the detector would
// write it for replicas of 250m CPU and 512Mi each.
func benchBinding(name string, replicas int32, placement *federationv1alpha1.Placement) *federationv1alpha1.ResourceBinding {
	return &federationv1alpha1.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: benchNamespace},
		Spec: federationv1alpha1.ResourceBindingSpec{
			Resource: federationv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: benchNamespace, Name: name},
			Replicas: replicas,
			ReplicaRequirements: &federationv1alpha1.ReplicaRequirements{ResourceRequest: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("250m"),
				corev1.ResourceMemory: resource.MustParse("512Mi"),
			}},
			Placement: placement,
		},
	}
}
