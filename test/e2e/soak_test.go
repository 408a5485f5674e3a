package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/test/lab"
)

// TestSoak runs the users' operations at random against the lab while it injects faults,
// and after every period of operations waits for fed to converge and checks what must
// always hold (soakCheck). SOAK is how long it runs for each seed (30 s by default);
// SEED fixes the seed, else it runs seed 1 and one taken from the clock. A violation prints
// the seed and the last operations, to replay with SEED; SOAK_KEEP=1 keeps what a failed
// run made, to look at.
func TestSoak(t *testing.T) {
	duration := 30 * time.Second
	if s := os.Getenv("SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("SOAK=%q: %v (a duration, e.g. 10m)", s, err)
		}
		duration = d
	}
	seeds := []int64{1, time.Now().UnixNano() % 1_000_000}
	if s := os.Getenv("SEED"); s != "" {
		seed, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("SEED=%q: %v (an integer)", s, err)
		}
		seeds = []int64{seed}
	}
	installSoakCRD(t)
	t.Run("the checker sees what is wrong", testSoakChecker)
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			s := newSoak(t, seed)
			s.run(duration)
		})
	}
}

// The kinds of template the soak writes, with how it makes one.
var soakKinds = []struct {
	gvr  schema.GroupVersionResource
	kind string
}{
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap"},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "Deployment"},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, "Service"},
	{soakWidgets, "Widget"},
}

// soakWidgets are the objects of the soak's CRD (installSoakCRD), which fed knows nothing
// of but what the CRD says.
var soakWidgets = schema.GroupVersionResource{Group: "soak.example.com", Version: "v1", Resource: "widgets"}

// installSoakCRD makes the soak's CRD in the fleet and propagates it to every member with a
// ClusterPropagationPolicy, as a user does before making objects of a kind of their own;
// both go when the test ends, the CRD first, so that its copies and their objects go from
// the members.
func installSoakCRD(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("SOAK_KEEP") != "" {
			return
		}
		_, _ = runKubectl(fleet, "delete", "crd", soakWidgets.GroupResource().String(), "--ignore-not-found")
		for _, m := range labMembers {
			expectOutput(t, time.Minute, memberKubeconfig(m), "", "get", "crd", soakWidgets.GroupResource().String(), "--ignore-not-found", "-o", "name")
		}
		_, _ = runKubectl(fleet, "delete", "cpp", "soak-crd", "--ignore-not-found")
	})
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: soak-crd
spec:
  resourceSelectors:
  - apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    name: `+soakWidgets.GroupResource().String()+`
  placement:
    clusterAffinity:
      clusterNames: [`+strings.Join(labMembers, ", ")+`]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: `+soakWidgets.GroupResource().String()+`
spec:
  group: `+soakWidgets.Group+`
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              colour: {type: string}
`, "apply", "-f", "-")
	for _, m := range labMembers {
		expectOutput(t, time.Minute, memberKubeconfig(m), "True", "get", "crd", soakWidgets.GroupResource().String(), "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
	}
	// The fleet serves the kind once it has read the CRD.
	waitFor(t, 30*time.Second, func() error {
		_, err := runKubectl(fleet, "get", "widgets", "-A")
		return err
	})
}

const (
	soakGroupLabel    = "soak-group"
	soakOverrideLabel = "soak-override"
	soakGroups        = 3
	soakNames         = 4 // templates of each kind in a namespace
	soakPolicies      = 3 // PropagationPolicies in a namespace
	// ClusterPropagationPolicies of a namespace: the soak's select templates of one
	// namespace each.
	soakClusterPolicies = 2
)

type soak struct {
	t      *testing.T
	seed   int64
	rng    *rand.Rand
	ctx    context.Context
	fleet  dynamic.Interface
	fed    versioned.Interface
	member map[string]dynamic.Interface
	// namespaces are the fleet namespaces the run uses (made, deleted, made again).
	namespaces []string
	history    []string
	// faultLog is every fault injected and undone in the run, which a violation prints
	// whole: the last operations may not reach back to one still in force.
	faultLog []string
	// mu guards what the undoing of faults shares with the operations: the faults in
	// force, the history and the figures.
	mu     sync.Mutex
	faults map[string]*fault
	// recreate are namespaces an operation found gone, to be made again.
	recreate map[string]bool
	stats    struct {
		ops, failed int
		// refused counts the failed operations by the API's reason (NotFound, Conflict,
		// ServiceUnavailable while fed-apiserver is down, ...).
		refused  map[string]int
		faults   map[string]int
		checks   int
		converge time.Duration
	}
	// checked is what the last check compared: templates and member objects.
	checked struct{ templates, objects int }
	// goroutines is fed-apiserver's count after the first convergence.
	goroutines int
	heap       int64
	// proxy is the latency proxy in front of one member (slowMember).
	proxy *latencyProxy
	// pull is the member registered in pull mode for the run (pullMember).
	pull string
	// search is the host's client of the search cache, once searchRegistry made the
	// registry of the run's namespaces.
	search rest.Interface
}

func newSoak(t *testing.T, seed int64) *soak {
	s := &soak{t: t, seed: seed, rng: rand.New(rand.NewSource(seed)), ctx: context.Background(), member: map[string]dynamic.Interface{}, faults: map[string]*fault{}, recreate: map[string]bool{}}
	s.stats.faults, s.stats.refused = map[string]int{}, map[string]int{}
	cfg, err := clientConfigFor(theLab.FleetKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	if s.fleet, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if s.fed, err = versioned.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	for _, m := range labMembers {
		mc, err := theLab.Member(m).RESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		if s.member[m], err = dynamic.NewForConfig(mc); err != nil {
			t.Fatal(err)
		}
	}
	run := fmt.Sprintf("soak-%d-%d", seed, time.Now().UnixNano()%100_000)
	for _, suffix := range []string{"a", "b"} {
		s.namespaces = append(s.namespaces, run+"-"+suffix)
	}
	t.Cleanup(s.cleanUp)
	return s
}

// record adds an operation to the history a violation prints.
func (s *soak) record(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(format, args...)
}

func (s *soak) recordLocked(format string, args ...any) {
	line := time.Now().Format("15:04:05.000") + " " + fmt.Sprintf(format, args...)
	s.history = append(s.history, line)
	if len(s.history) > 200 {
		s.history = s.history[len(s.history)-200:]
	}
}

// fail reports a violation with how to replay it.
func (s *soak) fail(err error) {
	s.t.Helper()
	s.mu.Lock()
	history, faults := strings.Join(s.history, "\n  "), strings.Join(s.faultLog, "\n  ")
	s.mu.Unlock()
	s.t.Fatalf("soak seed %d (replay: make soak SEED=%d): %v\nthe faults of the run:\n  %s\nthe last operations:\n  %s", s.seed, s.seed, err, faults, history)
}

// run alternates periods of operations under faults with quiet periods, each ended by the
// check, until d has passed; then deletes its namespaces and checks that nothing is left.
func (s *soak) run(d time.Duration) {
	for _, ns := range s.namespaces {
		s.createNamespace(ns)
	}
	s.slowMember()
	s.pullMember()
	s.searchRegistry()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		busy := time.Now().Add(time.Duration(15+s.rng.Intn(20)) * time.Second)
		for time.Now().Before(busy) && time.Now().Before(end) {
			s.step()
			time.Sleep(time.Duration(s.rng.Intn(150)) * time.Millisecond)
		}
		s.quiet()
	}
	for _, ns := range s.namespaces {
		s.op(fmt.Sprintf("delete namespace %s", ns), s.fleet.Resource(namespacesGVR).Delete(s.ctx, ns, metav1.DeleteOptions{}))
	}
	s.quiet()
	s.t.Logf("seed %d: %d operations (%d refused or failed: %v), faults %v, %d checks, longest convergence %s",
		s.seed, s.stats.ops, s.stats.failed, s.stats.refused, s.stats.faults, s.stats.checks, s.stats.converge.Round(100*time.Millisecond))
	if os.Getenv("SOAK_HISTORY") != "" {
		s.t.Logf("the last operations:\n  %s", strings.Join(s.history, "\n  "))
	}
}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// op records an operation and its outcome. Errors are expected (a fault, a namespace
// being deleted, a name taken): what matters is what the check finds afterwards.
func (s *soak) op(what string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.ops++
	if err != nil {
		s.stats.failed++
		reason := string(apierrors.ReasonForError(err))
		if reason == "" {
			reason = "other"
		}
		s.stats.refused[reason]++
		// A user whose namespace is gone makes it again.
		if _, rest, ok := strings.Cut(err.Error(), `namespaces "`); ok && strings.Contains(rest, "not found") {
			s.recreate[strings.SplitN(rest, `"`, 2)[0]] = true
		}
		msg := err.Error()
		if len(msg) > 120 {
			msg = msg[:120] + "…"
		}
		s.recordLocked("%s: %s", what, msg)
		return
	}
	s.recordLocked("%s", what)
}

