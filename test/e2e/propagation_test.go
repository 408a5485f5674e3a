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
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// memberKubeconfig is the admin kubeconfig of a member of the lab.
func memberKubeconfig(name string) string { return filepath.Join(theLab.Dir(), name+".kubeconfig") }

// expectOutput waits until kubectl prints want.
func expectOutput(t testing.TB, timeout time.Duration, kubeconfig, want string, args ...string) {
	t.Helper()
	waitFor(t, timeout, func() error {
		out, err := runKubectl(kubeconfig, args...)
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != want {
			return fmt.Errorf("kubectl %s printed %q, want %q", strings.Join(args, " "), strings.TrimSpace(out), want)
		}
		return nil
	})
}

// TestPropagationNginx walks the seeds' nginx example through the whole pipeline: two
// replicas divided 1:1 over member1 and member2, moved to member2, scaled to 4, the
// template's status summed, the policy deleted (the members keep their copies) and the
// template deleted (they go).
func TestPropagationNginx(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2, m3 := memberKubeconfig("member1"), memberKubeconfig("member2"), memberKubeconfig("member3")
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "nginx.yaml"))

	ready := []string{"get", "deploy", "nginx", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.replicas}/{.status.readyReplicas} {.metadata.labels.federation\\.fedhq\\.io/managed}"}
	expectOutput(t, time.Minute, m1, "1/1 true", ready...)
	expectOutput(t, time.Minute, m2, "1/1 true", ready...)
	expectOutput(t, 5*time.Second, m3, "", ready...)
	// One pod, Running and Ready, in each.
	pods := []string{"get", "pods", "-n", ns, "-l", "app=nginx", "-o", `jsonpath={range .items[*]}{.status.phase}/{.status.conditions[?(@.type=="Ready")].status} {end}`}
	expectOutput(t, time.Minute, m1, "Running/True", pods...)
	expectOutput(t, time.Minute, m2, "Running/True", pods...)
	// The template's status is the sum.
	expectOutput(t, 30*time.Second, fleet, "2/2/2", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}")
	expectOutput(t, 10*time.Second, fleet, "True", "get", "rb", "nginx-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].status}`)

	// Moved to member2: member1 is cleaned.
	kubectl(t, fleet, "patch", "pp", "nginx-propagation", "-n", ns, "--type=merge", "-p", `{"spec":{"placement":{"clusterAffinity":{"clusterNames":["member2"]}}}}`)
	expectOutput(t, time.Minute, m1, "", ready...)
	expectOutput(t, time.Minute, m2, "2/2 true", ready...)

	// Scaled to 4: the member follows and the template says 4/4 ready.
	kubectl(t, fleet, "scale", "deploy", "nginx", "-n", ns, "--replicas=4")
	expectOutput(t, time.Minute, m2, "4/4 true", ready...)
	expectOutput(t, 30*time.Second, fleet, "4/4/4", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}")

	// The template's events tell the story.
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=nginx", "-o", "jsonpath={range .items[*]}{.reason}:{.message}{\"\\n\"}{end}")
		if err != nil {
			return err
		}
		for _, want := range []string{"PolicyApplied:propagated by PropagationPolicy " + ns + "/nginx-propagation",
			"Scheduled:placed on member1 (1), member2 (1)", "Scheduled:placed on member2 (4)", "Synced:applied to cluster member2"} {
			if !strings.Contains(out, want) {
				return fmt.Errorf("events of the template:\n%s\nwant a line %q", out, want)
			}
		}
		return nil
	})

	// Deleting the policy leaves the binding, without a policy, and the member's Deployment
	// fed's, following the template.
	kubectl(t, fleet, "delete", "pp", "nginx-propagation", "-n", ns)
	expectOutput(t, 30*time.Second, fleet, "|member2", "get", "rb", "nginx-deployment", "-n", ns,
		"-o", `jsonpath={.metadata.labels.propagationpolicy\.federation\.fedhq\.io/name}|{.spec.clusters[*].name}`)
	kubectl(t, fleet, "scale", "deploy", "nginx", "-n", ns, "--replicas=3")
	expectOutput(t, time.Minute, m2, "3/3 true", ready...)
	// The same template's policy back takes it over again without a conflict.
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "nginx.yaml"))
	// (The file says 2 replicas, divided 1:1 again.)
	expectOutput(t, time.Minute, m1, "1/1 true", ready...)
	expectOutput(t, time.Minute, m2, "1/1 true", ready...)

	// The policy deleted, then the template: it goes from every member.
	kubectl(t, fleet, "delete", "pp", "nginx-propagation", "-n", ns)
	expectOutput(t, 30*time.Second, fleet, "", "get", "rb", "nginx-deployment", "-n", ns,
		"-o", `jsonpath={.metadata.labels.propagationpolicy\.federation\.fedhq\.io/name}`)
	kubectl(t, fleet, "delete", "deploy", "nginx", "-n", ns)
	expectOutput(t, 30*time.Second, m1, "", ready...)
	expectOutput(t, 30*time.Second, m2, "", ready...)
	expectOutput(t, 30*time.Second, fleet, "", "get", "works", "-A", "--field-selector", "metadata.name="+ns+".nginx-deployment", "-o", "name")
	expectOutput(t, 30*time.Second, fleet, "", "get", "rb", "-n", ns, "-o", "name")
}

