package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// fedKind is what the suite knows of one fed resource.
type fedKind struct {
	resource   string
	shortName  string
	namespaced bool
	// statusPatch is a merge patch for the status subresource; empty when there is none.
	statusPatch string
	// statusCheck is a JSONPath into the object and the value statusPatch sets.
	statusPath, statusValue string
	columns                 []string
	// topLevel is the field that holds what the kind says, for a kind without a spec.
	topLevel string
}

var fedKinds = map[string]fedKind{
	"Cluster": {resource: "clusters", statusPatch: `{"status":{"kubernetesVersion":"v1.32.4"}}`,
		statusPath: "{.status.kubernetesVersion}", statusValue: "v1.32.4", columns: []string{"NAME", "VERSION", "MODE", "READY", "AGE"}},
	"PropagationPolicy": {resource: "propagationpolicies", shortName: "pp", namespaced: true,
		columns: []string{"NAME", "CONFLICT-RESOLUTION", "PRIORITY", "AGE"}},
	"ClusterPropagationPolicy": {resource: "clusterpropagationpolicies", shortName: "cpp",
		columns: []string{"NAME", "CONFLICT-RESOLUTION", "PRIORITY", "AGE"}},
	"OverridePolicy":        {resource: "overridepolicies", shortName: "op", namespaced: true, columns: []string{"NAME", "AGE"}},
	"ClusterOverridePolicy": {resource: "clusteroverridepolicies", shortName: "cop", columns: []string{"NAME", "AGE"}},
	"ResourceInterpreterCustomization": {resource: "resourceinterpretercustomizations", shortName: "ric",
		columns: []string{"NAME", "API-VERSION", "KIND", "AGE"}},
	"ReplicaSchedulingPolicy": {resource: "replicaschedulingpolicies", shortName: "rsp",
		statusPatch: `{"status":{"conditions":[{"type":"E2E","status":"True","reason":"Patched","message":"patched","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		statusPath:  `{.status.conditions[?(@.type=="E2E")].reason}`, statusValue: "Patched",
		columns: []string{"NAME", "ENABLED", "INTERVAL", "CPU", "MEMORY", "LAST-REBALANCE", "AGE"}},
	// A condition of a type of its own, which the quota controller's status writes keep.
	"FederatedResourceQuota": {resource: "federatedresourcequotas", shortName: "frq", namespaced: true,
		statusPatch: `{"status":{"conditions":[{"type":"E2E","status":"True","reason":"Patched","message":"patched","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		statusPath:  `{.status.conditions[?(@.type=="E2E")].reason}`, statusValue: "Patched",
		columns: []string{"NAME", "REQUEST", "AGE"}},
	"ClusterTaintPolicy": {resource: "clustertaintpolicies", shortName: "ctp", columns: []string{"NAME", "TAINTS", "AGE"}},
	"Remedy":             {resource: "remedies", columns: []string{"NAME", "CLUSTERS", "ACTIONS", "AGE"}},
	"ResourceInterpreterWebhookConfiguration": {resource: "resourceinterpreterwebhookconfigurations", columns: []string{"NAME", "WEBHOOKS", "AGE"},
		topLevel: "webhooks"},
	// The controller's result says observedGeneration 1 too.
	"WorkloadRebalancer": {resource: "workloadrebalancers", statusPatch: `{"status":{"observedGeneration":1}}`,
		statusPath: "{.status.observedGeneration}", statusValue: "1", columns: []string{"NAME", "WORKLOADS", "RESULTS", "AGE"}},
	"ResourceBinding": {resource: "resourcebindings", shortName: "rb", namespaced: true,
		statusPatch: `{"status":{"schedulerObservedGeneration":1}}`, statusPath: "{.status.schedulerObservedGeneration}", statusValue: "1",
		columns: []string{"NAME", "SCHEDULED", "FULLYAPPLIED", "AGE"}},
	"ClusterResourceBinding": {resource: "clusterresourcebindings", shortName: "crb",
		statusPatch: `{"status":{"schedulerObservedGeneration":1}}`, statusPath: "{.status.schedulerObservedGeneration}", statusValue: "1",
		columns: []string{"NAME", "SCHEDULED", "FULLYAPPLIED", "AGE"}},
	"Work": {resource: "works", namespaced: true,
		statusPatch: `{"status":{"conditions":[{"type":"Applied","status":"True","reason":"AppliedSuccessful","message":"applied","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		statusPath:  "{.status.conditions[0].type}", statusValue: "Applied",
		columns: []string{"NAME", "WORKLOAD-KIND", "APPLIED", "AGE"}},
	"FederatedHPA": {resource: "federatedhpas", shortName: "fhpa", namespaced: true,
		statusPatch: `{"status":{"currentReplicas":3,"desiredReplicas":3}}`, statusPath: "{.status.currentReplicas}", statusValue: "3",
		columns: []string{"NAME", "REFERENCE-KIND", "REFERENCE-NAME", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"}},
	"CronFederatedHPA": {resource: "cronfederatedhpas", shortName: "cronfhpa", namespaced: true,
		statusPatch: `{"status":{"executionHistories":[{"ruleName":"scale-up"}]}}`, statusPath: "{.status.executionHistories[0].ruleName}", statusValue: "scale-up",
		columns: []string{"NAME", "REFERENCE-KIND", "REFERENCE-NAME", "RULES", "LAST-SCHEDULE", "AGE"}},
	// A condition of a type of their own, which a controller's own status writes keep.
	"MultiClusterService": {resource: "multiclusterservices", shortName: "mcs", namespaced: true,
		statusPatch: `{"status":{"conditions":[{"type":"E2E","status":"True","reason":"Patched","message":"patched","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		statusPath:  `{.status.conditions[?(@.type=="E2E")].reason}`, statusValue: "Patched",
		columns: []string{"NAME", "TYPES", "PROVIDERS", "CONSUMERS", "READY", "AGE"}},
	"MultiClusterIngress": {resource: "multiclusteringresses", shortName: "mci", namespaced: true,
		statusPatch: `{"status":{"conditions":[{"type":"E2E","status":"True","reason":"Patched","message":"patched","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		statusPath:  `{.status.conditions[?(@.type=="E2E")].reason}`, statusValue: "Patched",
		columns: []string{"NAME", "HOSTS", "CLUSTERS", "AGE"}},
	"ResourceRegistry": {resource: "resourceregistries", shortName: "rr",
		statusPatch: `{"status":{"caches":[{"cluster":"member1","apiVersion":"apps/v1","kind":"Deployment","synced":true,"objects":3}]}}`,
		statusPath:  "{.status.caches[0].objects}", statusValue: "3",
		columns: []string{"NAME", "KINDS", "CLUSTERS", "SYNCED", "OBJECTS", "AGE"}},
}

// fedTarget is a fed-apiserver as the suite reaches it: through the host's aggregation
// layer, or directly.
type fedTarget struct {
	kubeconfig string
	config     *rest.Config
}

func hostTarget(t *testing.T) fedTarget {
	cfg, err := theLab.Host.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	return fedTarget{kubeconfig: theLab.Host.Kubeconfig, config: cfg}
}

// fixtures reads testdata/fed-kinds.yaml, one object per kind.
func fixtures(t *testing.T) []*unstructured.Unstructured {
	data, err := os.ReadFile(filepath.Join("testdata", "fed-kinds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(string(data), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatal(err)
		}
		if _, ok := fedKinds[obj.GetKind()]; !ok {
			t.Fatalf("fixture of unknown kind %q", obj.GetKind())
		}
		objs = append(objs, obj)
	}
	if len(objs) != len(fedKinds) {
		t.Fatalf("%d fixtures for %d kinds", len(objs), len(fedKinds))
	}
	return objs
}

// testNamespace creates a namespace for one test in the fleet of the fed-apiserver that
// kubeconfig reaches (fed's namespaced kinds live in the fleet's namespaces) and deletes it
// afterwards.
func testNamespace(t testing.TB, kubeconfig string) string {
	t.Helper()
	ns := fmt.Sprintf("e2e-%d", time.Now().UnixNano()%1_000_000_000)
	fleet := fleetKubeconfig(t, kubeconfig)
	kubectl(t, fleet, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "namespace", ns, "--wait=false") })
	return ns
}

// fleetKubeconfig is kubeconfig with the fleet's path appended to its servers.
func fleetKubeconfig(t testing.TB, kubeconfig string) string {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = strings.TrimSuffix(c.Server, "/") + federationv1alpha1.FleetPath
	}
	path := filepath.Join(t.TempDir(), "fleet.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFedAPIThroughHost runs every verb on every fed kind through the host cluster.
func TestFedAPIThroughHost(t *testing.T) {
	runFedAPISuite(t, hostTarget(t))
}

// TestFedAPIEtcd3 runs the same suite on a fed-apiserver storing in the lab's etcd.
func TestFedAPIEtcd3(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := fmt.Sprintf("/fed-e2e-%d", time.Now().UnixNano())
	f, stop, err := theLab.StartFedServer(ctx, "fed-apiserver-etcd3",
		"--storage-backend=etcd3", "--etcd-servers="+theLab.EtcdURL(), "--etcd-prefix="+prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg, err := theLab.FedRESTConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(theLab.Host.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = f.URL()
	}
	path := filepath.Join(t.TempDir(), "fed.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	target := fedTarget{kubeconfig: path, config: cfg}
	runFedAPISuite(t, target)
	t.Run("StorageMediaTypes", func(t *testing.T) { checkStorageMediaTypes(t, target, prefix) })
}

// checkStorageMediaTypes reads what fed-apiserver wrote to etcd under prefix: fed's own kinds
// in protobuf (--storage-media-type's default, as kube-apiserver stores its kinds), the
// fleet's templates (here a namespace) in JSON, since they are unstructured.
func checkStorageMediaTypes(t *testing.T, target fedTarget, prefix string) {
	ns := testNamespace(t, target.kubeconfig)
	dyn, err := dynamic.NewForConfig(target.config)
	if err != nil {
		t.Fatal(err)
	}
	pp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": federationv1alpha1.SchemeGroupVersion.String(), "kind": "PropagationPolicy",
		"metadata": map[string]any{"name": "stored"},
		"spec":     map[string]any{"resourceSelectors": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment"}}},
	}}
	gvr := federationv1alpha1.SchemeGroupVersion.WithResource("propagationpolicies")
	ctx := context.Background()
	if _, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, pp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dyn.Resource(gvr).Namespace(ns).Delete(ctx, "stored", metav1.DeleteOptions{}) }()

	cli, err := theLab.EtcdClient()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for key, want := range map[string]string{
		prefix + "/" + federationv1alpha1.GroupName + "/propagationpolicies/" + ns + "/stored": "k8s\x00",
		prefix + "/fleet/namespaces/" + ns: "{",
	} {
		resp, err := cli.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) != 1 {
			keys, _ := cli.Get(ctx, prefix+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
			var names []string
			for _, kv := range keys.Kvs {
				names = append(names, string(kv.Key))
			}
			t.Fatalf("etcd has no key %s; under %s it has %v", key, prefix, names)
		}
		if v := resp.Kvs[0].Value; !strings.HasPrefix(string(v), want) {
			t.Errorf("%s is stored as %q, want it to begin with %q", key, v[:min(len(v), 40)], want)
		}
	}
}

func runFedAPISuite(t *testing.T, target fedTarget) {
	ns := testNamespace(t, target.kubeconfig)
	suffix := ns[len("e2e-"):]
	dyn, err := dynamic.NewForConfig(target.config)
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range fixtures(t) {
		kind := fedKinds[obj.GetKind()]
		t.Run(obj.GetKind(), func(t *testing.T) {
			if kind.namespaced {
				obj.SetNamespace(ns)
			} else {
				obj.SetName(obj.GetName() + "-" + suffix)
			}
			gvr := schema.FromAPIVersionAndKind(obj.GetAPIVersion(), obj.GetKind()).GroupVersion().WithResource(kind.resource)
			var client dynamic.ResourceInterface = dyn.Resource(gvr)
			nsArgs := []string{}
			if kind.namespaced {
				client = dyn.Resource(gvr).Namespace(ns)
				nsArgs = []string{"-n", ns}
			}
			kc := func(args ...string) string { return kubectl(t, target.kubeconfig, append(args, nsArgs...)...) }
			ref := kind.resource + "/" + obj.GetName()
			manifest, err := yaml.Marshal(obj.Object)
			if err != nil {
				t.Fatal(err)
			}
			kubectlStdin(t, target.kubeconfig, string(manifest), "create", "-f", "-")

			// get, and the table columns kubectl prints.
			created, err := client.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if created.GetGeneration() != 1 || created.GetUID() == "" {
				t.Errorf("created object has generation %d uid %q", created.GetGeneration(), created.GetUID())
			}
			header := strings.Fields(strings.SplitN(kc("get", ref), "\n", 2)[0])
			if strings.Join(header, " ") != strings.Join(kind.columns, " ") {
				t.Errorf("kubectl get columns = %v, want %v", header, kind.columns)
			}
			if kind.shortName != "" {
				if out := kc("get", kind.shortName, "-o", "name"); !strings.Contains(out, obj.GetName()) {
					t.Errorf("kubectl get %s does not list %s: %q", kind.shortName, obj.GetName(), out)
				}
			}
			if out := kc("get", "fed", "-o", "name"); !strings.Contains(out, obj.GetName()) {
				t.Errorf("kubectl get fed (category) does not list %s: %q", obj.GetName(), out)
			}

			// watch from the created version sees each following change.
			w, err := client.Watch(context.Background(), metav1.ListOptions{
				ResourceVersion: created.GetResourceVersion(), FieldSelector: "metadata.name=" + obj.GetName()})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()

			kc("patch", ref, "--type", "merge", "-p", `{"metadata":{"labels":{"merge":"done"}}}`)
			kc("patch", ref, "--type", "json", "-p", `[{"op":"add","path":"/metadata/annotations","value":{"json":"done"}}]`)
			kc("patch", ref, "--type", "strategic", "-p", `{"metadata":{"labels":{"strategic":"done"}}}`)
			obj.SetLabels(map[string]string{"applied": "done"})
			applied, _ := yaml.Marshal(obj.Object)
			kubectlStdin(t, target.kubeconfig, string(applied), "apply", "--server-side", "--field-manager", "e2e", "-f", "-")
			kubectlEnv(t, target.kubeconfig, []string{`KUBE_EDITOR=sed -i -e s/strategic:\ done/edited:\ done/`}, append([]string{"edit", ref}, nsArgs...)...)

			seen := fmt.Sprint(created.GetLabels(), created.GetAnnotations())
			for _, want := range []string{"merge", "json", "strategic", "applied", "edited"} {
				var got *unstructured.Unstructured
				// A controller's status writes (a ResourceRegistry's) come in between: the
				// change is the next event whose metadata changed.
				for got == nil || fmt.Sprint(got.GetLabels(), got.GetAnnotations()) == seen {
					ev := nextEvent(t, w)
					if ev.Type != watch.Modified {
						t.Fatalf("watch event %s after the %s change, want MODIFIED", ev.Type, want)
					}
					got = ev.Object.(*unstructured.Unstructured)
				}
				seen = fmt.Sprint(got.GetLabels(), got.GetAnnotations())
				if got.GetLabels()[want] != "done" && got.GetAnnotations()[want] != "done" {
					t.Errorf("after the %s change the watch shows labels %v annotations %v", want, got.GetLabels(), got.GetAnnotations())
				}
			}
			final, err := client.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if final.GetLabels()["strategic"] != "" || final.GetLabels()["edited"] != "done" {
				t.Errorf("labels after edit = %v", final.GetLabels())
			}
			if !hasManager(final, "e2e", metav1.ManagedFieldsOperationApply) {
				t.Errorf("no server-side apply entry of manager e2e in %v", final.GetManagedFields())
			}
			if final.GetGeneration() != 1 {
				t.Errorf("generation %d after metadata-only changes, want 1", final.GetGeneration())
			}

			if kind.statusPatch != "" {
				kc("patch", ref, "--subresource=status", "--type", "merge", "-p", kind.statusPatch)
				if got := kc("get", ref, "-o", "jsonpath="+kind.statusPath); got != kind.statusValue {
					t.Errorf("status after the status patch: %s = %q, want %q", kind.statusPath, got, kind.statusValue)
				}
				// A main-resource update cannot change status.
				kc("patch", ref, "--type", "merge", "-p", `{"status":null}`)
				if got := kc("get", ref, "-o", "jsonpath="+kind.statusPath); got != kind.statusValue {
					t.Errorf("a main-resource patch changed status: %s = %q", kind.statusPath, got)
				}
			}

			kc("delete", ref)
			if _, err := runKubectl(target.kubeconfig, append([]string{"get", ref}, nsArgs...)...); err == nil || !strings.Contains(err.Error(), "NotFound") {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
		})
	}
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
	}
	return watch.Event{}
}

func hasManager(obj *unstructured.Unstructured, manager string, op metav1.ManagedFieldsOperationType) bool {
	for _, m := range obj.GetManagedFields() {
		if m.Manager == manager && m.Operation == op {
			return true
		}
	}
	return false
}