func (s *soak) pick(n int) int { return s.rng.Intn(n) }

// clusters is a random non-empty subset of the members, in order.
func (s *soak) clusters() []string {
	var out []string
	for len(out) == 0 {
		out = out[:0]
		for _, m := range labMembers {
			if s.rng.Intn(2) == 0 {
				out = append(out, m)
			}
		}
	}
	return out
}

// step runs one operation, chosen by weight.
func (s *soak) step() {
	ns := s.namespaces[s.pick(len(s.namespaces))]
	if s.recreate[ns] && s.pick(3) == 0 {
		delete(s.recreate, ns)
		s.createNamespace(ns)
		return
	}
	switch r := s.pick(100); {
	case r < 35:
		s.applyTemplate(ns)
	case r < 45:
		s.deleteTemplate(ns, false)
	case r < 50:
		s.deleteTemplate(ns, true)
	case r < 62:
		s.applyPolicy(ns, false)
	case r < 66:
		s.deletePolicy(ns, false)
	case r < 71:
		s.applyPolicy(ns, true)
	case r < 74:
		s.deletePolicy(ns, true)
	case r < 82:
		s.applyOverride(ns)
	case r < 86:
		s.deleteOverride(ns)
	case r < 87:
		s.applyCron(ns)
	case r < 88:
		s.deleteFed("CronFederatedHPA", "cronfederatedhpas", ns, fmt.Sprintf("cron-t%d", soakNames/2+s.pick(soakNames/2)))
	case r < 89:
		if s.pick(4) == 0 {
			s.op("delete namespace "+ns, s.fleet.Resource(namespacesGVR).Delete(s.ctx, ns, metav1.DeleteOptions{}))
			s.recreate[ns] = true
		}
	case r < 90:
		s.applyHPA(ns)
	case r < 91:
		s.deleteFed("FederatedHPA", "federatedhpas", ns, fmt.Sprintf("hpa-t%d", s.pick(soakNames/2)))
	case r < 92:
		s.applyMCS(ns)
	case r < 93:
		s.deleteFed("MultiClusterService", "multiclusterservices", ns, fmt.Sprintf("t%d", s.pick(soakNames)))
	case r < 98:
		s.applyTemplate(ns)
	default:
		s.fault()
	}
}

func (s *soak) createNamespace(ns string) {
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	_, err := s.fleet.Resource(namespacesGVR).Create(s.ctx, o, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return
	}
	s.op("create namespace "+ns, err)
}

// template is the template of kind k named name, version v, in group g.
func soakTemplate(k int, ns, name string, v, g int) *unstructured.Unstructured {
	labels := map[string]any{soakGroupLabel: fmt.Sprintf("g%d", g), "app": name}
	meta := map[string]any{"name": name, "namespace": ns, "labels": labels}
	switch soakKinds[k].kind {
	case "ConfigMap":
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
			"data": map[string]any{"v": strconv.Itoa(v)}}}
	case "Deployment":
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
			"spec": map[string]any{
				"replicas": int64(1 + v%4),
				"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": name}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": fmt.Sprintf("soak:%d", v),
						"resources": map[string]any{"requests": map[string]any{"cpu": "10m"}}}}},
				}}}}
	case "Widget":
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": soakWidgets.GroupVersion().String(), "kind": "Widget", "metadata": meta,
			"spec": map[string]any{"size": int64(v), "colour": []string{"red", "green", "blue"}[v%3]}}}
	default:
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": meta,
			"spec": map[string]any{"selector": map[string]any{"app": name},
				"ports": []any{map[string]any{"port": int64(8000 + v%100)}}}}}
	}
}

// applyTemplate creates or changes a template: a new version, maybe another group.
func (s *soak) applyTemplate(ns string) {
	k, name := s.pick(len(soakKinds)), fmt.Sprintf("t%d", s.pick(soakNames))
	o := soakTemplate(k, ns, name, s.pick(1000), s.pick(soakGroups))
	res := s.fleet.Resource(soakKinds[k].gvr).Namespace(ns)
	what := fmt.Sprintf("apply %s %s/%s %s", soakKinds[k].kind, ns, name, o.GetLabels()[soakGroupLabel])
	_, err := res.Apply(s.ctx, name, o, metav1.ApplyOptions{FieldManager: "soak", Force: true})
	s.op(what, err)
}

// deleteTemplate deletes a template, and with again makes it again at once, same name.
func (s *soak) deleteTemplate(ns string, again bool) {
	k, name := s.pick(len(soakKinds)), fmt.Sprintf("t%d", s.pick(soakNames))
	res := s.fleet.Resource(soakKinds[k].gvr).Namespace(ns)
	err := res.Delete(s.ctx, name, metav1.DeleteOptions{})
	if !again {
		s.op(fmt.Sprintf("delete %s %s/%s", soakKinds[k].kind, ns, name), err)
		return
	}
	o := soakTemplate(k, ns, name, s.pick(1000), s.pick(soakGroups))
	_, cerr := res.Apply(s.ctx, name, o, metav1.ApplyOptions{FieldManager: "soak", Force: true})
	s.op(fmt.Sprintf("delete and create %s %s/%s %s", soakKinds[k].kind, ns, name, o.GetLabels()[soakGroupLabel]), errors.Join(err, cerr))
}

// selectors select the group's templates of every kind the soak writes in ns.
func soakSelectors(g int, ns string) []federationv1alpha1.ResourceSelector {
	var out []federationv1alpha1.ResourceSelector
	for _, k := range soakKinds {
		out = append(out, federationv1alpha1.ResourceSelector{
			APIVersion:    k.gvr.GroupVersion().String(),
			Kind:          k.kind,
			Namespace:     ns,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{soakGroupLabel: fmt.Sprintf("g%d", g)}},
		})
	}
	return out
}

// clusterPolicyName is the name of the i-th ClusterPropagationPolicy of the soak's
// namespace ns (which selects templates of ns only, so runs and other tests keep apart).
func clusterPolicyName(ns string, i int) string { return fmt.Sprintf("%s-c%d", ns, i) }