// propagateGuestbook applies the seeds' guestbook CRD and a Guestbook in ns to the fleet,
// with policies that send both to clusters, and deletes the CRD (its Guestbooks with it)
// when the test ends.
func propagateGuestbook(t *testing.T, ns string, clusters ...string) {
	t.Helper()
	fleet := theLab.FleetKubeconfig()
	t.Cleanup(func() {
		// The CRD first, so that its copies go from the members (with its Guestbooks),
		// then its policy.
		_, _ = runKubectl(fleet, "delete", "crd", "guestbooks.webapp.my.domain", "--ignore-not-found")
		for _, c := range clusters {
			expectOutput(t, 30*time.Second, memberKubeconfig(c), "", "get", "crd", "guestbooks.webapp.my.domain", "--ignore-not-found", "-o", "name")
		}
		_, _ = runKubectl(fleet, "delete", "cpp", "guestbooks-crd", "--ignore-not-found")
	})
	placement := "  placement:\n    clusterAffinity:\n      clusterNames: [" + strings.Join(clusters, ", ") + "]\n"
	// The policy comes first and has a priority, so that it, and not another policy of the
	// CRD left in a shared lab, propagates it.
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: guestbooks-crd
spec:
  priority: 10
  resourceSelectors:
  - apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    name: guestbooks.webapp.my.domain
`+placement, "apply", "-f", "-")
	// The CRD of an earlier test may still be on its way out.
	expectOutput(t, 30*time.Second, fleet, "", "get", "crd", "guestbooks.webapp.my.domain", "--ignore-not-found", "-o", "jsonpath={.metadata.deletionTimestamp}")
	kubectl(t, fleet, "apply", "-f", filepath.Join(examples, "guestbooks-crd.yaml"))
	// The fleet serves a new CRD's kind once it has read it; made again right after an
	// earlier test deleted it, the deletion's rebuild of the served kinds may still drop it
	// for a moment, as a cluster's discovery lags a CRD: the create is tried again.
	waitFor(t, 30*time.Second, func() error {
		_, err := runKubectl(fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "guestbook.yaml"))
		return err
	})
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: guestbook
spec:
  resourceSelectors:
  - apiVersion: webapp.my.domain/v1
    kind: Guestbook
`+placement, "apply", "-n", ns, "-f", "-")
}

