package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientsetscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/test/lab"
)

// TestLeaderElectionEtcd3 runs two fed-apiservers on the lab's etcd, as two replicas of a
// Deployment would: both serve the API, the one that holds the Lease runs the controllers
// (it probes a Cluster both see). Killed without a chance to release the Lease, the other
// takes it over once it expires, and propagation goes on through it: a Deployment applied
// to the fleet then reaches member1.
func TestLeaderElectionEtcd3(t *testing.T) {
	ctx := context.Background()
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000_000)
	lease := "fed-e2e-" + suffix
	const leaseDuration = 6 * time.Second
	start := func(name string) *lab.FedServer {
		startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		f, stop, err := theLab.StartFedServer(startCtx, name, "--storage-backend=etcd3", "--etcd-servers="+theLab.EtcdURL(),
			"--etcd-prefix=/fed-e2e-ha-"+suffix, "--data-dir="+filepath.Join(t.TempDir(), "data"),
			"--leader-elect-resource-name="+lease, "--leader-elect-lease-duration="+leaseDuration.String(),
			"--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		return f
	}
	a, b := start("fed-ha-a"), start("fed-ha-b")
	host, _ := hostClients(t)
	t.Cleanup(func() {
		_ = host.CoordinationV1().Leases(clusterv1alpha1.FedNamespace).Delete(context.Background(), lease, metav1.DeleteOptions{})
	})
	clients := map[*lab.FedServer]*rest.Config{}
	for _, f := range []*lab.FedServer{a, b} {
		cfg, err := theLab.FedRESTConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		clients[f] = cfg
	}
	// leading reads leader_election_master_status off a replica's /metrics.
	leading := func(f *lab.FedServer) (bool, error) {
		raw, err := serverMetrics(ctx, clients[f])
		if err != nil {
			return false, err
		}
		return strings.Contains(raw, `leader_election_master_status{name="`+lease+`"} 1`), nil
	}
	leader := func() (*lab.FedServer, error) {
		var holders []*lab.FedServer
		for _, f := range []*lab.FedServer{a, b} {
			ok, err := leading(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			if ok {
				holders = append(holders, f)
			}
		}
		if len(holders) != 1 {
			return nil, fmt.Errorf("%d replicas run the controllers, want 1", len(holders))
		}
		return holders[0], nil
	}
	var first *lab.FedServer
	waitFor(t, 30*time.Second, func() (err error) { first, err = leader(); return err })
	l, err := host.CoordinationV1().Leases(clusterv1alpha1.FedNamespace).Get(ctx, lease, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		t.Fatalf("the Lease %s: %+v, %v", lease, l, err)
	}
	t.Logf("%s runs the controllers, Lease held by %s", first.Name, *l.Spec.HolderIdentity)

	// Both serve the API, and the leader's detector binds a template written through one
	// replica, read through the other. (No member yet: a second fed managing the lab's
	// members from its start would take their namespaces for its own.)
	fleetOf := func(f *lab.FedServer) string {
		kc, err := clientcmd.LoadFromFile(theLab.Host.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range kc.Clusters {
			c.Server = f.URL() + federationv1alpha1.FleetPath
		}
		path := filepath.Join(t.TempDir(), f.Name+".kubeconfig")
		if err := clientcmd.WriteToFile(*kc, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ns := "e2e-ha-" + suffix
	kubectl(t, fleetOf(a), "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(memberKubeconfig("member1"), "delete", "namespace", ns, "--wait=false") })
	apply := func(f *lab.FedServer, name string) {
		kubectlStdin(t, fleetOf(f), fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: 1
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
      - {name: app, image: nginx}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: %[1]s
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: %[1]s}
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, name), "apply", "-n", ns, "-f", "-")
	}
	apply(a, "before")
	apply(a, "gone")
	for _, name := range []string{"before", "gone"} {
		waitFor(t, 30*time.Second, func() error {
			rb, err := versioned.NewForConfigOrDie(clients[b]).FederationV1alpha1().ResourceBindings(ns).Get(ctx, name+"-deployment", metav1.GetOptions{})
			if err == nil && meta.FindStatusCondition(rb.Status.Conditions, federationv1alpha1.BindingConditionScheduled) == nil {
				err = fmt.Errorf("binding %s not looked at by the scheduler yet", rb.Name)
			}
			return err
		})
	}

	if err := first.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	other := a
	if first == a {
		other = b
	}
	// A template deleted while no replica runs the controllers: no informer of the new
	// leader ever lists it, so only the binding it finds tells that it is gone.
	kubectl(t, fleetOf(other), "delete", "deploy", "gone", "-n", ns)
	waitFor(t, leaseDuration+20*time.Second, func() error {
		ok, err := leading(other)
		if err != nil || !ok {
			return fmt.Errorf("%s does not run the controllers yet (%v)", other.Name, err)
		}
		return nil
	})
	t.Logf("%s took over %s after %s was killed (Lease duration %s)", other.Name, time.Since(killed).Round(100*time.Millisecond), first.Name, leaseDuration)
	expectOutput(t, 30*time.Second, fleetOf(other), "", "get", "rb", "gone-deployment", "-n", ns, "--ignore-not-found", "-o", "name")

	// Propagation goes on through the remaining replica: it probes a member and places a
	// Deployment there.
	_, labFed := hostClients(t)
	member1, err := labFed.ClusterV1alpha1().Clusters().Get(ctx, "member1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fedOther := versioned.NewForConfigOrDie(clients[other])
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"}, Spec: *member1.Spec.DeepCopy()}
	cluster.Spec.Taints = nil
	if _, err := fedOther.ClusterV1alpha1().Clusters().Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = fedOther.ClusterV1alpha1().Clusters().Delete(context.Background(), "member1", metav1.DeleteOptions{})
	})
	waitFor(t, 30*time.Second, func() error {
		c, err := fedOther.ClusterV1alpha1().Clusters().Get(ctx, "member1", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			return fmt.Errorf("member1 in the etcd3 fleet is not Ready yet: %+v", c.Status.Conditions)
		}
		return nil
	})
	apply(other, "ha")
	expectOutput(t, time.Minute, memberKubeconfig("member1"), "1 true", "get", "deploy", "ha", "-n", ns, "--ignore-not-found",
		"-o", `jsonpath={.spec.replicas} {.metadata.labels.federation\.fedhq\.io/managed}`)
	kubectl(t, fleetOf(other), "delete", "deploy", "ha", "before", "-n", ns)
	expectOutput(t, time.Minute, memberKubeconfig("member1"), "", "get", "deploy", "ha", "before", "-n", ns, "--ignore-not-found", "-o", "name")
}

// withCodecs makes a client configuration usable for an unversioned REST client.
func withCodecs(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.NegotiatedSerializer = clientsetscheme.Codecs.WithoutConversion()
	return c
}