// applyPolicy creates or changes a PropagationPolicy, or with cluster a
// ClusterPropagationPolicy: its group, clusters, priority, preemption and how it schedules
// replicas.
func (s *soak) applyPolicy(ns string, cluster bool) {
	g, clusters := s.pick(soakGroups), s.clusters()
	kind := federationv1alpha1.ReplicaSchedulingTypeDuplicated
	if s.pick(3) == 0 {
		kind = federationv1alpha1.ReplicaSchedulingTypeDivided
	}
	spec := federationv1alpha1.PropagationSpec{
		ResourceSelectors: soakSelectors(g, ""),
		Priority:          ptr.To(int32(s.pick(3))),
		Placement: federationv1alpha1.Placement{
			ClusterAffinity:   &federationv1alpha1.ClusterAffinity{ClusterNames: clusters},
			ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: kind},
		},
	}
	if kind == federationv1alpha1.ReplicaSchedulingTypeDivided {
		spec.Placement.ReplicaScheduling.ReplicaDivisionPreference = federationv1alpha1.ReplicaDivisionPreferenceAggregated
	}
	if s.pick(4) == 0 {
		spec.Preemption = federationv1alpha1.PreemptAlways
	}
	details := fmt.Sprintf("g%d %v %s priority %d %s", g, clusters, kind, *spec.Priority, spec.Preemption)
	if cluster {
		spec.ResourceSelectors = soakSelectors(g, ns)
		s.applyFed(details, "ClusterPropagationPolicy", "clusterpropagationpolicies", "", clusterPolicyName(ns, s.pick(soakClusterPolicies)), &spec)
		return
	}
	s.applyFed(details, "PropagationPolicy", "propagationpolicies", ns, fmt.Sprintf("p%d", s.pick(soakPolicies)), &spec)
}

func (s *soak) deletePolicy(ns string, cluster bool) {
	if cluster {
		s.deleteFed("ClusterPropagationPolicy", "clusterpropagationpolicies", "", clusterPolicyName(ns, s.pick(soakClusterPolicies)))
		return
	}
	s.deleteFed("PropagationPolicy", "propagationpolicies", ns, fmt.Sprintf("p%d", s.pick(soakPolicies)))
}

// applyFed applies a fed object of the namespace with spec, as `kubectl apply
// --server-side` would.
func (s *soak) applyFed(details, kind, resource, ns, name string, spec any) { // spec: a pointer to the kind's spec
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(spec)
	if err != nil {
		s.t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": federationv1alpha1.SchemeGroupVersion.String(), "kind": kind,
		"metadata": map[string]any{"name": name}, "spec": u,
	}}
	if ns != "" {
		obj.SetNamespace(ns)
	}
	_, err = s.fedResource(resource, ns).Apply(s.ctx, name, obj, metav1.ApplyOptions{FieldManager: "soak", Force: true})
	s.op(fmt.Sprintf("apply %s %s %s", kind, path.Join(ns, name), details), err)
}

func (s *soak) deleteFed(kind, resource, ns, name string) {
	err := s.fedResource(resource, ns).Delete(s.ctx, name, metav1.DeleteOptions{})
	s.op(fmt.Sprintf("delete %s %s", kind, path.Join(ns, name)), err)
}

// fedResource is a resource of fed's federation group, of namespace ns ("" for a
// cluster-scoped one).
func (s *soak) fedResource(resource, ns string) dynamic.ResourceInterface {
	r := s.fleet.Resource(federationv1alpha1.SchemeGroupVersion.WithResource(resource))
	if ns == "" {
		return r
	}
	return r.Namespace(ns)
}

// applyOverride creates or changes the OverridePolicy of a group (one per group, so that
// a template has one at most): a label with a new value, in some clusters.
func (s *soak) applyOverride(ns string) {
	g, clusters, v := s.pick(soakGroups), s.clusters(), fmt.Sprintf("v%d", s.pick(1000))
	name := fmt.Sprintf("o-g%d", g)
	spec := federationv1alpha1.OverrideSpec{
		ResourceSelectors: soakSelectors(g, ""),
		OverrideRules: []federationv1alpha1.RuleWithCluster{{
			TargetCluster: &federationv1alpha1.ClusterAffinity{ClusterNames: clusters},
			Overriders: federationv1alpha1.Overriders{LabelsOverrider: []federationv1alpha1.LabelAnnotationOverrider{{
				Operator: federationv1alpha1.OverriderOpAdd, Value: map[string]string{soakOverrideLabel: v},
			}}},
		}},
	}
	s.applyFed(fmt.Sprintf("%v %s", clusters, v), "OverridePolicy", "overridepolicies", ns, name, &spec)
}

// applyCron creates or changes the CronFederatedHPA of a Deployment template of the second
// half of the names (the first half's are the FederatedHPAs'): it scales the template to
// some replicas every minute (while the soak's own applies set them back).
func (s *soak) applyCron(ns string) {
	i, replicas := soakNames/2+s.pick(soakNames/2), int32(1+s.pick(4))
	spec := federationv1alpha1.CronFederatedHPASpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("t%d", i)},
		Rules:          []federationv1alpha1.CronFederatedHPARule{{Name: "scale", Schedule: "* * * * *", TargetReplicas: ptr.To(replicas)}},
	}
	s.applyFed(fmt.Sprintf("every minute to %d", replicas), "CronFederatedHPA", "cronfederatedhpas", ns, fmt.Sprintf("cron-t%d", i), &spec)
}

// applyHPA creates or changes the FederatedHPA of a Deployment template of the first half
// of the names: its minReplicas and maxReplicas are one count, to which it keeps the
// template whatever the metrics say (the soak's pods do not run), as the soak's own applies
// set the replicas to others.
func (s *soak) applyHPA(ns string) {
	i, replicas := s.pick(soakNames/2), int32(1+s.pick(4))
	spec := federationv1alpha1.FederatedHPASpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("t%d", i)},
		MinReplicas:    ptr.To(replicas),
		MaxReplicas:    replicas,
	}
	s.applyFed(fmt.Sprintf("to %d", replicas), "FederatedHPA", "federatedhpas", ns, fmt.Sprintf("hpa-t%d", i), &spec)
}

// applyMCS creates or changes the MultiClusterService of a Service template: imported
// from where the template is placed into some members, or every member.
func (s *soak) applyMCS(ns string) {
	name := fmt.Sprintf("t%d", s.pick(soakNames))
	spec := federationv1alpha1.MultiClusterServiceSpec{
		Types: []federationv1alpha1.ExposureType{federationv1alpha1.ExposureTypeCrossCluster},
		Ports: []federationv1alpha1.ExposurePort{{Name: "http", Port: 80}},
	}
	consumers := "every member"
	if s.pick(3) > 0 {
		clusters := s.clusters()
		for _, c := range clusters {
			spec.ConsumerClusters = append(spec.ConsumerClusters, federationv1alpha1.ClusterSelector{Name: c})
		}
		consumers = fmt.Sprint(clusters)
	}
	s.applyFed("into "+consumers, "MultiClusterService", "multiclusterservices", ns, name, &spec)
}

func (s *soak) deleteOverride(ns string) {
	s.deleteFed("OverridePolicy", "overridepolicies", ns, fmt.Sprintf("o-g%d", s.pick(soakGroups)))
}

