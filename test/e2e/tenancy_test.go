package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// tenant is a ServiceAccount of a host namespace with the rights the README gives a team:
// admin in its namespace, fed's policy kinds there, and the fleet's gate (fed:fleet-edit).
type tenant struct {
	ns, name string
	// user is its user name; host and fleet its kubeconfigs.
	user, host, fleet string
}

// newTenant makes a host namespace and its fleet namespace of the same name, a ServiceAccount
// there with those rights, and its kubeconfigs (a token from the TokenRequest API).
func newTenant(t *testing.T, prefix string) *tenant {
	t.Helper()
	ctx := context.Background()
	host := theLab.Host.Kubeconfig
	ns := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
	tn := &tenant{ns: ns, name: "team", user: "system:serviceaccount:" + ns + ":team"}
	kubectl(t, host, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, theLab.FleetKubeconfig(), "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(theLab.FleetKubeconfig(), "delete", "namespace", ns, "--wait=false") })
	kubectl(t, host, "-n", ns, "create", "serviceaccount", tn.name)
	kubectl(t, host, "-n", ns, "create", "rolebinding", "team-admin", "--clusterrole=admin", "--serviceaccount="+ns+":team")
	kubectl(t, host, "-n", ns, "create", "role", "fed-policies", "--verb=*",
		"--resource=propagationpolicies.federation.fedhq.io,overridepolicies.federation.fedhq.io")
	kubectl(t, host, "-n", ns, "create", "rolebinding", "team-fed-policies", "--role=fed-policies", "--serviceaccount="+ns+":team")
	crb := "e2e-fleet-" + ns
	kubectl(t, host, "create", "clusterrolebinding", crb, "--clusterrole=fed:fleet-edit", "--serviceaccount="+ns+":team")
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "clusterrolebinding", crb, "--ignore-not-found") })

	cfg, err := theLab.Host.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	expiry := int64(time.Hour / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, tn.name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(host)
	if err != nil {
		t.Fatal(err)
	}
	kc.AuthInfos = map[string]*clientcmdapi.AuthInfo{"team": {Token: tr.Status.Token}}
	for _, c := range kc.Contexts {
		c.AuthInfo = "team"
	}
	tn.host = filepath.Join(t.TempDir(), "team.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, tn.host); err != nil {
		t.Fatal(err)
	}
	tn.fleet = fleetKubeconfig(t, tn.host)
	// The host's RBAC takes a moment to see new bindings.
	waitFor(t, 15*time.Second, func() error {
		_, err := runKubectl(tn.fleet, "-n", ns, "get", "configmaps,propagationpolicies,overridepolicies")
		return err
	})
	return tn
}

// apply applies YAML as the tenant in the fleet.
func (tn *tenant) apply(yaml string) (string, error) {
	return runKubectlWith(tn.fleet, yaml, nil, "apply", "-f", "-")
}

// expectRefused checks that a refusal happened and says why.
func expectRefused(t *testing.T, what string, out string, err error, why ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted (%s), want it refused", what, strings.TrimSpace(out))
		return
	}
	for _, w := range why {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: refused with %q, want a message with %q", what, err, w)
		}
	}
}

// TestTenancyOverrides: an OverridePolicy may not turn a tenant's template into another
// object (a ClusterRoleBinding, an object of kube-system), and what it makes of a template
// is checked with the host as its author: a namespace admin's override that binds
// cluster-admin never reaches a member.
func TestTenancyOverrides(t *testing.T) {
	t.Parallel()
	tn := newTenant(t, "sec-a")
	fleet := theLab.FleetKubeconfig()
	m1 := theLab.Member("member1").Kubeconfig

	out, err := tn.apply(fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: to-crb, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: cm}]
  overrideRules:
  - overriders:
      plaintext:
      - {path: /apiVersion, operator: replace, value: rbac.authorization.k8s.io/v1}
      - {path: /kind, operator: replace, value: ClusterRoleBinding}
      - {path: /metadata/namespace, operator: remove}
      - {path: /metadata/name, operator: replace, value: %[1]s-admin}
      - {path: /data, operator: remove}
      - {path: /roleRef, operator: add, value: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}}
      - {path: /subjects, operator: add, value: [{kind: ServiceAccount, name: team, namespace: %[1]s}]}
