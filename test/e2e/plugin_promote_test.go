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
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// TestKubectlFedPromote adopts a Deployment created by hand in member2 into the fleet: the
// template and a policy pinning it to member2 appear in the fleet, the member's object is
// not written to.
func TestKubectlFedPromote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fed := buildKubectlFed(t)
	m2 := theLab.Member("member2")
	member, err := m2.Client()
	if err != nil {
		t.Fatal(err)
	}
	fleet := fleetAdmin(t)
	ns := fmt.Sprintf("e2e-promote-%d", time.Now().UnixNano()%1_000_000)
	kubectl(t, m2.Kubeconfig, "create", "namespace", ns)
	t.Cleanup(func() {
		_, _ = runKubectl(m2.Kubeconfig, "delete", "namespace", ns, "--wait=false")
		_, _ = runKubectl(fleet, "delete", "namespace", ns, "--wait=false")
	})
	kubectl(t, m2.Kubeconfig, "-n", ns, "create", "deployment", "web", "--image=registry.k8s.io/pause:3.10", "--replicas=1")

	// Wait until member2's controllers are done with it: generation observed and no write
	// for a while, so that its resourceVersion only moves if someone writes it.
	var before *appsv1.Deployment
	var stableSince time.Time
	waitFor(t, time.Minute, func() error {
		d, err := member.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if before == nil || d.ResourceVersion != before.ResourceVersion || d.Status.ObservedGeneration != d.Generation {
			before, stableSince = d, time.Now()
			return fmt.Errorf("deployment at resourceVersion %s, observed generation %d of %d", d.ResourceVersion, d.Status.ObservedGeneration, d.Generation)
		}
		if time.Since(stableSince) < 3*time.Second {
			return fmt.Errorf("deployment written %s ago", time.Since(stableSince))
		}
		return nil
	})

	out, errOut, err := runFed(fed, "promote", "deployment", "web", "-n", ns, "-C", "member2")
	if err != nil {
		t.Fatalf("kubectl fed promote: %v\n%s", err, errOut)
	}
	want := "namespace/" + ns + " created in the fleet\n" +
		"deployment.apps/web promoted from member2 (template and propagationpolicy.federation.fedhq.io/web-deployment created)\n"
	if out != want {
		t.Errorf("kubectl fed promote printed %q, want %q", out, want)
	}

	// The template: the member's spec, without what its servers set.
	var template appsv1.Deployment
	if err := yaml.Unmarshal([]byte(kubectl(t, fleet, "-n", ns, "get", "deployment", "web", "-o", "yaml")), &template); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(template.Spec.Template, before.Spec.Template) {
		t.Errorf("the template's spec.template differs from member2's:\n%+v\n%+v", template.Spec.Template, before.Spec.Template)
	}
	if *template.Spec.Replicas != *before.Spec.Replicas || !reflect.DeepEqual(template.Spec.Selector, before.Spec.Selector) {
		t.Errorf("the template's replicas or selector differ from member2's")
	}
	// Its revision is the fleet's own count, from 1, not the member's.
	if template.UID == before.UID || template.Annotations["federation.fedhq.io/promoted-from"] != "member2" ||
		template.Annotations["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("the template's metadata: %+v", template.ObjectMeta)
	}

	// The policy: exactly this Deployment, on member2 only, taking over the running one.
	var policy unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(kubectl(t, fleet, "-n", ns, "get", "propagationpolicy", "web-deployment", "-o", "yaml")), &policy.Object); err != nil {
		t.Fatal(err)
	}
	selectors, _, _ := unstructured.NestedSlice(policy.Object, "spec", "resourceSelectors")
	wantSelectors := []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}
	if !reflect.DeepEqual(selectors, wantSelectors) {
		t.Errorf("resourceSelectors %v, want %v", selectors, wantSelectors)
	}
	if names, _, _ := unstructured.NestedStringSlice(policy.Object, "spec", "placement", "clusterAffinity", "clusterNames"); !reflect.DeepEqual(names, []string{"member2"}) {
		t.Errorf("clusterNames %v, want [member2]", names)
	}
	if cr, _, _ := unstructured.NestedString(policy.Object, "spec", "conflictResolution"); cr != "Overwrite" {
		t.Errorf("conflictResolution %q, want Overwrite", cr)
	}

	// Propagation adopts member2's Deployment in place, without restarting it: the same
	// object, its spec (and so its pods) untouched, now labelled as fed's.
	var after *appsv1.Deployment
	waitFor(t, 30*time.Second, func() error {
		var err error
		if after, err = member.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); err != nil {
			return err
		}
		if after.Labels[federationv1alpha1.LabelManaged] != "true" {
			return fmt.Errorf("member2's Deployment is not adopted yet (labels %v)", after.Labels)
		}
		return nil
	})
	// (Its generation may move: a Deployment's counts annotation changes too.)
	if after.UID != before.UID || !apiequality.Semantic.DeepEqual(after.Spec, before.Spec) {
		t.Errorf("member2's Deployment was replaced or its spec changed: uid %s→%s, spec %+v→%+v", before.UID, after.UID, before.Spec, after.Spec)
	}
	rs, err := member.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Items) != 1 {
		t.Errorf("member2 has %d ReplicaSets, want the one it had: a rollout restarted the pods", len(rs.Items))
	}
	for _, mf := range after.ManagedFields {
		if mf.Manager == "kubectl-fed" {
			t.Errorf("kubectl-fed wrote member2's Deployment: %+v", mf)
		}
	}
	// Nothing reached the host.
	notFound(t, theLab.Host.Kubeconfig, "-n", ns, "deployment", "web")

	// Refusals.
	fails := func(wantErr string, args ...string) {
		t.Helper()
		out, errOut, err := runFed(fed, args...)
		if err == nil || !strings.Contains(errOut, wantErr) {
			t.Errorf("kubectl fed %s: %v, printed %q and %q; want an error containing %q", strings.Join(args, " "), err, out, errOut, wantErr)
		}
	}
	fails("the fleet already has the template deployment.apps/web in namespace "+ns+" (see it with kubectl fed get deployment web -n "+ns+")",
		"promote", "deployment", "web", "-n", ns, "-C", "member2")
	fails(`deployments.apps "missing" not found in member cluster member2`, "promote", "deployment/missing", "-n", ns, "-C", "member2")
	fails("must be given with -C", "promote", "deployment", "web", "-n", ns)
	fails("exactly one member cluster", "promote", "deployment", "web", "-n", ns, "-C", "member1,member2")
	fails(`no member cluster "nowhere"`, "promote", "deployment", "web", "-n", ns, "-C", "nowhere")
}