// fault injects one fault that is not in force yet, undone a few seconds later whatever
// the operations are doing: fed-apiserver killed (kill -9), a member's kube-apiserver killed,
// the lab's etcd paused (SIGSTOP: the host's and members' storage hangs), a member tainted
// (NoSchedule, as kubectl fed cordon does, or NoExecute: its workloads are evicted), a member
// unjoined (kubectl fed unjoin) and joined again, the pull member's agent killed (kill -9),
// the member behind the soak's proxy slowed down.
func (s *soak) fault() {
	switch s.pick(7) {
	case 0:
		s.inject("kill fed-apiserver", time.Duration(1+s.pick(8))*time.Second,
			func() error { return theLab.KillProcess("fed-apiserver") },
			func() error { return theLab.StartProcess("fed-apiserver") })
	case 1:
		m := labMembers[s.pick(len(labMembers))] + "-apiserver"
		s.inject("kill "+m, time.Duration(5+s.pick(25))*time.Second,
			func() error { return theLab.KillProcess(m) },
			func() error { return theLab.StartProcess(m) })
	case 2:
		s.inject("pause etcd", time.Duration(1+s.pick(6))*time.Second,
			func() error { return theLab.PauseProcess("etcd") },
			func() error { return theLab.ResumeProcess("etcd") })
	case 3:
		m := labMembers[s.pick(len(labMembers))]
		taint := corev1.Taint{Key: "soak", Effect: corev1.TaintEffectNoSchedule}
		if s.pick(2) == 0 {
			taint.Effect = corev1.TaintEffectNoExecute
		}
		s.inject(fmt.Sprintf("taint %s %s", m, taint.ToString()), time.Duration(3+s.pick(20))*time.Second,
			func() error { return s.setTaint(m, taint, true) },
			func() error { return s.setTaint(m, taint, false) })
	case 4:
		// Not the member behind the proxy: join would point its Cluster at the member itself.
		// Nor the pull member, which its agent registered.
		m := labMembers[s.pick(len(labMembers))]
		if s.proxy != nil && m == s.proxy.member || m == s.pull {
			return
		}
		s.inject("unjoin "+m, time.Duration(5+s.pick(25))*time.Second,
			func() error { return s.unjoin(m) },
			func() error {
				ctx, cancel := context.WithTimeout(s.ctx, 3*time.Minute)
				defer cancel()
				return theLab.JoinMembers(ctx)
			})
	case 5:
		// Killed for longer than its Lease (12 s in the lab) at times: the Cluster is not
		// Ready, tainted, and its workloads fail over, until the agent renews it.
		if s.pull == "" {
			return
		}
		agent := lab.AgentProcess(s.pull)
		s.inject("kill "+agent, time.Duration(5+s.pick(40))*time.Second,
			func() error { return theLab.KillProcess(agent) },
			func() error {
				// Started with a token its member issues: again every second while the
				// member's kube-apiserver is killed too (for up to 30 s), as the kubelet
				// restarts a pod. (A wait.Backoff with a Cap ends its steps once the cap is
				// reached: it gave up after 10 s, and seed 4242 failed on an agent never
				// started again.)
				var last error
				err := wait.PollUntilContextTimeout(s.ctx, time.Second, 90*time.Second, true, func(ctx context.Context) (bool, error) {
					last = theLab.StartAgent(ctx, s.pull)
					return last == nil, nil
				})
				if err != nil && last != nil {
					return last
				}
				return err
			})
	default:
		if s.proxy == nil {
			return
		}
		delay := time.Duration(50+s.pick(400)) * time.Millisecond
		s.inject("slow "+s.proxy.member, time.Duration(5+s.pick(25))*time.Second,
			func() error {
				s.record("%s's latency: %s", s.proxy.member, delay)
				s.proxy.delay.Store(int64(delay))
				return nil
			},
			func() error { s.proxy.delay.Store(0); return nil })
	}
}

// unjoin runs kubectl fed unjoin for member m, which cleans up m as well.
func (s *soak) unjoin(m string) error {
	root, err := lab.RepoRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(s.ctx, filepath.Join(root, "bin", "kubectl-fed"), "--kubeconfig", theLab.Host.Kubeconfig,
		"unjoin", m, "--cluster-kubeconfig", memberKubeconfig(m))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

// setTaint adds a taint to a member's Cluster, or removes it, as kubectl fed taint does.
func (s *soak) setTaint(m string, taint corev1.Taint, add bool) error {
	return s.updateCluster(m, func(c *clusterv1alpha1.Cluster) {
		c.Spec.Taints = slices.DeleteFunc(c.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&taint) })
		if add {
			taint.TimeAdded = ptr.To(metav1.Now())
			c.Spec.Taints = append(c.Spec.Taints, taint)
		}
	})
}

// updateCluster changes a member's Cluster, again on a conflict or while fed-apiserver is
// away (for up to a minute): a fault's undo must not be lost to another fault.
func (s *soak) updateCluster(m string, change func(*clusterv1alpha1.Cluster)) error {
	clusters := s.fed.ClusterV1alpha1().Clusters()
	backoff := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 1.5, Steps: 30, Cap: 5 * time.Second}
	return retry.OnError(backoff, func(err error) bool { return !apierrors.IsNotFound(err) }, func() error {
		c, err := clusters.Get(s.ctx, m, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(c)
		_, err = clusters.Update(s.ctx, c, metav1.UpdateOptions{})
		return err
	})
}

// searchRegistry has the search cache hold every object of the soak's kinds in the run's
// namespaces, of every member, for the checker to compare with the members.
func (s *soak) searchRegistry() {
	rr := &searchv1alpha1.ResourceRegistry{ObjectMeta: metav1.ObjectMeta{Name: s.namespaces[0] + "-search"}}
	for _, ns := range s.namespaces {
		for _, k := range soakKinds {
			rr.Spec.ResourceSelectors = append(rr.Spec.ResourceSelectors, searchv1alpha1.ResourceSelector{
				APIVersion: k.gvr.GroupVersion().String(), Kind: k.kind, Namespace: ns})
		}
	}
	registries := s.fed.SearchV1alpha1().ResourceRegistries()
	if _, err := registries.Create(s.ctx, rr, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = registries.Delete(context.Background(), rr.Name, metav1.DeleteOptions{}) })
	host, _ := hostClients(s.t)
	s.search = host.CoreV1().RESTClient()
}

// checkSearch compares what the search cache holds of a kind in ns with what the members
// hold: the same objects, with the same labels, data and spec. (The cache serves
// resourceVersions of its own.)
func (s *soak) checkSearch(ns string, gvr schema.GroupVersionResource) error {
	if s.search == nil {
		return nil
	}
	p := path.Join("/apis", gvr.Group, gvr.Version, "namespaces", ns, gvr.Resource)
	if gvr.Group == "" {
		p = path.Join("/api", gvr.Version, "namespaces", ns, gvr.Resource)
	}
	_, list, err := searchList(s.ctx, s.search, p, nil)
	if err != nil {
		return fmt.Errorf("searching %s: %w", p, err)
	}
	var got, want []string
	for _, o := range list.Items {
		got = append(got, o.GetAnnotations()[searchv1alpha1.AnnotationCluster]+"/"+soakContent(&o))
	}
	for _, m := range labMembers {
		l, err := s.member[m].Resource(gvr).Namespace(ns).List(s.ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			continue // the member does not serve the kind (its CRD is not there)
		}
		if err != nil {
			return err
		}
		for _, o := range l.Items {
			want = append(want, m+"/"+soakContent(&o))
		}
	}
	if !sameSet(got, want) {
		return fmt.Errorf("the search cache has %s %v in %s, the members %v", gvr.Resource, sorted(got), ns, sorted(want))
	}
	return nil
}

// soakContent is an object's name and a digest of its labels, data and spec.
func soakContent(o *unstructured.Unstructured) string {
	b, err := json.Marshal([]any{o.GetLabels(), o.Object["data"], o.Object["spec"]})
	if err != nil {
		return o.GetName() + "@" + err.Error()
	}
	return fmt.Sprintf("%s@%x", o.GetName(), sha256.Sum256(b))[:len(o.GetName())+9]
}

// slowMember puts a proxy that adds latency (none until a fault sets it) in front of a
// member's kube-apiserver, by pointing its Cluster's apiEndpoint there: fed follows the
// change, as it does when a member's address moves. The endpoint is set back when the
// test ends.
func (s *soak) slowMember() {
	m := labMembers[s.pick(len(labMembers))]
	direct := theLab.Member(m).URL()
	p, err := startLatencyProxy(strings.TrimPrefix(direct, "https://"))
	if err != nil {
		s.t.Fatal(err)
	}
	p.member = m
	s.proxy = p
	s.t.Cleanup(func() {
		if err := s.updateCluster(m, func(c *clusterv1alpha1.Cluster) { c.Spec.APIEndpoint = direct }); err != nil {
			s.t.Errorf("setting %s's apiEndpoint back to %s: %v", m, direct, err)
		}
		p.close()
	})
	s.op(fmt.Sprintf("set %s's apiEndpoint to the proxy %s", m, p.url()),
		s.updateCluster(m, func(c *clusterv1alpha1.Cluster) { c.Spec.APIEndpoint = p.url() }))
}