`, tn.ns))
	expectRefused(t, "an override turning a ConfigMap into a ClusterRoleBinding", out, err,
		"spec.overrideRules[0].overriders.plaintext[0].path: Forbidden: an override may not change /apiVersion",
		"plaintext[1].path: Forbidden: an override may not change /kind",
		"plaintext[2].path: Forbidden: an override may not change /metadata/namespace",
		"plaintext[3].path: Forbidden: an override may not change /metadata/name")
	out, err = tn.apply(fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: to-kube-system, namespace: %s}
spec:
  overrideRules:
  - overriders:
      plaintext: [{path: /metadata/namespace, operator: replace, value: kube-system}]
      fieldOverrider: [{fieldPath: /metadata/name, yaml: [{subPath: /x, operator: remove}]}]
`, tn.ns))
	expectRefused(t, "an override moving a template into kube-system", out, err,
		"an override may not change /metadata/namespace", "fieldOverrider[0].fieldPath: Forbidden")

	// A RoleBinding the namespace admin may make (view), and an override binding
	// cluster-admin instead, which the admin may not bind in the host.
	if out, err := tn.apply(fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: team, namespace: %[1]s}]
---
apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: escalate, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, name: readers}]
  overrideRules:
  - overriders:
      plaintext: [{path: /roleRef/name, operator: replace, value: cluster-admin}]
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: readers, namespace: %[1]s}
spec:
  resourceSelectors: [{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, name: readers}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, tn.ns)); err != nil {
		t.Fatalf("the tenant's RoleBinding, override and policy: %v\n%s", err, out)
	}
	if a := kubectl(t, fleet, "-n", tn.ns, "get", "overridepolicy", "escalate", "-o", `jsonpath={.metadata.annotations.federation\.fedhq\.io/author}`); !strings.Contains(a, tn.user) {
		t.Errorf("the override's author is %q, want %s", a, tn.user)
	}
	waitFor(t, 30*time.Second, func() error {
		ev := kubectl(t, fleet, "-n", tn.ns, "get", "events", "--field-selector", "involvedObject.name=readers,reason=OverrideFailed", "-o", "jsonpath={.items[*].message}")
		if !strings.Contains(ev, "OverridePolicy/"+tn.ns+"/escalate") || !strings.Contains(ev, "attempting to grant RBAC permissions not currently held") {
			return fmt.Errorf("events of the template: %q, want OverrideFailed naming the policy and the host's refusal", ev)
		}
		return nil
	})
	holds(t, 3*time.Second, func() error {
		if out, err := runKubectl(m1, "-n", tn.ns, "get", "rolebinding", "readers", "-o", "jsonpath={.roleRef.name}"); err == nil && out == "cluster-admin" {
			return fmt.Errorf("member1 binds cluster-admin for the tenant")
		}
		return nil
	})
	if out, _ := runKubectl(m1, "auth", "can-i", "create", "secrets", "-n", "kube-system", "--as", tn.user); strings.TrimSpace(out) != "no" {
		t.Errorf("in member1 the tenant may create secrets in kube-system: %q", out)
	}

	// Without the override, the binding the tenant may make reaches member1.
	kubectl(t, tn.fleet, "-n", tn.ns, "delete", "overridepolicy", "escalate")
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(m1, "-n", tn.ns, "get", "rolebinding", "readers", "-o", "jsonpath={.roleRef.name}")
		if err != nil || out != "view" {
			return fmt.Errorf("member1's readers binds %q (%v), want view", out, err)
		}
		return nil
	})
}

// TestTenancyEscalation: the fleet refuses what the host refuses its author: a namespace
// admin binding cluster-admin, or writing a Role on everything, in the tenant's namespace.
func TestTenancyEscalation(t *testing.T) {
	t.Parallel()
	tn := newTenant(t, "sec-b")
	out, err := tn.apply(fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: root, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: team, namespace: %[1]s}]
