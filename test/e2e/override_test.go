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
	"fmt"
	"strings"
	"testing"
	"time"
)

// appliedOverrides is the jsonpath of the annotation that lists the override policies
// applied to a member object or a Work.
const appliedOverrides = `{.metadata.annotations.federation\.fedhq\.io/applied-overrides}`

// propagateTo is a PropagationPolicy giving every replica of the named template to each of
// the clusters.
func propagateTo(name, apiVersion, kind string, clusters ...string) string {
	return fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: %[1]s
spec:
  resourceSelectors:
  - apiVersion: %[2]s
    kind: %[3]s
    name: %[1]s
  placement:
    clusterAffinity:
      clusterNames: [%[4]s]
    replicaScheduling:
      replicaSchedulingType: Duplicated
`, name, apiVersion, kind, strings.Join(clusters, ", "))
}

// expectContains waits until kubectl prints something that holds every one of want and
// none of not.
func expectContains(t *testing.T, timeout time.Duration, kubeconfig string, want, not []string, args ...string) string {
	t.Helper()
	var out string
	waitFor(t, timeout, func() error {
		var err error
		if out, err = runKubectl(kubeconfig, args...); err != nil {
			return err
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				return fmt.Errorf("kubectl %s printed %q, want it to hold %q", strings.Join(args, " "), out, w)
			}
		}
		for _, n := range not {
			if strings.Contains(out, n) {
				return fmt.Errorf("kubectl %s printed %q, want it without %q", strings.Join(args, " "), out, n)
			}
		}
		return nil
	})
	return out
}

// TestOverrideWorkload is the seeds' nginx-override: one Deployment of two containers to
// member1 and member2, with member1's registry and tag replaced (the seed's image nginx
// becomes registry-1.example.com/nginx:v1.0.0-cluster1), its replicas set to 3, and
// args and resources added to the nginx container only, and member2's registry replaced
// differently and a label and an annotation added if absent. Changing the policy changes
// the members; deleting it gives them the template's values back.
func TestOverrideWorkload(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2, m3 := memberKubeconfig("member1"), memberKubeconfig("member2"), memberKubeconfig("member3")
	kubectlStdin(t, fleet, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx
      - name: sidecar
        image: docker.io/library/busybox:1.36
        args: ["sleep", "3600"]
`, "apply", "-n", ns, "-f", "-")
	kubectlStdin(t, fleet, propagateTo("web", "apps/v1", "Deployment", "member1", "member2"), "apply", "-n", ns, "-f", "-")
	policy := `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata:
  name: web-override
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
  overrideRules:
  - targetCluster:
      clusterNames: [member1]
    overriders:
      imageOverrider:
      - component: Registry
        operator: replace
        value: registry-1.example.com
      - component: Tag
        operator: replace
        value: %s
      replicasOverrider:
      - value: 3
      argsOverrider:
      - containerName: nginx
        operator: add
        value: ["--config=/etc/nginx/cluster1.conf"]
      resourcesOverrider:
      - containerName: nginx
        value:
          limits: {cpu: "2", memory: 2Gi}
          requests: {cpu: 500m, memory: 512Mi}
  - targetCluster:
      clusterNames: [member2]
    overriders:
      imageOverrider:
      - component: Registry
        operator: replace
        value: registry-2.example.com
      labelsOverrider:
      - operator: addIfAbsent
        value: {cluster: member2, app: not-web}
      annotationsOverrider:
      - operator: addIfAbsent
        value: {monitoring.example.com/enabled: "true"}
`
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "v1.0.0-cluster1"), "apply", "-n", ns, "-f", "-")

	shape := []string{"get", "deploy", "web", "-n", ns, "--ignore-not-found", "-o", `jsonpath=` +
		`replicas={.spec.replicas}` +
		` images={.spec.template.spec.containers[*].image}` +
		` nginx.args={.spec.template.spec.containers[?(@.name=="nginx")].args}` +
		` nginx.resources={.spec.template.spec.containers[?(@.name=="nginx")].resources}` +
		` sidecar.args={.spec.template.spec.containers[?(@.name=="sidecar")].args}` +
		` sidecar.resources={.spec.template.spec.containers[?(@.name=="sidecar")].resources}`}
	meta := []string{"get", "deploy", "web", "-n", ns, "--ignore-not-found", "-o", `jsonpath=` +
		`app={.metadata.labels.app} cluster={.metadata.labels.cluster}` +
		` monitoring={.metadata.annotations.monitoring\.example\.com/enabled}`}
	template := `replicas=2 images=nginx docker.io/library/busybox:1.36 nginx.args= nginx.resources={}` +
		` sidecar.args=["sleep","3600"] sidecar.resources={}`

	expectOutput(t, 30*time.Second, m1, `replicas=3`+
		` images=registry-1.example.com/nginx:v1.0.0-cluster1 registry-1.example.com/library/busybox:v1.0.0-cluster1`+
		` nginx.args=["--config=/etc/nginx/cluster1.conf"]`+
		` nginx.resources={"limits":{"cpu":"2","memory":"2Gi"},"requests":{"cpu":"500m","memory":"512Mi"}}`+
		` sidecar.args=["sleep","3600"] sidecar.resources={}`, shape...)
	expectOutput(t, 30*time.Second, m2, `replicas=2`+
		` images=registry-2.example.com/nginx registry-2.example.com/library/busybox:1.36`+
		` nginx.args= nginx.resources={} sidecar.args=["sleep","3600"] sidecar.resources={}`, shape...)
	// addIfAbsent adds the missing label and keeps the template's app=web.
	expectOutput(t, 10*time.Second, m2, "app=web cluster=member2 monitoring=true", meta...)
	expectOutput(t, 10*time.Second, m1, "app=web cluster= monitoring=", meta...)
	expectOutput(t, 5*time.Second, m3, "", shape...)

	// The member objects and the Works say which policies made them.
	mine := "OverridePolicy/" + ns + "/web-override"
	work := ns + ".web-deployment"
	for _, m := range []string{"member1", "member2"} {
		expectContains(t, 10*time.Second, memberKubeconfig(m), []string{mine}, nil, "get", "deploy", "web", "-n", ns, "-o", "jsonpath="+appliedOverrides)
		expectContains(t, 10*time.Second, fleet, []string{mine}, nil, "get", "work", work, "-n", "fed-es-"+m, "-o", "jsonpath="+appliedOverrides)
	}
	// The template in the fleet is not changed.
	expectContains(t, 5*time.Second, fleet, []string{"replicas=2 images=nginx docker.io/library/busybox:1.36 nginx.args= "}, nil, shape...)
	expectOutput(t, 10*time.Second, fleet, "True", "get", "rb", "web-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].status}`)

	// Changing the policy changes member1's tag, and nothing of member2.
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "v2"), "apply", "-n", ns, "-f", "-")
	expectContains(t, 30*time.Second, m1, []string{"images=registry-1.example.com/nginx:v2 registry-1.example.com/library/busybox:v2"}, nil, shape...)
	expectContains(t, 5*time.Second, m2, []string{"images=registry-2.example.com/nginx "}, nil, shape...)

	// Deleting it gives both members the template's values back, labels and annotations
	// included, and they no longer name the policy.
	kubectl(t, fleet, "delete", "op", "web-override", "-n", ns)
	expectOutput(t, 30*time.Second, m1, template, shape...)
	expectOutput(t, 30*time.Second, m2, template, shape...)
	expectOutput(t, 10*time.Second, m2, "app=web cluster= monitoring=", meta...)
	for _, m := range []string{"member1", "member2"} {
		expectContains(t, 10*time.Second, memberKubeconfig(m), nil, []string{mine}, "get", "deploy", "web", "-n", ns, "-o", "jsonpath="+appliedOverrides)
		expectContains(t, 10*time.Second, fleet, nil, []string{mine}, "get", "work", work, "-n", "fed-es-"+m, "-o", "jsonpath="+appliedOverrides)
	}
}