// pullMember registers one member, not the one behind the proxy, in pull mode for the run,
// as a user does (registerPull), so that its agent, and its Lease, are among the faults.
// At the end of the run it is unregistered and joined again in push mode.
func (s *soak) pullMember() {
	var others []string
	for _, m := range labMembers {
		if s.proxy == nil || m != s.proxy.member {
			others = append(others, m)
		}
	}
	m := others[s.pick(len(others))]
	took := registerPull(s.t, buildKubectlFed(s.t), m)
	s.pull = m
	// Before the member is unregistered (cleanups run last first): fed-apiserver and the
	// member's kube-apiserver running again.
	s.t.Cleanup(s.undoFaults)
	s.op(fmt.Sprintf("register %s in pull mode (Ready in %s)", m, took.Round(100*time.Millisecond)), nil)
}

// latencyProxy forwards TCP connections on 127.0.0.1 to an address, each chunk delivered
// delay after it was read (latency, not a limit on throughput).
type latencyProxy struct {
	member string
	ln     net.Listener
	target string
	delay  atomic.Int64 // nanoseconds
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func startLatencyProxy(target string) (*latencyProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &latencyProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p, nil
}

func (p *latencyProxy) url() string { return "https://" + p.ln.Addr().String() }

func (p *latencyProxy) track(c net.Conn, open bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false // closed
	}
	if open {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
	return true
}

func (p *latencyProxy) serve(c net.Conn) {
	t, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	if !p.track(c, true) || !p.track(t, true) {
		_ = c.Close()
		_ = t.Close()
		return
	}
	done := func() {
		_ = c.Close()
		_ = t.Close()
		p.track(c, false)
		p.track(t, false)
	}
	go p.pipe(c, t, done)
	go p.pipe(t, c, done)
}

// pipe copies src to dst, each chunk after the delay in force when it was read.
func (p *latencyProxy) pipe(src, dst net.Conn, done func()) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	chunks := make(chan chunk, 1024)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{time.Now().Add(time.Duration(p.delay.Load())), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	defer done()
	for ch := range chunks {
		time.Sleep(time.Until(ch.at))
		if _, err := dst.Write(ch.data); err != nil {
			return
		}
	}
}

func (p *latencyProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// fault is one fault in force and how it is undone.
type fault struct {
	timer *time.Timer
	undo  func() error
}

// inject does a fault unless it is in force, and undoes it after d.
func (s *soak) inject(name string, d time.Duration, do, undo func() error) {
	s.mu.Lock()
	if _, ok := s.faults[name]; ok {
		s.mu.Unlock()
		return
	}
	f := &fault{undo: undo}
	s.faults[name] = f
	s.stats.faults[strings.Fields(name)[0]]++
	s.mu.Unlock()
	err := do()
	s.op(fmt.Sprintf("%s for %s", name, d), err)
	s.logFault("%s for %s: %v", name, d, err)
	f.timer = time.AfterFunc(d, func() { s.undo(name) })
}

// undo ends a fault now, if it is still in force.
func (s *soak) undo(name string) {
	s.mu.Lock()
	f, ok := s.faults[name]
	delete(s.faults, name)
	s.mu.Unlock()
	if !ok {
		return
	}
	if f.timer != nil {
		f.timer.Stop()
	}
	err := f.undo()
	s.op("undo "+name, err)
	s.logFault("undo %s: %v", name, err)
}

// logFault adds to the faults of the run.
func (s *soak) logFault(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultLog = append(s.faultLog, time.Now().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
}

// undoFaults ends every fault, and waits until every process of the lab is ready again.
func (s *soak) undoFaults() {
	s.mu.Lock()
	var names []string
	for name := range s.faults {
		names = append(names, name)
	}
	s.mu.Unlock()
	// The processes first: the other undos go through them; the pull member's agent after
	// the kube-apiservers, as it starts with a token its member issues.
	pass := func(n string) int {
		switch {
		case strings.HasSuffix(n, "-fed-agent"):
			return 1
		case strings.HasPrefix(n, "kill ") || strings.HasPrefix(n, "pause "):
			return 0
		}
		return 2
	}
	for i := range 3 {
		for _, name := range names {
			if pass(name) == i {
				s.undo(name)
			}
		}
	}
	ctx, cancel := context.WithTimeout(s.ctx, 3*time.Minute)
	defer cancel()
	if err := theLab.Up(ctx); err != nil {
		s.fail(fmt.Errorf("starting the lab again: %w", err))
	}
}

// cleanUp leaves the lab as it found it: no fault in force, every process running and
// member joined, the namespaces gone.
func (s *soak) cleanUp() {
	s.undoFaults()
	if s.t.Failed() && os.Getenv("SOAK_KEEP") != "" {
		s.t.Logf("SOAK_KEEP: the namespaces %v, their ClusterPropagationPolicies and the CRD %s are kept", s.namespaces, soakWidgets.GroupResource())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, ns := range s.namespaces {
		_ = s.fleet.Resource(namespacesGVR).Delete(ctx, ns, metav1.DeleteOptions{})
		for i := range soakClusterPolicies {
			_ = s.fedResource("clusterpropagationpolicies", "").Delete(ctx, clusterPolicyName(ns, i), metav1.DeleteOptions{})
		}
	}
}

// quiet undoes every fault, waits until every member is Ready again, then until the check
// passes (at most four minutes), and records how long that took.
func (s *soak) quiet() {
	s.undoFaults()
	start := time.Now()
	s.record("quiet: checking")
	var err error
	for deadline := start.Add(4 * time.Minute); ; {
		if err = s.check(); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	s.stats.checks++
	if err != nil {
		s.fail(err)
	}
	took := time.Since(start)
	s.record("quiet: converged in %s (%d templates, %d member objects)", took.Round(100*time.Millisecond), s.checked.templates, s.checked.objects)
	s.stats.converge = max(s.stats.converge, took)
	s.checkGoroutines()
}

// checkGoroutines compares fed-apiserver's goroutines and heap with theirs after the
// first convergence: a leak grows with every period.
func (s *soak) checkGoroutines() {
	var n int
	waitFor(s.t, 30*time.Second, func() error {
		metrics, err := fedMetrics(s.ctx)
		if err != nil {
			return err
		}
		v, ok := sumMetrics(metrics, "go_goroutines")["go_goroutines"]
		if !ok {
			return errors.New("no go_goroutines in fed-apiserver's metrics")
		}
		n = int(v)
		return nil
	})
	metrics, err := fedMetrics(s.ctx)
	if err != nil {
		s.fail(err)
	}
	heap := int64(sumMetrics(metrics, "go_memstats_heap_inuse_bytes")["go_memstats_heap_inuse_bytes"])
	s.record("quiet: fed-apiserver has %d goroutines, %d MiB of heap in use", n, heap>>20)
	if s.goroutines == 0 {
		s.goroutines, s.heap = n, heap
		return
	}
	// Caches grow with what the lab holds; a leak grows with every period, far past this.
	if limit := 2*s.heap + 256<<20; heap > limit {
		s.fail(fmt.Errorf("fed-apiserver has %d MiB of heap in use, %d MiB after the first quiet period", heap>>20, s.heap>>20))
	}
	// Members' watches and workers come and go; a leak is per operation, and grows far past this.
	if limit := s.goroutines*3/2 + 300; n > limit {
		s.fail(fmt.Errorf("fed-apiserver has %d goroutines, %d after the first quiet period", n, s.goroutines))
	}
}

// check is the invariant checker: what must hold once fed has converged.
func (s *soak) check() error {
	clusters, err := s.fed.ClusterV1alpha1().Clusters().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, c := range clusters.Items {
		if slices.Contains(labMembers, c.Name) && !meta.IsStatusConditionTrue(c.Status.Conditions, "Ready") {
			return fmt.Errorf("cluster %s is not Ready", c.Name)
		}
	}
	works, err := s.works()
	if err != nil {
		return err
	}
	cpps, err := s.fed.FederationV1alpha1().ClusterPropagationPolicies().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	s.checked.templates, s.checked.objects = 0, 0
	var errs []error
	for _, ns := range s.namespaces {
		var policies []soakPolicy
		for _, p := range cpps.Items {
			if strings.HasPrefix(p.Name, ns+"-c") && p.DeletionTimestamp == nil {
				policies = append(policies, soakPolicy{name: p.Name, cluster: true, spec: p.Spec})
			}
		}
		errs = append(errs, s.checkNamespace(ns, works, policies)...)
		if len(errs) > 20 {
			break
		}
	}
	return errors.Join(errs...)
}

// soakMCSWorks prefixes the MultiClusterService ("namespace/name") of a Work of one in
// works.
const soakMCSWorks = "MultiClusterService "

// works are the Works of every member by the binding they name ("namespace/name"), or the
// MultiClusterService (soakMCSWorks), whose Works import it: the members that have one.
func (s *soak) works() (map[string][]string, error) {
	out := map[string][]string{}
	for _, m := range labMembers {
		l, err := s.fed.FederationV1alpha1().Works(federationv1alpha1.ExecutionNamespace(m)).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, w := range l.Items {
			if b := w.Annotations[federationv1alpha1.AnnotationBinding]; b != "" {
				out[b] = append(out[b], m)
				if !meta.IsStatusConditionTrue(w.Status.Conditions, federationv1alpha1.WorkConditionApplied) {
					out[b] = append(out[b], m+"(not applied)")
				}
			}
			if mcs := w.Annotations[federationv1alpha1.AnnotationMultiClusterService]; mcs != "" {
				out[soakMCSWorks+mcs] = append(out[soakMCSWorks+mcs], m)
			}
		}
	}
	return out, nil
}

// checkNamespace checks one namespace of the run: gone (nothing of it left anywhere), or
// every template where its policy, overrides and schedule say, and nothing else.
func (s *soak) checkNamespace(ns string, works map[string][]string, policies []soakPolicy) []error {
	var errs []error
	nsObj, err := s.fleet.Resource(namespacesGVR).Get(s.ctx, ns, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return []error{err}
	}
	gone := apierrors.IsNotFound(err)
	if !gone && nsObj.GetDeletionTimestamp() != nil {
		return []error{fmt.Errorf("namespace %s is still being deleted", ns)}
	}
	for b := range works {
		if strings.HasPrefix(strings.TrimPrefix(b, soakMCSWorks), ns+"/") && gone {
			errs = append(errs, fmt.Errorf("Work of %s left after its namespace was deleted (in %v)", b, works[b]))
		}
	}
	var overrides []federationv1alpha1.OverridePolicy
	bindings := map[string]federationv1alpha1.ResourceBinding{}
	scaled := map[string]int64{} // Deployment templates by name: the replicas of their FederatedHPA (applyHPA)
	// imported are the derived Services each member must have, of the MultiClusterServices
	// (applyMCS): by member, its consumers.
	imported := map[string][]string{}
	if !gone {
		pl, err := s.fed.FederationV1alpha1().PropagationPolicies(ns).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			return []error{err}
		}
		for _, p := range pl.Items {
			if p.DeletionTimestamp == nil {
				policies = append(policies, soakPolicy{name: p.Name, spec: p.Spec})
			}
		}
		ol, err := s.fed.FederationV1alpha1().OverridePolicies(ns).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			return []error{err}
		}
		overrides = ol.Items
		bl, err := s.fed.FederationV1alpha1().ResourceBindings(ns).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			return []error{err}
		}
		for _, b := range bl.Items {
			bindings[b.Name] = b
		}
		hl, err := s.fed.FederationV1alpha1().FederatedHPAs(ns).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			return []error{err}
		}
		for _, h := range hl.Items {
			if h.DeletionTimestamp == nil && h.Spec.ScaleTargetRef.Kind == "Deployment" {
				scaled[h.Spec.ScaleTargetRef.Name] = int64(h.Spec.MaxReplicas)
			}
		}
		ml, err := s.fed.FederationV1alpha1().MultiClusterServices(ns).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			return []error{err}
		}
		for _, mcs := range ml.Items {
			if mcs.DeletionTimestamp != nil {
				continue
			}
			consumers := slices.Clone(labMembers)
			if len(mcs.Spec.ConsumerClusters) > 0 {
				consumers = nil
				for _, c := range mcs.Spec.ConsumerClusters {
					consumers = append(consumers, c.Name)
				}
			}
			if !slices.Equal(mcs.Status.ConsumerClusters, consumers) {
				errs = append(errs, fmt.Errorf("MultiClusterService %s/%s says it is imported into %v, want %v", ns, mcs.Name, mcs.Status.ConsumerClusters, consumers))
			}
			for _, m := range consumers {
				imported[m] = append(imported[m], federationv1alpha1.DerivedServiceName(mcs.Name))
			}
		}
	}
	seen := map[string]bool{} // bindings of a template
	for _, k := range soakKinds {
		templates := map[string]*unstructured.Unstructured{}
		if !gone {
			l, err := s.fleet.Resource(k.gvr).Namespace(ns).List(s.ctx, metav1.ListOptions{LabelSelector: soakGroupLabel})
			if err != nil {
				return []error{err}
			}
			for i := range l.Items {
				templates[l.Items[i].GetName()] = &l.Items[i]
			}
		}
		// Where each template should be, with the label an override gives it there.
		want := map[string]map[string]*unstructured.Unstructured{} // member, name
		for _, m := range labMembers {
			want[m] = map[string]*unstructured.Unstructured{}
		}
		for name, tmpl := range templates {
			bname := federationv1alpha1.BindingName(k.kind, name)
			b, ok := bindings[bname]
			s.checked.templates++
			if want, ok := scaled[name]; ok && k.kind == "Deployment" {
				if got, _, _ := unstructured.NestedInt64(tmpl.Object, "spec", "replicas"); got != want {
					errs = append(errs, fmt.Errorf("Deployment %s/%s has %d replicas; its FederatedHPA keeps it at %d", ns, name, got, want))
					continue
				}
			}
			placed, err := s.checkBinding(tmpl, k.kind, policies, b, ok, works[ns+"/"+bname])
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok {
				seen[bname] = true
			}
			if err := soakStatus(tmpl, placed, b.Spec.Placement.ReplicasDivided()); err != nil {
				errs = append(errs, err)
				continue
			}
			for m, replicas := range placed {
				want[m][name] = nil // kept while evicted: any copy of fed's
				if replicas != soakEvicted {
					want[m][name] = soakExpected(tmpl, replicas, overrides, m)
				}
			}
		}
		if k.kind == "Service" {
			for _, m := range labMembers {
				for _, name := range imported[m] {
					if _, err := s.member[m].Resource(k.gvr).Namespace(ns).Get(s.ctx, name, metav1.GetOptions{}); err != nil {
						errs = append(errs, fmt.Errorf("%s: the derived Service %s/%s of a MultiClusterService: %w", m, ns, name, err))
					}
					want[m][name] = nil // fed's, not of a template
				}
			}
		}
		for _, m := range labMembers {
			errs = append(errs, s.checkMember(m, ns, k.gvr, want[m])...)
		}
		if err := s.checkSearch(ns, k.gvr); err != nil {
			errs = append(errs, err)
		}
	}
	for name, b := range bindings {
		if !seen[name] && b.DeletionTimestamp == nil {
			errs = append(errs, fmt.Errorf("binding %s/%s of %s %s, which is gone or not its template", ns, name, b.Spec.Resource.Kind, b.Spec.Resource.Name))
		}
	}
	return errs
}