// TestPropagationCRD propagates the guestbook CRD of the seeds and a Guestbook to member1
// only.
func TestPropagationCRD(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	propagateGuestbook(t, ns, "member1")

	expectOutput(t, time.Minute, m1, "True", "get", "crd", "guestbooks.webapp.my.domain", "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
	expectOutput(t, time.Minute, m1, "2 Name true", "get", "guestbook", "guestbook-sample", "-n", ns, "--ignore-not-found",
		"-o", "jsonpath={.spec.size} {.spec.alias} {.metadata.labels.federation\\.fedhq\\.io/managed}")
	expectOutput(t, 5*time.Second, m2, "", "get", "crd", "guestbooks.webapp.my.domain", "--ignore-not-found", "-o", "name")
	expectOutput(t, 30*time.Second, fleet, "True", "get", "rb", "guestbook-sample-guestbook", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].status}`)
}

// TestCleanupUnservedKind deletes a template whose kind its member does not serve for a
// while (the member's CRD version unserved, as while a kube-apiserver that just started
// loads its CRDs): fed keeps the Work and tries again, and removes its copy once the kind
// is served, instead of taking "not served" for "not there" and leaving the copy behind.
func TestCleanupUnservedKind(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1 := memberKubeconfig("member1")
	const crd = "gadgets.cleanup.example.com"
	served := func(v bool) {
		kubectl(t, m1, "patch", "crd", crd, "--type=json", "-p", fmt.Sprintf(`[{"op":"replace","path":"/spec/versions/0/served","value":%t}]`, v))
	}
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "crd", crd, "--ignore-not-found")
		_, _ = runKubectl(m1, "delete", "crd", crd, "--ignore-not-found")
	})
	// The member's CRD is the test's own, not a copy of fed's, so that fed leaves it unserved.
	definition := gadgetsCRD("cleanup.example.com")
	kubectlStdin(t, m1, definition, "apply", "-f", "-")
	kubectlStdin(t, fleet, definition, "apply", "-f", "-")
	waitFor(t, 30*time.Second, func() error {
		_, err := runKubectlWith(fleet, `apiVersion: cleanup.example.com/v1
kind: Gadget
metadata:
  name: g
spec: {size: 1}
`, nil, "apply", "-n", ns, "-f", "-")
		return err
	})
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: gadget
spec:
  resourceSelectors:
  - {apiVersion: cleanup.example.com/v1, kind: Gadget}
  placement:
    clusterAffinity:
      clusterNames: [member1]
`, "apply", "-n", ns, "-f", "-")
	gadget := []string{"get", "gadgets", "-n", ns, "-o", "jsonpath={.items[*].metadata.name}"}
	expectOutput(t, 30*time.Second, m1, "g", gadget...)

	served(false)
	waitFor(t, 30*time.Second, func() error {
		if _, err := runKubectl(m1, gadget...); err == nil {
			return errors.New("member1 still serves gadgets")
		}
		return nil
	})
	kubectl(t, fleet, "delete", "gadget", "g", "-n", ns)
	work := []string{"get", "works", "-A", "--field-selector", "metadata.name=" + ns + ".g-gadget", "-o", "name"}
	holds(t, 5*time.Second, func() error {
		if out, err := runKubectl(fleet, work...); err != nil || out == "" {
			return fmt.Errorf("the Work went while member1 did not serve its kind (%q, %v): its copy is left behind", out, err)
		}
		return nil
	})
	served(true)
	expectOutput(t, 30*time.Second, m1, "", gadget...)
	expectOutput(t, 30*time.Second, fleet, "", work...)
}

// gadgetsCRD is a CustomResourceDefinition gadgets.<group> of a namespaced kind Gadget,
// version v1, that takes any fields.
func gadgetsCRD(group string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.%[1]s
spec:
  group: %[1]s
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, group)
}

// TestPropagationConflict shows that fed leaves alone a member object of the same name it
// did not create, says why in the binding and an event, and takes it over only when the
// policy says conflictResolution: Overwrite.
func TestPropagationConflict(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1 := memberKubeconfig("member1")
	kubectl(t, m1, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(m1, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, m1, "create", "deployment", "web", "-n", ns, "--image=busybox:mine")

	policy := `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
spec:
  conflictResolution: %s
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
  placement:
    clusterAffinity:
      clusterNames: [member1]
`
	kubectl(t, fleet, "create", "deployment", "web", "-n", ns, "--image=nginx:fleet")
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "Abort"), "apply", "-n", ns, "-f", "-")

	applied := []string{"get", "rb", "web-deployment", "-n", ns, "-o",
		`jsonpath={.status.aggregatedStatus[0].clusterName} applied={.status.aggregatedStatus[0].applied} {.status.conditions[?(@.type=="FullyApplied")].reason}`}
	expectOutput(t, 30*time.Second, fleet, "member1 applied= ApplyFailed", applied...)
	msg := kubectl(t, fleet, "get", "rb", "web-deployment", "-n", ns, "-o", "jsonpath={.status.aggregatedStatus[0].appliedMessage}")
	if !strings.Contains(msg, "deployment "+ns+"/web already exists in cluster member1 and fed did not create it") ||
		!strings.Contains(msg, "conflictResolution: Overwrite") {
		t.Errorf("the binding says %q, want why and what to do", msg)
	}
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=web,reason=Conflict", "-o", "jsonpath={.items[*].type}")
		if err != nil {
			return err
		}
		if !strings.Contains(out, "Warning") {
			return fmt.Errorf("no Warning event Conflict on the template (got %q)", out)
		}
		return nil
	})
	image := []string{"get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[0].image} {.metadata.labels.federation\\.fedhq\\.io/managed}"}
	expectOutput(t, 5*time.Second, m1, "busybox:mine", image...)

	kubectlStdin(t, fleet, fmt.Sprintf(policy, "Overwrite"), "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, m1, "nginx:fleet true", image...)
	expectOutput(t, 30*time.Second, fleet, "member1 applied=true FullyApplied", applied...)
}

