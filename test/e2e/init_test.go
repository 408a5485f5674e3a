package e2e

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/cert"
	"sigs.k8s.io/yaml"

	"github.com/fedhq/fed/test/lab"
)

// TestInit runs kubectl fed init and deinit with server-side dry runs against the lab's
// host, where the lab's own fed-apiserver is registered (a real init would replace it
// under every other test): init reports every object of the chart as helm renders it,
// and neither changes anything in the host.
func TestInit(t *testing.T) {
	t.Parallel()
	bin := buildKubectlFed(t)
	before := fedRegistration(t)
	chartRefs := helmTemplateRefs(t)

	t.Run("dry run", func(t *testing.T) {
		stdout, stderr, err := runFed(bin, "init", "--dry-run=server")
		if err != nil {
			t.Fatalf("init --dry-run=server: %v\n%s%s", err, stdout, stderr)
		}
		ops := operations(t, stdout, "(server dry run)")
		if got := slices.Sorted(maps.Keys(ops)); !slices.Equal(got, chartRefs) {
			t.Errorf("init reported\n  %v\nthe chart renders\n  %v", got, chartRefs)
		}
		for ref, want := range map[string]string{
			"statefulset.apps/fed-apiserver": "created",
			"secret/fed-apiserver-serving":   "created",
			// The lab registers its own fed-apiserver, on another port and CA.
			"apiservice.apiregistration.k8s.io/v1alpha1.cluster.fedhq.io": "configured",
			"service/fed-apiserver": "configured",
		} {
			if ops[ref] != want {
				t.Errorf("%s %s, want %s", ref, ops[ref], want)
			}
		}
		for _, want := range []string{"Checking an install of fed (server dry run) against the host cluster at " + theLab.Host.URL(),
			"new serving certificate for fed-apiserver.fed-system.svc",
			"Warning: apiservice.apiregistration.k8s.io/v1alpha1.cluster.fedhq.io: taking over fields another manager set differently: .spec.caBundle"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("no %q on standard error:\n%s", want, stderr)
			}
		}
		if strings.Contains(stdout+stderr, "Waiting up to") || strings.Contains(stdout, "kubectl fed join") {
			t.Errorf("a dry run waits or says how to join:\n%s%s", stdout, stderr)
		}
	})

	t.Run("dry run etcd3 as YAML", func(t *testing.T) {
		stdout, stderr, err := runFed(bin, "init", "--dry-run=server", "--storage=etcd3", "--etcd-servers=https://etcd-0.etcd:2379", "-o", "yaml")
		if err != nil {
			t.Fatalf("init: %v\n%s", err, stderr)
		}
		objs := decodeAll(t, stdout)
		byRef := map[string]*unstructured.Unstructured{}
		for _, o := range objs {
			byRef[strings.ToLower(o.GetKind())+"/"+o.GetName()] = o
		}
		for _, want := range []string{"deployment/fed-apiserver", "poddisruptionbudget/fed-apiserver", "secret/fed-apiserver-serving"} {
			if byRef[want] == nil {
				t.Errorf("no %s in the dry run's objects", want)
			}
		}
		// The APIServices trust the CA of the Secret's certificate.
		secret, as := byRef["secret/fed-apiserver-serving"], byRef["apiservice/v1alpha1.search.fedhq.io"]
		if secret == nil || as == nil {
			t.Fatalf("no Secret or APIService in %d objects", len(objs))
		}
		ca, _, _ := unstructured.NestedString(secret.Object, "data", "ca.crt")
		crt, _, _ := unstructured.NestedString(secret.Object, "data", "tls.crt")
		bundle, _, _ := unstructured.NestedString(as.Object, "spec", "caBundle")
		if bundle == "" || bundle != ca {
			t.Errorf("the APIService's caBundle is not the Secret's ca.crt")
		}
		verifyServing(t, decode64(t, crt), decode64(t, bundle))
	})

	t.Run("conflicts refused", func(t *testing.T) {
		stdout, stderr, err := runFed(bin, "init", "--dry-run=server", "--force-conflicts=false")
		if err == nil {
			t.Fatalf("init --force-conflicts=false over the lab's registration succeeded:\n%s", stdout)
		}
		for _, want := range []string{"the host refuses", "nothing was changed",
			"apiservice.apiregistration.k8s.io/v1alpha1.cluster.fedhq.io: fields are owned by another manager: .spec.caBundle",
			"--force-conflicts takes the fields over"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("no %q in:\n%s", want, stderr)
			}
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for args, want := range map[string]string{
			"--replicas=2":    "storage.mode=badger runs one replica",
			"--storage=etcd3": "--storage=etcd3 needs --etcd-servers",
		} {
			_, stderr, err := runFed(bin, "init", "--dry-run=server", args)
			if err == nil || !strings.Contains(stderr, want) {
				t.Errorf("init %s: %v, %q; want %q", args, err, stderr, want)
			}
		}
	})

	t.Run("deinit dry run", func(t *testing.T) {
		stdout, stderr, err := runFed(bin, "deinit", "--dry-run=server")
		if err != nil {
			t.Fatalf("deinit --dry-run=server: %v\n%s%s", err, stdout, stderr)
		}
		ops := operations(t, strings.SplitN(stdout, "\n\n", 2)[0], "(server dry run)")
		for _, ref := range []string{"apiservice.apiregistration.k8s.io/v1alpha1.cluster.fedhq.io", "service/fed-apiserver",
			"serviceaccount/fed-apiserver", "clusterrole.rbac.authorization.k8s.io/fed-apiserver"} {
			if ops[ref] != "deleted" {
				t.Errorf("%s: %q, want deleted", ref, ops[ref])
			}
		}
		if _, ok := ops["namespace/fed-system"]; ok {
			t.Error("deinit deletes the namespace without --delete-data")
		}
		for _, want := range []string{"Kept", "namespace/fed-system", "secret/member1", "Not touched: the member clusters"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("no %q in:\n%s", want, stdout)
			}
		}

		stdout, stderr, err = runFed(bin, "deinit", "--dry-run=server", "--delete-data")
		if err != nil {
			t.Fatalf("deinit --dry-run=server --delete-data: %v\n%s", err, stderr)
		}
		if !strings.Contains(stdout, "namespace/fed-system deleted (server dry run)") || !strings.Contains(stdout, "Deleted with the namespace fed-system") {
			t.Errorf("deinit --delete-data:\n%s", stdout)
		}
	})

	checkUntouched(t, before)
	// And the lab's fed still answers.
	kubectl(t, theLab.Host.Kubeconfig, "get", "clusters.cluster.fedhq.io", "member1")
}