// soakStatus checks what a placed Deployment's template says of its copies, as kubectl
// rollout status reads it through the fleet: its generation observed, and its replicas up
// to date — the sum of the members' when divided among them, else the template's (what
// each member runs, and the least of the members' figures).
func soakStatus(tmpl *unstructured.Unstructured, placed map[string]int64, divided bool) error {
	if tmpl.GetKind() != "Deployment" || len(placed) == 0 || slices.Contains(slices.Collect(maps.Values(placed)), soakEvicted) {
		return nil // not a workload, nowhere, or moving off an evicted member
	}
	want, _, _ := unstructured.NestedInt64(tmpl.Object, "spec", "replicas")
	if divided {
		want = 0
		for _, r := range placed {
			want += r
		}
	}
	observed, _, _ := unstructured.NestedInt64(tmpl.Object, "status", "observedGeneration")
	replicas, _, _ := unstructured.NestedInt64(tmpl.Object, "status", "replicas")
	updated, _, _ := unstructured.NestedInt64(tmpl.Object, "status", "updatedReplicas")
	if observed != tmpl.GetGeneration() || replicas != want || updated != want {
		return fmt.Errorf("Deployment %s/%s: its status says generation %d observed, %d replicas, %d updated; want generation %d, %d and %d (%v)",
			tmpl.GetNamespace(), tmpl.GetName(), observed, replicas, updated, tmpl.GetGeneration(), want, want, placed)
	}
	return nil
}