// TestPropagationSurvivesKill kills fed-apiserver while it propagates 200 templates to the
// three members and starts it again: in the end every template is in every member once,
// with one Work each, and nothing else of fed's is left there.
func TestPropagationSurvivesKill(t *testing.T) {
	const n = 200
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	cfg, err := clientConfigFor(fleet)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400 // kubectl's 5 per second would take 40 s for 200
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	configMaps := client.CoreV1().ConfigMaps(ns)
	inParallel(t, n, func(i int) error {
		_, err := configMaps.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i)},
			Data: map[string]string{"i": fmt.Sprint(i)}}, metav1.CreateOptions{})
		return err
	})

	count := func(kubeconfig string, args ...string) int {
		out, err := runKubectl(kubeconfig, args...)
		if err != nil {
			return -1
		}
		return len(strings.Fields(out))
	}
	managed := []string{"get", "configmaps", "-n", ns, "-l", "federation.fedhq.io/managed=true", "-o", "name"}
	// The policy comes last, so that all 200 are propagated at once, and fed-apiserver is
	// killed as soon as the first of them reaches member1.
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: all-configmaps
spec:
  resourceSelectors:
  - apiVersion: v1
    kind: ConfigMap
`, "apply", "-n", ns, "-f", "-")
	start := time.Now()
	waitFor(t, time.Minute, func() error {
		if count(memberKubeconfig("member1"), managed...) <= 0 {
			return fmt.Errorf("nothing propagated to member1 yet")
		}
		return nil
	})
	if err := theLab.KillProcess("fed-apiserver"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := theLab.Up(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("fed-apiserver killed %s after the policy, and started again", time.Since(start).Round(time.Millisecond))
	for _, m := range []string{"member1", "member2", "member3"} {
		waitFor(t, 2*time.Minute, func() error {
			if got := count(memberKubeconfig(m), managed...); got != n {
				return fmt.Errorf("%s has %d of the %d ConfigMaps", m, got, n)
			}
			return nil
		})
		// One Work per template, none left over from before the kill.
		works := 0
		for _, w := range strings.Fields(kubectl(t, fleet, "get", "works", "-n", "fed-es-"+m, "-o", "name")) {
			if strings.HasPrefix(w, "work.federation.fedhq.io/"+ns+".") {
				works++
			}
		}
		if works != n {
			t.Errorf("%s has %d Works of the namespace, want %d", m, works, n)
		}
	}
	t.Logf("all in their clusters %s after the policy", time.Since(start).Round(time.Millisecond))
	// Deleting the templates leaves nothing of fed's behind, also when they are deleted
	// while fed-apiserver starts again, as soon as it answers: a template deleted before
	// the controllers' informer of its kind lists is found gone through its binding.
	if err := theLab.KillProcess("fed-apiserver"); err != nil {
		t.Fatal(err)
	}
	upCtx, cancelUp := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancelUp()
	up := make(chan error, 1)
	go func() { up <- theLab.Up(upCtx) }()
	start = time.Now()
	inParallel(t, n, func(i int) error {
		for {
			err := configMaps.Delete(context.Background(), fmt.Sprintf("cm-%03d", i), metav1.DeleteOptions{})
			if err == nil || apierrors.IsNotFound(err) || time.Since(start) > time.Minute {
				return err
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	if err := <-up; err != nil {
		t.Fatal(err)
	}
	expectOutput(t, time.Minute, fleet, "", "get", "rb", "-n", ns, "-o", "name")
	for _, m := range []string{"member1", "member2", "member3"} {
		waitFor(t, 2*time.Minute, func() error {
			if got := count(memberKubeconfig(m), managed...); got != 0 {
				return fmt.Errorf("%s still has %d of the ConfigMaps", m, got)
			}
			return nil
		})
	}
	t.Logf("all deleted from the members %s after the templates", time.Since(start).Round(time.Millisecond))
}

// inParallel runs f(0..n-1) on eight goroutines and fails the test on the first error.
func inParallel(t *testing.T, n int, f func(i int) error) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(8)
	for i := range n {
		g.Go(func() error { return f(i) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestPropagationDependencies propagates with propagateDeps the ConfigMap and Secret a
// Deployment refers to, to the same cluster, follows their changes, and removes them with
// the Deployment.
func TestPropagationDependencies(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	kubectlStdin(t, fleet, `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  greeting: hello
---
apiVersion: v1
kind: Secret
metadata:
  name: web-secret