// TestKubectlFedApply applies a ConfigMap with kubectl fed apply: it lands in the fleet, not
// in the host.
func TestKubectlFedApply(t *testing.T) {
	t.Parallel()
	fed := buildKubectlFed(t)
	fleet := fleetAdmin(t)
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	file := writeFile(t, "cm.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  color: blue
`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "-n", ns, "-f", file, "--dry-run=server"}, "configmap/applied created (server dry run)\n"},
		{[]string{"apply", "-n", ns, "-f", file}, "configmap/applied created\n"},
		{[]string{"apply", "-n", ns, "-f", file}, "configmap/applied unchanged\n"},
		{[]string{"apply", "-n", ns, "-f", file, "--server-side"}, "configmap/applied serverside-applied\n"},
	} {
		out, errOut, err := runFed(fed, tc.args...)
		if err != nil || out != tc.want {
			t.Errorf("kubectl fed %s: %v, printed %q (%s), want %q", strings.Join(tc.args, " "), err, out, errOut, tc.want)
		}
	}
	if got := kubectl(t, fleet, "-n", ns, "get", "configmap", "applied", "-o", "jsonpath={.data.color}"); got != "blue" {
		t.Errorf("the fleet's ConfigMap has color %q", got)
	}
	notFound(t, theLab.Host.Kubeconfig, "-n", ns, "configmap", "applied")
}

// TestKubectlFedVersion asks the lab's fed-apiserver and host for their versions.
func TestKubectlFedVersion(t *testing.T) {
	t.Parallel()
	fed := buildKubectlFed(t)
	out, errOut, err := runFed(fed, "version")
	if err != nil {
		t.Fatalf("kubectl fed version: %v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "Client Version: ") || !strings.HasPrefix(lines[1], "Server Version: v") ||
		lines[2] != "Host Version: v1.32.4" {
		t.Errorf("kubectl fed version printed %q", out)
	}
	out, errOut, err = runFed(fed, "version", "--server", "https://127.0.0.1:1")
	if err == nil || !strings.HasPrefix(out, "Client Version: ") || strings.Contains(out, "Server Version") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("kubectl fed version against no server: %v, printed %q and %q", err, out, errOut)
	}
}