// TestInitOwnHost runs a real kubectl fed init and deinit against a host cluster of its
// own: a bare kube-apiserver on the lab's etcd, without nodes or controllers, so
// fed-apiserver's pod never runs, its Service gets no Endpoints and its APIServices stay
// not Available (EndpointsNotFound; the aggregator then never dials the Service's
// cluster IP, which is not on this machine).
func TestInitOwnHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	host, stop, err := theLab.StartHost(ctx, "init-host")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	bin := buildKubectlFed(t)
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, append([]string{"--kubeconfig", host.Kubeconfig}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	get := func(args ...string) string {
		return kubectl(t, host.Kubeconfig, append([]string{"get", "--ignore-not-found"}, args...)...)
	}
	chartRefs := helmTemplateRefs(t)

	// An empty host: the namespace does not exist yet, its objects are checked elsewhere.
	stdout, stderr, err := run("init", "--dry-run=server")
	if err != nil {
		t.Fatalf("init --dry-run=server: %v\n%s%s", err, stdout, stderr)
	}
	for ref, op := range operations(t, stdout, "(server dry run)") {
		if op != "created" {
			t.Errorf("%s %s on an empty host", ref, op)
		}
	}
	if !strings.Contains(stderr, "namespace fed-system does not exist yet: the server dry run checks its objects in namespace default") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if out := get("namespace", "fed-system") + get("-n", "default", "secret", "fed-apiserver-serving"); out != "" {
		t.Fatalf("the dry run created\n%s", out)
	}

	// The install, whose wait ends at its timeout, saying why.
	stdout, stderr, err = run("init", "--wait-timeout=3s")
	if err == nil {
		t.Fatalf("init's APIServices became Available on a host without nodes:\n%s", stderr)
	}
	ops := operations(t, stdout, "")
	if got := slices.Sorted(maps.Keys(ops)); !slices.Equal(got, chartRefs) {
		t.Errorf("init applied\n  %v\nthe chart renders\n  %v", got, chartRefs)
	}
	for _, want := range []string{"Waiting up to 3s for statefulset.apps/fed-apiserver, APIService v1alpha1.cluster.fedhq.io, ",
		"statefulset.apps/fed-apiserver: Waiting for statefulset spec update to be observed...",
		"APIService v1alpha1.cluster.fedhq.io: not Available, EndpointsNotFound",
		"fed is not ready after 3s:\n  statefulset.apps/fed-apiserver: Waiting for statefulset spec update to be observed...\n  APIService v1alpha1.cluster.fedhq.io: not Available",
		"fed-apiserver's pods: none"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}
	for _, o := range [][]string{{"-n", "fed-system", "statefulset", "fed-apiserver"}, {"-n", "fed-system", "secret", "fed-apiserver-serving"},
		{"clusterrolebinding", "fed-apiserver"}, {"apiservice", "v1alpha1.search.fedhq.io"}} {
		if get(append(o, "-o", "name")...) == "" {
			t.Errorf("init did not create %v", o)
		}
	}
	if m := get("-n", "fed-system", "statefulset", "fed-apiserver", "-o", "jsonpath={.metadata.managedFields[*].manager}"); m != "kubectl-fed" {
		t.Errorf("the StatefulSet's managers: %q", m)
	}
	secretData := func() (crt, ca []byte) {
		return decode64(t, get("-n", "fed-system", "secret", "fed-apiserver-serving", "-o", "jsonpath={.data.tls\\.crt}")),
			decode64(t, get("-n", "fed-system", "secret", "fed-apiserver-serving", "-o", "jsonpath={.data.ca\\.crt}"))
	}
	bundle := func() []byte {
		return decode64(t, get("apiservice", "v1alpha1.cluster.fedhq.io", "-o", "jsonpath={.spec.caBundle}"))
	}
	crt, ca := secretData()
	verifyServing(t, crt, ca)
	if !bytes.Equal(bundle(), ca) {
		t.Error("the APIService's caBundle is not the Secret's ca.crt")
	}

	// Again: nothing changes, the certificate is reused; then how to join.
	stdout, stderr, err = run("init", "--wait=false")
	if err != nil {
		t.Fatalf("init again: %v\n%s", err, stderr)
	}
	for ref, op := range operations(t, strings.SplitN(stdout, "\n\n", 2)[0], "") {
		if op != "unchanged" {
			t.Errorf("second init: %s %s", ref, op)
		}
	}
	if !strings.Contains(stderr, "reusing the serving certificate of secret fed-system/fed-apiserver-serving") {
		t.Errorf("stderr:\n%s", stderr)
	}
	for _, want := range []string{"kubectl fed --kubeconfig " + host.Kubeconfig + " join NAME --cluster-kubeconfig FILE",
		"kubectl --kubeconfig " + host.Kubeconfig + " get apiservices v1alpha1.cluster.fedhq.io",
		"kubectl fed --kubeconfig " + host.Kubeconfig + " token create --print-register-command"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	if crt2, _ := secretData(); !bytes.Equal(crt, crt2) {
		t.Error("the second init changed the certificate")
	}

	// --renew-certs: a new CA, and the APIServices trust both while the pods switch.
	if _, stderr, err = run("init", "--wait=false", "--renew-certs"); err != nil {
		t.Fatalf("init --renew-certs: %v\n%s", err, stderr)
	}
	crt2, ca2 := secretData()
	if bytes.Equal(ca, ca2) || bytes.Equal(crt, crt2) {
		t.Error("--renew-certs kept the CA or the certificate")
	}
	verifyServing(t, crt2, ca2)
	if b := bundle(); !bytes.Contains(b, ca) || !bytes.Contains(b, ca2) {
		t.Errorf("after --renew-certs the caBundle holds not both CAs:\n%s", b)
	}

	// A Secret whose certificate the CA does not sign is refused, not replaced.
	hostCA, err := os.ReadFile(filepath.Join(host.Dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, host.Kubeconfig, "patch", "-n", "fed-system", "secret", "fed-apiserver-serving", "--type=merge",
		"-p", fmt.Sprintf(`{"data":{"ca.crt":%q}}`, base64.StdEncoding.EncodeToString(hostCA)))
	_, stderr, err = run("init", "--dry-run=server")
	if err == nil || !strings.Contains(stderr, "secret fed-system/fed-apiserver-serving holds no usable serving certificate") || !strings.Contains(stderr, "--renew-certs") {
		t.Errorf("init over an unusable Secret: %v\n%s", err, stderr)
	}

	// fed's data: a member's credentials and the Badger volume, which deinit keeps.
	kubectl(t, host.Kubeconfig, "create", "secret", "generic", "-n", "fed-system", "member1", "--from-literal=token=t")
	kubectlStdin(t, host.Kubeconfig, `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-fed-apiserver-0, namespace: fed-system}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`, "apply", "-f", "-")

	stdout, stderr, err = run("deinit", "--dry-run=server")
	if err != nil {
		t.Fatalf("deinit --dry-run=server: %v\n%s", err, stderr)
	}
	if get("apiservice", "v1alpha1.cluster.fedhq.io", "-o", "name") == "" || get("-n", "fed-system", "statefulset", "fed-apiserver", "-o", "name") == "" {
		t.Fatalf("deinit --dry-run=server deleted:\n%s", stdout)
	}

	stdout, stderr, err = run("deinit")
	if err != nil {
		t.Fatalf("deinit: %v\n%s", err, stderr)
	}
	deleted := operations(t, strings.SplitN(stdout, "\n\n", 2)[0], "")
	for _, ref := range chartRefs {
		if ref != "namespace/fed-system" && deleted[ref] != "deleted" {
			t.Errorf("deinit did not delete %s:\n%s", ref, stdout)
		}
	}
	for _, o := range [][]string{{"apiservice", "v1alpha1.cluster.fedhq.io"}, {"-n", "fed-system", "statefulset", "fed-apiserver"},
		{"-n", "fed-system", "secret", "fed-apiserver-serving"}, {"clusterrole", "fed-apiserver"}} {
		if out := get(append(o, "-o", "name")...); out != "" {
			t.Errorf("after deinit: %s", out)
		}
	}
	if get("-n", "fed-system", "secret", "member1", "-o", "name") == "" || get("-n", "fed-system", "pvc", "data-fed-apiserver-0", "-o", "name") == "" {
		t.Error("deinit deleted fed's data")
	}
	for _, want := range []string{"namespace/fed-system", "persistentvolumeclaim/data-fed-apiserver-0: fed's Badger database", "secret/member1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}

	// Again: nothing left to delete.
	if _, stderr, err = run("deinit"); err != nil || !strings.Contains(stderr, "No objects of fed's install found") {
		t.Errorf("deinit again: %v\n%s", err, stderr)
	}

	// --delete-data: the namespace goes, but stays Terminating here (no controller manager
	// empties it), so the wait ends at its timeout, saying what is left.
	stdout, stderr, err = run("deinit", "--delete-data", "--wait-timeout=2s")
	if err == nil || !strings.Contains(stdout, "namespace/fed-system deleted\n") ||
		!strings.Contains(stderr, "namespace/fed-system is still being deleted") || !strings.Contains(stderr, "--wait=false does not wait") {
		t.Errorf("deinit --delete-data: %v\n%s%s", err, stdout, stderr)
	}
	if ts := get("namespace", "fed-system", "-o", "jsonpath={.metadata.deletionTimestamp}"); ts == "" && get("namespace", "fed-system", "-o", "name") != "" {
		t.Error("the namespace is not being deleted")
	}
}

// helmTemplateRefs are the objects helm renders from the chart with the chart's defaults
// and a certificate, named as kubectl names them, sorted.
func helmTemplateRefs(t *testing.T) []string {
	t.Helper()
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "bin", "helm"), "template", "fed", filepath.Join(root, "artifacts", "charts", "fed"),
		"--set", "tls.crt=x,tls.key=y,tls.ca=z")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	var refs []string
	for _, o := range decodeAll(t, string(out)) {
		kind := strings.ToLower(o.GetKind())
		if g := o.GroupVersionKind().Group; g != "" {
			kind += "." + g
		}
		refs = append(refs, kind+"/"+o.GetName())
	}
	slices.Sort(refs)
	return refs
}

// operations parses kubectl's "REF OPERATION SUFFIX" lines into REF -> OPERATION.
func operations(t *testing.T, out, suffix string) map[string]string {
	t.Helper()
	ops := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(strings.TrimSuffix(l, suffix))
		if len(fields) != 2 {
			t.Fatalf("not a line of kubectl's: %q in\n%s", l, out)
		}
		ops[fields[0]] = fields[1]
	}
	return ops
}

func decodeAll(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(stream, "\n---") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
	return objs
}

func decode64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// verifyServing checks the serving certificate as the host's aggregator does: for the
// Service's name, against the CA bundle.
func verifyServing(t *testing.T, crtPEM, caPEM []byte) {
	t.Helper()
	crts, err := cert.ParseCertsPEM(crtPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("no CA in the bundle")
	}
	if _, err := crts[0].Verify(x509.VerifyOptions{DNSName: "fed-apiserver.fed-system.svc", Roots: roots}); err != nil {
		t.Errorf("the serving certificate: %v", err)
	}
}