// soakEvicted marks, among the members that should hold a template, one that keeps its
// copy, as it was, while a graceful eviction from it lasts.
const soakEvicted = -1

// soakPolicy is a PropagationPolicy or ClusterPropagationPolicy, as the checker sees it.
type soakPolicy struct {
	name    string
	cluster bool
	spec    federationv1alpha1.PropagationSpec
}

func (p soakPolicy) String() string {
	if p.cluster {
		return "ClusterPropagationPolicy " + p.name
	}
	return "PropagationPolicy " + p.name
}

func (p soakPolicy) priority() int32 { return ptr.Deref(p.spec.Priority, 0) }

// preempts says whether p, which selects a template, must have taken it from claimer: p
// may preempt (preemption Always), and it is a PropagationPolicy where claimer is a
// ClusterPropagationPolicy, or of the same scope with a higher priority.
func (p soakPolicy) preempts(claimer soakPolicy) bool {
	if p.spec.Preemption != federationv1alpha1.PreemptAlways || p.String() == claimer.String() {
		return false
	}
	if p.cluster != claimer.cluster {
		return !p.cluster
	}
	return p.priority() > claimer.priority()
}

// checkBinding checks a template's binding against its policies and Works, and returns
// the members that should hold the template, with their replicas.
func (s *soak) checkBinding(tmpl *unstructured.Unstructured, kind string, policies []soakPolicy, b federationv1alpha1.ResourceBinding, exists bool, workMembers []string) (map[string]int64, error) {
	key := fmt.Sprintf("%s %s/%s", kind, tmpl.GetNamespace(), tmpl.GetName())
	var matching []soakPolicy
	for _, p := range policies {
		if soakSelects(p.spec.ResourceSelectors, kind, tmpl.GetNamespace(), tmpl.GetLabels()) {
			matching = append(matching, p)
		}
	}
	if !exists {
		if len(matching) > 0 {
			return nil, fmt.Errorf("%s is selected by %v and has no binding", key, matching)
		}
		if len(workMembers) > 0 {
			return nil, fmt.Errorf("%s has Works in %v and no binding", key, workMembers)
		}
		return nil, nil
	}
	if b.Spec.Resource.UID != tmpl.GetUID() {
		return nil, fmt.Errorf("%s: its binding is of template UID %s, the template's is %s", key, b.Spec.Resource.UID, tmpl.GetUID())
	}
	claimed := soakPolicy{name: b.Labels[federationv1alpha1.LabelPolicyName]}
	if name := b.Labels[federationv1alpha1.LabelClusterPolicy]; name != "" {
		claimed = soakPolicy{name: name, cluster: true}
	}
	i := slices.IndexFunc(matching, func(p soakPolicy) bool { return p.String() == claimed.String() })
	switch {
	case len(matching) > 0 && i < 0:
		return nil, fmt.Errorf("%s is selected by %v, its binding is of %v", key, matching, claimed)
	case len(matching) == 0 && claimed.name != "":
		return nil, fmt.Errorf("%s is selected by no policy, its binding is still of %v", key, claimed)
	}
	var p soakPolicy
	if i >= 0 {
		p = matching[i]
		for _, other := range matching {
			if other.preempts(p) {
				return nil, fmt.Errorf("%s: %v (preemption Always, priority %d) selects it and must have taken it from %v (priority %d)", key, other, other.priority(), p, p.priority())
			}
		}
	}
	// A Duplicated workload runs the template's replicas in each cluster; a Divided one
	// the binding's share.
	replicas, hasReplicas, _ := unstructured.NestedInt64(tmpl.Object, "spec", "replicas")
	divided := b.Spec.Placement != nil && b.Spec.Placement.ReplicaScheduling != nil &&
		b.Spec.Placement.ReplicaScheduling.ReplicaSchedulingType == federationv1alpha1.ReplicaSchedulingTypeDivided
	placed := map[string]int64{}
	var names []string
	var sum int64
	for _, c := range b.Spec.Clusters {
		placed[c.Name] = replicas
		if divided {
			placed[c.Name] = int64(c.Replicas)
		}
		names = append(names, c.Name)
		sum += int64(c.Replicas)
	}
	// A cluster a NoExecute taint evicted the template from keeps its copy, as it was,
	// until the copies elsewhere are healthy or the grace period is over (a kind of unknown
	// health waits for the whole period, as in Karmada); meanwhile the placement leaves it
	// out.
	var evicting []string
	for _, task := range b.Spec.GracefulEvictionTasks {
		evicting = append(evicting, task.FromCluster)
	}
	if claimed.name != "" {
		target := slices.DeleteFunc(slices.Clone(p.spec.Placement.ClusterAffinity.ClusterNames), func(c string) bool { return slices.Contains(evicting, c) })
		scheduled := meta.IsStatusConditionTrue(b.Status.Conditions, federationv1alpha1.BindingConditionScheduled)
		switch {
		case len(target) == 0 && scheduled:
			// Its policy's clusters are all being evicted from (as in Karmada, a cluster
			// of a graceful eviction task is no candidate until the task ends).
			return nil, fmt.Errorf("%s: %v places it in %v, all being evicted from, yet its binding is Scheduled in %v", key, claimed, p.spec.Placement.ClusterAffinity.ClusterNames, names)
		case len(target) == 0:
		case !scheduled:
			return nil, fmt.Errorf("%s: its binding is not Scheduled: %v", key, b.Status.Conditions)
		case divided && hasReplicas:
			if sum != replicas || slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(target, n) }) {
				return nil, fmt.Errorf("%s: %v divides %d replicas over %v, the binding has %v", key, claimed, replicas, target, b.Spec.Clusters)
			}
		default:
			if !sameSet(names, target) {
				return nil, fmt.Errorf("%s: %v places it in %v, the binding in %v", key, claimed, target, names)
			}
		}
	}
	var works []string
	for _, m := range workMembers {
		if strings.HasSuffix(m, "(not applied)") {
			return nil, fmt.Errorf("%s: the Work in %s is not applied", key, strings.TrimSuffix(m, "(not applied)"))
		}
		works = append(works, m)
	}
	kept := slices.DeleteFunc(slices.Clone(works), func(m string) bool { return slices.Contains(names, m) || !slices.Contains(evicting, m) })
	if !sameSet(works, append(slices.Clone(names), kept...)) {
		return nil, fmt.Errorf("%s: placed in %v (evicted from %v), Works in %v", key, names, evicting, works)
	}
	for _, m := range kept {
		placed[m] = soakEvicted
	}
	if len(names) > 0 && !meta.IsStatusConditionTrue(b.Status.Conditions, federationv1alpha1.BindingConditionFullyApplied) {
		return nil, fmt.Errorf("%s: its binding is not FullyApplied: %v", key, b.Status.Conditions)
	}
	return placed, nil
}