`, tn.ns))
	expectRefused(t, "a namespace admin binding cluster-admin through the fleet", out, err,
		"forbidden", "attempting to grant RBAC permissions not currently held")
	out, err = tn.apply(fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: everything, namespace: %s}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
`, tn.ns))
	expectRefused(t, "a namespace admin writing a Role on everything through the fleet", out, err,
		"forbidden", "attempting to grant RBAC permissions not currently held")
	for _, name := range []string{"root", "everything"} {
		_, err := runKubectl(theLab.FleetKubeconfig(), "-n", tn.ns, "get", "rolebinding,role", name)
		if err == nil || !strings.Contains(err.Error(), "NotFound") {
			t.Errorf("%s in the fleet after its refusal: %v", name, err)
		}
	}
	// What the admin may do in the host, they may do through the fleet.
	if out, err := tn.apply(fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: editors, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: ServiceAccount, name: team, namespace: %[1]s}]
`, tn.ns)); err != nil {
		t.Errorf("a namespace admin binding edit through the fleet: %v\n%s", err, out)
	}
	// A kind the tenant may not create in the host at all.
	_, err = runKubectlWith(tn.fleet, fmt.Sprintf(`apiVersion: v1
kind: ResourceQuota
metadata: {name: more, namespace: %s}
spec: {hard: {pods: "1000"}}
`, tn.ns), nil, "create", "-f", "-")
	if err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("a namespace admin creating a ResourceQuota: %v, want Forbidden as in the host", err)
	}
}

// TestTenancyLimits: the host's ResourceQuota of a namespace limits the fleet's objects of
// the namespace (templates and fed's own kinds), counted in the fleet, not in the host; an
// object over the storage limit (1.5 MiB, as etcd's) is refused and nothing stored.
func TestTenancyLimits(t *testing.T) {
	t.Parallel()
	tn := newTenant(t, "sec-q")
	host := theLab.Host.Kubeconfig
	kubectlStdin(t, host, fmt.Sprintf(`apiVersion: v1
kind: ResourceQuota
metadata: {name: small, namespace: %s}
spec:
  hard: {count/configmaps: "2", count/propagationpolicies.federation.fedhq.io: "1"}