stringData:
  password: s3cret
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: unrelated
data:
  x: "1"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        envFrom:
        - configMapRef: {name: web-config}
        volumeMounts:
        - {name: secret, mountPath: /secret}
      volumes:
      - name: secret
        secret: {secretName: web-secret}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
spec:
  propagateDeps: true
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
  placement:
    clusterAffinity:
      clusterNames: [member1]
`, "apply", "-n", ns, "-f", "-")
	data := []string{"get", "configmap", "web-config", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.data.greeting}"}
	expectOutput(t, time.Minute, m1, "hello", data...)
	expectOutput(t, 10*time.Second, m1, "secret/web-secret", "get", "secret", "web-secret", "-n", ns, "--ignore-not-found", "-o", "name")
	expectOutput(t, 10*time.Second, m1, "1/1", "get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.replicas}/{.status.readyReplicas}")
	expectOutput(t, 5*time.Second, m1, "", "get", "configmap", "unrelated", "-n", ns, "--ignore-not-found", "-o", "name")
	expectOutput(t, 5*time.Second, m2, "", data...)

	kubectl(t, fleet, "patch", "configmap", "web-config", "-n", ns, "--type=merge", "-p", `{"data":{"greeting":"bonjour"}}`)
	expectOutput(t, 30*time.Second, m1, "bonjour", data...)

	kubectl(t, fleet, "delete", "deploy", "web", "-n", ns)
	expectOutput(t, 30*time.Second, m1, "", data...)
	expectOutput(t, 30*time.Second, m1, "", "get", "secret", "web-secret", "-n", ns, "--ignore-not-found", "-o", "name")

	// The namespace fed made in member1 goes with the fleet's.
	expectOutput(t, 5*time.Second, m1, "true", "get", "namespace", ns, "-o", "jsonpath={.metadata.labels.federation\\.fedhq\\.io/managed}")
	kubectl(t, fleet, "delete", "namespace", ns, "--wait=false")
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(m1, "get", "namespace", ns, "--ignore-not-found", "-o", "jsonpath={.status.phase}")
		if err != nil {
			return err
		}
		if out != "" && out != "Terminating" {
			return fmt.Errorf("namespace %s is %s in member1", ns, out)
		}
		return nil
	})
}

// TestPropagationSuspension stops updates to one cluster, then to all, and resumes them.
func TestPropagationSuspension(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	kubectl(t, fleet, "create", "deployment", "app", "-n", ns, "--image=nginx", "--replicas=1")
	policy := `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: app
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: app
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
%s`
	kubectlStdin(t, fleet, fmt.Sprintf(policy, ""), "apply", "-n", ns, "-f", "-")
	replicas := []string{"get", "deploy", "app", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.replicas}"}
	expectOutput(t, time.Minute, m1, "1", replicas...)
	expectOutput(t, time.Minute, m2, "1", replicas...)

	kubectlStdin(t, fleet, fmt.Sprintf(policy, "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member2]\n"), "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, fleet, "fed-es-member1=Applied fed-es-member2=Suspended", "get", "works", "-A", "--field-selector", "metadata.name="+ns+".app-deployment",
		"-o", `jsonpath={range .items[*]}{.metadata.namespace}={.status.conditions[?(@.type=="Applied")].reason} {end}`, "--sort-by=.metadata.namespace")
	kubectl(t, fleet, "scale", "deploy", "app", "-n", ns, "--replicas=3")
	expectOutput(t, 30*time.Second, m1, "3", replicas...)
	expectOutput(t, 3*time.Second, m2, "1", replicas...)

	kubectlStdin(t, fleet, fmt.Sprintf(policy, "  suspension:\n    dispatching: true\n"), "apply", "-n", ns, "-f", "-")
	time.Sleep(time.Second)
	kubectl(t, fleet, "scale", "deploy", "app", "-n", ns, "--replicas=2")
	time.Sleep(3 * time.Second)
	expectOutput(t, time.Second, m1, "3", replicas...)
	expectOutput(t, time.Second, m2, "1", replicas...)

	kubectlStdin(t, fleet, fmt.Sprintf(policy, ""), "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, m1, "2", replicas...)
	expectOutput(t, 30*time.Second, m2, "2", replicas...)
}

// TestPropagationCreateDeleteAtOnce deletes each of 40 Deployments right after creating it
// (after 0 to 200 ms), under a policy that Duplicates them to the three members: whichever
// of fed's steps each delete lands in, nothing of them may stay, no binding, no Work and no
// member object. (A Work written just before its binding went could reach the Works'
// informer after the binding's last reconcile and stay, with its member's object.)
func TestPropagationCreateDeleteAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := newPropagationClients()
	if err != nil {
		t.Fatal(err)
	}
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	if _, err := c.fed.FederationV1alpha1().PropagationPolicies(ns).Create(ctx, benchPolicy(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var g errgroup.Group
	g.SetLimit(8)
	for i := range 40 {
		g.Go(func() error {
			d := benchDeployment(i)
			if _, err := c.fleet.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
				return err
			}
			time.Sleep(time.Duration(i%9) * 25 * time.Millisecond)
			return c.fleet.AppsV1().Deployments(ns).Delete(ctx, d.Name, metav1.DeleteOptions{})
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, func() error {
		bindings, err := c.fed.FederationV1alpha1().ResourceBindings(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(bindings.Items) > 0 {
			return fmt.Errorf("%d bindings left", len(bindings.Items))
		}
		works, err := c.fed.FederationV1alpha1().Works("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var left []string
		for _, w := range works.Items {
			if strings.HasPrefix(w.Name, ns+".") {
				left = append(left, w.Namespace+"/"+w.Name)
			}
		}
		if len(left) > 0 {
			return fmt.Errorf("Works left: %v", left)
		}
		for _, m := range labMembers {
			l, err := c.members[m].AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			if len(l.Items) > 0 {
				return fmt.Errorf("%s still has %d Deployments", m, len(l.Items))
			}
		}
		return nil
	})
}

// TestStrayWorkRemoved: a Work of a binding in a cluster the binding does not place goes,
// with its member's copy, though nothing about the binding changes. It is how a Work written
// from the binding's placement of a moment before, and read by the informer only after the
// binding's next reconcile, looks (seed 5530 of the soak kept one for minutes).
func TestStrayWorkRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := newPropagationClients()
	if err != nil {
		t.Fatal(err)
	}
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, `apiVersion: v1
kind: ConfigMap
metadata:
  name: stray