// TestOverrideRegistryAdd is the seeds' example of a rule without a target cluster: the
// registry test-repo is added to myapp:1.0.0 in every cluster. A ClusterOverridePolicy
// named to sort after it still applies before it, so the OverridePolicy's label wins,
// and the member object lists both in that order.
func TestOverrideRegistryAdd(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	kubectl(t, fleet, "create", "deployment", "myapp", "-n", ns, "--image=myapp:1.0.0")
	kubectlStdin(t, fleet, propagateTo("myapp", "apps/v1", "Deployment", "member1", "member2"), "apply", "-n", ns, "-f", "-")
	policy := `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata:
  name: a-example
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: %s
  overrideRules:
  - overriders:
      imageOverrider:
      - component: Registry
        operator: add
        value: test-repo
      labelsOverrider:
      - operator: add
        value: {set-by: namespace}
`
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "myapp"), "apply", "-n", ns, "-f", "-")
	cop := "zz-" + ns
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "cop", cop, "--ignore-not-found") })
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: ClusterOverridePolicy
metadata:
  name: %s
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    namespace: %s
    name: myapp
  overrideRules:
  - overriders:
      labelsOverrider:
      - operator: add
        value: {set-by: cluster, cluster-policy: "yes"}
`, cop, ns), "apply", "-f", "-")

	got := []string{"get", "deploy", "myapp", "-n", ns, "--ignore-not-found", "-o",
		"jsonpath={.spec.template.spec.containers[0].image} {.metadata.labels.set-by} {.metadata.labels.cluster-policy}"}
	for _, m := range []string{m1, m2} {
		expectOutput(t, 30*time.Second, m, "test-repo/myapp:1.0.0 namespace yes", got...)
		out := expectContains(t, 10*time.Second, m, []string{"ClusterOverridePolicy/" + cop, "OverridePolicy/" + ns + "/a-example"}, nil,
			"get", "deploy", "myapp", "-n", ns, "-o", "jsonpath="+appliedOverrides)
		if strings.Index(out, "ClusterOverridePolicy/"+cop) > strings.Index(out, "OverridePolicy/"+ns+"/a-example") {
			t.Errorf("applied-overrides is %q, want the ClusterOverridePolicy before the OverridePolicy", out)
		}
	}
	expectOutput(t, 5*time.Second, fleet, "myapp:1.0.0", got...)

	// Pointed at another Deployment, the OverridePolicy no longer applies to myapp: a
	// change looks again at what the policy selected before it, not only after.
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "other"), "apply", "-n", ns, "-f", "-")
	for _, m := range []string{m1, m2} {
		expectOutput(t, 30*time.Second, m, "myapp:1.0.0 cluster yes", got...)
	}
}

// TestOverrideGuestbook is the seeds' guestbook example: the CRD and a Guestbook go to
// member1 and member2, and a plaintext OverridePolicy sets spec.size to 4 and an
// annotation in member1 only.
func TestOverrideGuestbook(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	propagateGuestbook(t, ns, "member1", "member2")
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata:
  name: guestbook-sample
spec:
  resourceSelectors:
  - apiVersion: webapp.my.domain/v1
    kind: Guestbook
  overrideRules:
  - targetCluster:
      clusterNames: [member1]
    overriders:
      plaintext:
      - path: /spec/size
        operator: replace
        value: 4
      - path: /metadata/annotations
        operator: add
        value: {"OverridePolicy": "test"}
`, "apply", "-n", ns, "-f", "-")

	got := []string{"get", "guestbook", "guestbook-sample", "-n", ns, "--ignore-not-found", "-o",
		"jsonpath={.spec.size} {.spec.alias} {.metadata.annotations.OverridePolicy} " + appliedOverrides}
	expectOutput(t, time.Minute, m1, "4 Name test OverridePolicy/"+ns+"/guestbook-sample", got...)
	expectOutput(t, 30*time.Second, m2, "2 Name", got...)
	expectOutput(t, 5*time.Second, fleet, "2 Name", got...)
	expectOutput(t, 30*time.Second, fleet, "True", "get", "rb", "guestbook-sample-guestbook", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].status}`)
}

// TestOverrideFailure gives member1 a rule that cannot apply (plaintext replace of a path
// that is not there): member1's Work says why and the object does not change there,
// member2 gets it, the binding and an event on the template tell of the failure, and
// fed-apiserver does not panic. Fixing the rule applies it.
func TestOverrideFailure(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	logStart := fedLogMark()

	policy := `apiVersion: federation.fedhq.io/v1alpha1