// soakSelects tells whether selectors select a template of kind in ns with labels.
func soakSelects(selectors []federationv1alpha1.ResourceSelector, kind, ns string, labels map[string]string) bool {
	return slices.ContainsFunc(selectors, func(sel federationv1alpha1.ResourceSelector) bool {
		if sel.Kind != kind || sel.LabelSelector == nil || sel.Namespace != "" && sel.Namespace != ns {
			return false
		}
		for k, v := range sel.LabelSelector.MatchLabels {
			if labels[k] != v {
				return false
			}
		}
		return true
	})
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// soakExpected is what member m should hold of a template: its content, its replicas
// there (workloads), and the override label when the group's override targets m.
func soakExpected(tmpl *unstructured.Unstructured, replicas int64, overrides []federationv1alpha1.OverridePolicy, m string) *unstructured.Unstructured {
	want := tmpl.DeepCopy()
	if _, ok, _ := unstructured.NestedInt64(want.Object, "spec", "replicas"); ok {
		_ = unstructured.SetNestedField(want.Object, replicas, "spec", "replicas")
	}
	labels := want.GetLabels()
	for _, o := range overrides {
		if o.DeletionTimestamp != nil || !soakSelects(o.Spec.ResourceSelectors, tmpl.GetKind(), tmpl.GetNamespace(), tmpl.GetLabels()) {
			continue
		}
		for _, r := range o.Spec.OverrideRules {
			if r.TargetCluster == nil || slices.Contains(r.TargetCluster.ClusterNames, m) {
				for _, l := range r.Overriders.LabelsOverrider {
					for k, v := range l.Value {
						labels[k] = v
					}
				}
			}
		}
	}
	want.SetLabels(labels)
	return want
}

// checkMember compares what member m holds of fed's in ns of one kind with want.
func (s *soak) checkMember(m, ns string, gvr schema.GroupVersionResource, want map[string]*unstructured.Unstructured) []error {
	l, err := s.member[m].Resource(gvr).Namespace(ns).List(s.ctx, metav1.ListOptions{LabelSelector: federationv1alpha1.LabelManaged + "=true"})
	if err != nil {
		return []error{fmt.Errorf("listing %s in %s: %w", gvr.Resource, m, err)}
	}
	var errs []error
	have := map[string]bool{}
	for _, o := range l.Items {
		have[o.GetName()] = true
		s.checked.objects++
		w, ok := want[o.GetName()]
		if !ok {
			errs = append(errs, fmt.Errorf("%s has %s %s/%s of fed's that no binding places there", m, gvr.Resource, ns, o.GetName()))
			continue
		}
		if w == nil {
			continue
		}
		if got := o.GetAnnotations()[federationv1alpha1.AnnotationTemplateUID]; got != string(w.GetUID()) {
			errs = append(errs, fmt.Errorf("%s: %s %s/%s is of template %s, the template is %s", m, gvr.Resource, ns, o.GetName(), got, w.GetUID()))
		}
		for k, v := range w.GetLabels() {
			if o.GetLabels()[k] != v {
				errs = append(errs, fmt.Errorf("%s: %s %s/%s has label %s=%q, want %q", m, gvr.Resource, ns, o.GetName(), k, o.GetLabels()[k], v))
			}
		}
		if _, overridden := w.GetLabels()[soakOverrideLabel]; !overridden && o.GetLabels()[soakOverrideLabel] != "" {
			errs = append(errs, fmt.Errorf("%s: %s %s/%s keeps label %s=%s that no override gives it there", m, gvr.Resource, ns, o.GetName(), soakOverrideLabel, o.GetLabels()[soakOverrideLabel]))
		}
		for _, path := range [][]string{{"data"}, {"spec", "replicas"}, {"spec", "template", "spec", "containers"}, {"spec", "ports"}, {"spec", "size"}, {"spec", "colour"}} {
			wv, _, _ := unstructured.NestedFieldNoCopy(w.Object, path...)
			if wv == nil {
				continue
			}
			gv, _, _ := unstructured.NestedFieldNoCopy(o.Object, path...)
			if !soakContains(gv, wv) {
				errs = append(errs, fmt.Errorf("%s: %s %s/%s has %s %v, want %v", m, gvr.Resource, ns, o.GetName(), strings.Join(path, "."), gv, wv))
			}
		}
	}
	for name, w := range want {
		if !have[name] && w != nil {
			errs = append(errs, fmt.Errorf("%s has no %s %s/%s, which its binding places there", m, gvr.Resource, ns, name))
		}
	}
	return errs
}

// soakContains tells whether got has every field of want with the same value (a member
// adds defaults: a Service port's protocol, a container's pull policy).
func soakContains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !soakContains(g[k], v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !soakContains(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return fmt.Sprint(got) == fmt.Sprint(want)
	}
}

// testSoakChecker shows that the checker is not satisfied by anything: a ConfigMap marked
// as fed's in member1, where its namespace has a template, which no binding places there,
// is a violation until it goes.
func testSoakChecker(t *testing.T) {
	s := newSoak(t, 0)
	s.namespaces = s.namespaces[:1]
	ns := s.namespaces[0]
	s.createNamespace(ns)
	tmpl := soakTemplate(0, ns, "t0", 1, 0)
	if _, err := s.fleet.Resource(soakKinds[0].gvr).Namespace(ns).Apply(s.ctx, "t0", tmpl, metav1.ApplyOptions{FieldManager: "soak"}); err != nil {
		t.Fatal(err)
	}
	policy := &federationv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p0"}, Spec: federationv1alpha1.PropagationSpec{
		ResourceSelectors: soakSelectors(0, ""),
		Placement: federationv1alpha1.Placement{ClusterAffinity: &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}},
			ReplicaScheduling: &federationv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: federationv1alpha1.ReplicaSchedulingTypeDuplicated}},
	}}
	if _, err := s.fed.FederationV1alpha1().PropagationPolicies(ns).Create(s.ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, s.check)
	if s.checked.templates != 1 || s.checked.objects != 1 {
		t.Fatalf("the check compared %d templates and %d member objects, want 1 and 1", s.checked.templates, s.checked.objects)
	}
	orphan := soakTemplate(0, ns, "orphan", 1, 0)
	orphan.SetLabels(map[string]string{federationv1alpha1.LabelManaged: "true"})
	members := s.member["member1"].Resource(soakKinds[0].gvr).Namespace(ns)
	if _, err := members.Create(s.ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	holds(t, 3*time.Second, func() error {
		if err := s.check(); err == nil || !strings.Contains(err.Error(), "member1 has configmaps "+ns+"/orphan of fed's that no binding places there") {
			return fmt.Errorf("the check with an orphan in member1: %v", err)
		}
		return nil
	})
	if err := members.Delete(s.ctx, "orphan", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, s.check)
}