data:
  k: v
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: stray
spec:
  resourceSelectors:
  - apiVersion: v1
    kind: ConfigMap
    name: stray
  placement:
    clusterAffinity:
      clusterNames: [member2]
`, "apply", "-n", ns, "-f", "-")
	name := federationv1alpha1.WorkName(ns, federationv1alpha1.BindingName("ConfigMap", "stray"))
	var w *federationv1alpha1.Work
	waitFor(t, time.Minute, func() error {
		w, err = c.fed.FederationV1alpha1().Works(federationv1alpha1.ExecutionNamespace("member2")).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	stray := &federationv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: federationv1alpha1.ExecutionNamespace("member1"), Labels: w.Labels, Annotations: w.Annotations},
		Spec:       w.Spec,
	}
	if _, err := c.fed.FederationV1alpha1().Works(stray.Namespace).Create(ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectOutput(t, 30*time.Second, fleet, "", "get", "work", name, "-n", stray.Namespace, "--ignore-not-found", "-o", "name")
	expectOutput(t, 30*time.Second, memberKubeconfig("member1"), "", "get", "cm", "stray", "-n", ns, "--ignore-not-found", "-o", "name")
	expectOutput(t, 5*time.Second, memberKubeconfig("member2"), "v", "get", "cm", "stray", "-n", ns, "-o", "jsonpath={.data.k}")
}