`, tn.ns), "apply", "-f", "-")
	// The host's own kube-root-ca.crt does not count: the fleet counts its own.
	var out string
	var err error
	waitFor(t, 15*time.Second, func() error {
		for _, name := range []string{"one", "two"} {
			if _, err := runKubectl(tn.fleet, "-n", tn.ns, "create", "configmap", name); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
				return err
			}
		}
		out, err = runKubectl(tn.fleet, "-n", tn.ns, "create", "configmap", "three")
		if err == nil {
			kubectl(t, tn.fleet, "-n", tn.ns, "delete", "configmap", "three")
			return fmt.Errorf("a third ConfigMap was accepted (fed had not read the quota yet?)")
		}
		return nil
	})
	expectRefused(t, "a third ConfigMap under count/configmaps=2", out, err,
		"exceeded quota: small, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2")
	policy := func(name string) string {
		return fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: %s, namespace: %s}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: one}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
`, name, tn.ns)
	}
	if out, err := tn.apply(policy("first")); err != nil {
		t.Fatalf("the first policy: %v\n%s", err, out)
	}
	out, err = tn.apply(policy("second"))
	expectRefused(t, "a second PropagationPolicy under its quota of 1", out, err, "exceeded quota: small", "propagationpolicies.federation.fedhq.io")
	// Deleting makes room again.
	kubectl(t, tn.fleet, "-n", tn.ns, "delete", "configmap", "two")
	kubectl(t, tn.fleet, "-n", tn.ns, "create", "configmap", "three")

	// 2.9 MiB of override: under the request limit (3 MiB), over the storage limit.
	// (kubectl create: apply would double it in its last-applied annotation.)
	big := strings.Repeat("x", 2900*1024)
	out, err = runKubectlWith(tn.fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata: {name: huge, namespace: %s}
spec:
  overrideRules:
  - overriders:
      plaintext: [{path: /data/fill, operator: add, value: %q}]
`, tn.ns, big), nil, "create", "-f", "-")
	expectRefused(t, "a 2.9 MiB OverridePolicy", out, err, "RequestEntityTooLarge", "over the storage limit of 1572864 bytes")
	if _, err := runKubectl(theLab.FleetKubeconfig(), "-n", tn.ns, "get", "overridepolicy", "huge"); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the refused OverridePolicy: %v, want NotFound", err)
	}
}

// TestTenancyMatrix: what two tenants of the fleet may and may not reach through fed, each
// refusal with the host's reason. Tenant a has admin in its namespace, fed's policy kinds
// there, the fleet's gate and search's view role; b the same in its own.
func TestTenancyMatrix(t *testing.T) {
	a, b := newTenant(t, "mx-a"), newTenant(t, "mx-b")
	host := theLab.Host.Kubeconfig
	for _, tn := range []*tenant{a, b} {
		crb := "e2e-search-" + tn.ns
		kubectl(t, host, "create", "clusterrolebinding", crb, "--clusterrole=fed:search-view", "--serviceaccount="+tn.ns+":team")
		t.Cleanup(func() { _, _ = runKubectl(host, "delete", "clusterrolebinding", crb, "--ignore-not-found") })
	}
	registry := "e2e-" + a.ns
	kubectlStdin(t, host, `{"apiVersion":"search.fedhq.io/v1alpha1","kind":"ResourceRegistry","metadata":{"name":"`+registry+`"},
"spec":{"targetCluster":{"clusterNames":["member1"]},"resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap"}]}}`, "create", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(host, "delete", "resourceregistry", registry, "--ignore-not-found") })
	waitFor(t, 30*time.Second, func() error {
		_, err := runKubectl(a.host, "get", "--raw", "/apis/search.fedhq.io/v1alpha1/search/cache/api/v1/namespaces/"+a.ns+"/configmaps")
		return err
	})
	nobodyHost, err := theLab.Host.UserKubeconfig("nobody-" + a.ns)
	if err != nil {
		t.Fatal(err)
	}
	nobody := fleetKubeconfig(t, nobodyHost)
	kubectl(t, theLab.FleetKubeconfig(), "-n", b.ns, "create", "configmap", "b-settings", "--from-literal=k=secret-of-b")

	pp := func(ns string) string {
		return fmt.Sprintf(`{"apiVersion":"federation.fedhq.io/v1alpha1","kind":"PropagationPolicy","metadata":{"name":"p","namespace":%q},
"spec":{"resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap"}],"placement":{"clusterAffinity":{"clusterNames":["member1"]}}}}`, ns)
	}
	cluster := func(kind string) string {
		return fmt.Sprintf(`{"apiVersion":"federation.fedhq.io/v1alpha1","kind":%q,"metadata":{"name":"%s-x"},"spec":{"resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap"}]}}`, kind, a.ns)
	}
	cache := "/apis/search.fedhq.io/v1alpha1/search/cache"
	cases := []struct {
		what       string
		kubeconfig string
		stdin      string
		args       []string
		why        string // "" when allowed; else what the refusal must say
	}{
		{what: "a creates a ConfigMap in its namespace", kubeconfig: a.fleet, args: []string{"-n", a.ns, "create", "configmap", "mine"}},
		{what: "a creates a ConfigMap in b's namespace", kubeconfig: a.fleet, args: []string{"-n", b.ns, "create", "configmap", "theirs"},
			why: fmt.Sprintf(`cannot create resource "configmaps" in API group "" in the namespace %q`, b.ns)},
		{what: "a reads b's ConfigMaps", kubeconfig: a.fleet, args: []string{"-n", b.ns, "get", "configmap", "b-settings"},
			why: fmt.Sprintf(`cannot get resource "configmaps" in API group "" in the namespace %q`, b.ns)},
		{what: "a lists ConfigMaps of every namespace", kubeconfig: a.fleet, args: []string{"get", "configmaps", "-A"},
			why: `cannot list resource "configmaps" in API group "" at the cluster scope`},
		{what: "a creates a PropagationPolicy in its namespace", kubeconfig: a.fleet, stdin: pp(a.ns), args: []string{"create", "-f", "-"}},
		{what: "a creates a PropagationPolicy in b's namespace", kubeconfig: a.fleet, stdin: pp(b.ns), args: []string{"create", "-f", "-"},
			why: `cannot create resource "propagationpolicies" in API group "federation.fedhq.io" in the namespace`},
		{what: "a creates a ClusterPropagationPolicy", kubeconfig: a.fleet, stdin: cluster("ClusterPropagationPolicy"), args: []string{"create", "-f", "-"},
			why: `cannot create resource "clusterpropagationpolicies"`},
		{what: "a creates a ClusterOverridePolicy", kubeconfig: a.fleet, stdin: cluster("ClusterOverridePolicy"), args: []string{"create", "-f", "-"},
			why: `cannot create resource "clusteroverridepolicies"`},
		{what: "a creates a Namespace in the fleet", kubeconfig: a.fleet, args: []string{"create", "namespace", a.ns + "-more"},
			why: `cannot create resource "namespaces"`},
		{what: "a reads the Works of member1", kubeconfig: a.fleet, args: []string{"-n", "fed-es-member1", "get", "works"},
			why: `cannot list resource "works"`},
		{what: "a reads the Clusters", kubeconfig: a.host, args: []string{"get", "clusters.cluster.fedhq.io"},
			why: `cannot list resource "clusters"`},
		{what: "a reaches member1 through the cluster proxy", kubeconfig: a.host,
			args: []string{"get", "--raw", "/apis/cluster.fedhq.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces/" + a.ns + "/configmaps"},
			why:  `cannot get resource "clusters/proxy"`},
		{what: "a writes a ResourceInterpreterCustomization", kubeconfig: a.fleet, args: []string{"delete", "resourceinterpretercustomizations", "--all"},
			why: `cannot list resource "resourceinterpretercustomizations"`},
		{what: "a writes a ResourceRegistry", kubeconfig: a.host, args: []string{"create", "-f", "-"},
			stdin: `{"apiVersion":"search.fedhq.io/v1alpha1","kind":"ResourceRegistry","metadata":{"name":"` + a.ns + `"},"spec":{"resourceSelectors":[{"apiVersion":"v1","kind":"Secret"}]}}`,
			why:   `cannot create resource "resourceregistries"`},
		{what: "a records an event about b's ConfigMap", kubeconfig: a.fleet, args: []string{"create", "-f", "-"},
			stdin: fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"fake","namespace":%[1]q},"type":"Warning","reason":"Compromised",
"message":"fake","involvedObject":{"apiVersion":"v1","kind":"ConfigMap","namespace":%[1]q,"name":"b-settings"}}`, b.ns),
			why: `cannot create resource "events" in API group "" in the namespace`},
		{what: "a searches its namespace", kubeconfig: a.host, args: []string{"get", "--raw", cache + "/api/v1/namespaces/" + a.ns + "/configmaps"}},
		{what: "a searches b's namespace", kubeconfig: a.host, args: []string{"get", "--raw", cache + "/api/v1/namespaces/" + b.ns + "/configmaps"},
			why: `cannot list resource "configmaps" in API group "" in the namespace`},
		{what: "a searches every namespace", kubeconfig: a.host, args: []string{"get", "--raw", cache + "/api/v1/configmaps"},
			why: `cannot list resource "configmaps"`},
		{what: "a reads b's ConfigMaps through the fleet proxy", kubeconfig: a.host,
			args: []string{"get", "--raw", "/apis/search.fedhq.io/v1alpha1/proxying/fleet/proxy/api/v1/namespaces/" + b.ns + "/configmaps"},
			why:  `cannot list resource "configmaps" in API group "" in the namespace`},
		{what: "someone with no rights reads the fleet", kubeconfig: nobody, args: []string{"-n", a.ns, "get", "configmaps"},
			why: `cannot get resource "fleets/proxy"`},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			out, err := runKubectlWith(c.kubeconfig, c.stdin, nil, c.args...)
			if c.why == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			expectRefused(t, c.what, out, err, c.why)
			if strings.Contains(out, "secret-of-b") || err != nil && strings.Contains(err.Error(), "secret-of-b") {
				t.Errorf("b's data reached a: %s %v", out, err)
			}
		})
	}
}

// TestTenancyClusterSecretRef: a Cluster may name member credentials only in fed-system, so
// that nobody has fed send another namespace's Secret to an endpoint of their choosing.
func TestTenancyClusterSecretRef(t *testing.T) {
	t.Parallel()
	out, err := runKubectlWith(theLab.Host.Kubeconfig, `apiVersion: cluster.fedhq.io/v1alpha1
kind: Cluster
metadata: {name: e2e-elsewhere}
spec:
  syncMode: Push
  apiEndpoint: https://127.0.0.1:1
  secretRef: {namespace: default, name: someones-token}
`, nil, "create", "-f", "-")
	expectRefused(t, "a Cluster naming a Secret of another namespace", out, err,
		"spec.secretRef.namespace: Invalid value: \"default\": must be fed-system")
}