kind: OverridePolicy
metadata:
  name: broken
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: broken
  overrideRules:
  - targetCluster:
      clusterNames: [member1]
    overriders:
      plaintext:
      - path: %s
        operator: replace
        value: fixed
`
	// The policy comes first, so that member1 never has the object.
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "/spec/not/there"), "apply", "-n", ns, "-f", "-")
	kubectl(t, fleet, "create", "deployment", "broken", "-n", ns, "--image=nginx:1.25")
	kubectlStdin(t, fleet, propagateTo("broken", "apps/v1", "Deployment", "member1", "member2"), "apply", "-n", ns, "-f", "-")

	image := []string{"get", "deploy", "broken", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.template.spec.containers[0].image}"}
	expectOutput(t, 30*time.Second, m2, "nginx:1.25", image...)

	status := []string{"get", "rb", "broken-deployment", "-n", ns, "-o", `jsonpath=` +
		`{.status.aggregatedStatus[?(@.clusterName=="member1")].applied}` +
		`/{.status.aggregatedStatus[?(@.clusterName=="member2")].applied}` +
		` {.status.conditions[?(@.type=="FullyApplied")].status}`}
	expectOutput(t, 30*time.Second, fleet, "/true False", status...)
	msg := kubectl(t, fleet, "get", "rb", "broken-deployment", "-n", ns, "-o", `jsonpath={.status.aggregatedStatus[?(@.clusterName=="member1")].appliedMessage}`)
	t.Logf("member1 in the binding: %s", msg)
	for _, want := range []string{"OverridePolicy/" + ns + "/broken", "plaintext[0]", "/spec/not/there"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the binding says %q for member1, want it to name %q", msg, want)
		}
	}
	expectContains(t, 10*time.Second, fleet, []string{"False OverrideFailed"}, nil,
		"get", "work", ns+".broken-deployment", "-n", "fed-es-member1", "-o", `jsonpath={.status.conditions[?(@.type=="Applied")].status} {.status.conditions[?(@.type=="Applied")].reason}`)
	expectContains(t, 30*time.Second, fleet, []string{"Warning cluster member1:"}, []string{"cluster member2"},
		"get", "events", "-n", ns, "--field-selector", "involvedObject.name=broken,reason=OverrideFailed", "-o", `jsonpath={range .items[*]}{.type} {.message}{"\n"}{end}`)
	expectOutput(t, 5*time.Second, m1, "", image...)

	// Fixed, the rule applies and member1 gets the object.
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "/spec/template/spec/containers/0/image"), "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, m1, "fixed", image...)
	expectOutput(t, 30*time.Second, fleet, "true/true True", status...)

	// Broken again, member1 keeps what it had and its Work says why.
	kubectlStdin(t, fleet, fmt.Sprintf(policy, "/spec/not/there"), "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, fleet, "/true False", status...)
	expectOutput(t, 5*time.Second, m1, "fixed", image...)
	expectOutput(t, 5*time.Second, m2, "nginx:1.25", image...)

	noPanicSince(t, logStart)
}
