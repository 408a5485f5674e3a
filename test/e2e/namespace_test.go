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
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// recreateWithin is how soon templates in a fleet namespace deleted and made again are in
// the members again.
const recreateWithin = 10 * time.Second

// TestNamespaceRecreated deletes a fleet namespace with the nginx example in it and makes it
// again at once with the same templates, as a user would: the members have them again
// within recreateWithin. In member1 the old namespace is still terminating when the new
// one arrives (an object in it holds a finalizer): fed says so on the binding, goes on
// with member2, and makes member1's namespace again as soon as the old one is gone.
func TestNamespaceRecreated(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	nginx := filepath.Join(examples, "nginx.yaml")
	applied := []string{"get", "deploy", "nginx", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.replicas} {.metadata.labels.federation\\.fedhq\\.io/managed}"}
	fullyApplied := []string{"get", "rb", "nginx-deployment", "-n", ns, "--ignore-not-found", "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].status}`}

	kubectl(t, fleet, "apply", "-n", ns, "-f", nginx)
	expectOutput(t, time.Minute, m1, "1 true", applied...)
	expectOutput(t, time.Minute, m2, "1 true", applied...)

	// Deleted and made again at once: kubectl waits for the fleet's namespace to go, then
	// the same commands run again.
	kubectl(t, fleet, "delete", "namespace", ns)
	start := time.Now()
	kubectl(t, fleet, "create", "namespace", ns)
	kubectl(t, fleet, "apply", "-n", ns, "-f", nginx)
	expectOutput(t, recreateWithin, m1, "1 true", applied...)
	expectOutput(t, recreateWithin-time.Since(start), m2, "1 true", applied...)
	expectOutput(t, recreateWithin, fleet, "True", fullyApplied...)
	t.Logf("propagated again %v after the namespace was made again", time.Since(start).Round(100*time.Millisecond))

	// Again, with member1's namespace held in Terminating by an object of its own.
	const hold = "e2e.fedhq.io/hold"
	kubectlStdin(t, m1, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hold, namespace: %s, finalizers: [%s]}\n", ns, hold), "apply", "-f", "-")
	release := func() error {
		_, err := runKubectl(m1, "patch", "configmap", "hold", "-n", ns, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		return err
	}
	t.Cleanup(func() { _ = release() })
	kubectl(t, fleet, "delete", "namespace", ns)
	expectOutput(t, 30*time.Second, m1, "Terminating", "get", "namespace", ns, "-o", "jsonpath={.status.phase}")
	start = time.Now()
	kubectl(t, fleet, "create", "namespace", ns)
	kubectl(t, fleet, "apply", "-n", ns, "-f", nginx)
	expectOutput(t, recreateWithin, m2, "1 true", applied...)
	waitFor(t, recreateWithin, func() error {
		msg, err := runKubectl(fleet, "get", "rb", "nginx-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].message}`)
		if err != nil {
			return err
		}
		if want := "namespace " + ns + " is still terminating in cluster member1"; !strings.Contains(msg, want) {
			return fmt.Errorf("the binding says %q, want %q", msg, want)
		}
		return nil
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	expectOutput(t, recreateWithin, m1, "1 true", applied...)
	expectOutput(t, recreateWithin, fleet, "True", fullyApplied...)
	t.Logf("propagated to member1 %v after its old namespace was let go", time.Since(start).Round(100*time.Millisecond))
}

// TestPropagationConflictGone: a member object fed did not create stops propagation with
// Abort; once someone deletes it, fed applies its own and the binding no longer names it.
func TestPropagationConflictGone(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1 := memberKubeconfig("member1")
	kubectl(t, m1, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = runKubectl(m1, "delete", "namespace", ns, "--wait=false") })
	kubectl(t, m1, "create", "deployment", "web", "-n", ns, "--image=busybox:mine")
	kubectl(t, fleet, "create", "deployment", "web", "-n", ns, "--image=nginx:fleet")
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
  placement:
    clusterAffinity:
      clusterNames: [member1]
`, "apply", "-n", ns, "-f", "-")
	status := []string{"get", "rb", "web-deployment", "-n", ns, "-o",
		`jsonpath={.status.aggregatedStatus[0].applied}|{.status.aggregatedStatus[0].appliedMessage}|{.status.conditions[?(@.type=="FullyApplied")].reason}`}
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, status...)
		if err != nil {
			return err
		}
		if !strings.Contains(out, "already exists in cluster member1 and fed did not create it") {
			return fmt.Errorf("the binding says %q, want the conflict", out)
		}
		return nil
	})

	kubectl(t, m1, "delete", "deploy", "web", "-n", ns)
	start := time.Now()
	expectOutput(t, 15*time.Second, fleet, "true||FullyApplied", status...)
	t.Logf("the conflict was over %v after the member's object went", time.Since(start).Round(100*time.Millisecond))
	expectOutput(t, 5*time.Second, m1, "nginx:fleet true", "get", "deploy", "web", "-n", ns, "-o",
		"jsonpath={.spec.template.spec.containers[0].image} {.metadata.labels.federation\\.fedhq\\.io/managed}")
}

// TestNamespaceDeletedWhileWritten deletes a fleet namespace while eight writers keep
// creating ConfigMap templates in it, then makes it again at once: the new namespace holds
// none of them. (A create admitted just before the deletion but stored after the finalizer
// last found the namespace empty stayed, unseen, and came back with the namespace.)
func TestNamespaceDeletedWhileWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := newPropagationClients()
	if err != nil {
		t.Fatal(err)
	}
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	configMaps := c.fleet.CoreV1().ConfigMaps(ns)
	var g errgroup.Group
	var created atomic.Int64
	for w := range 8 {
		g.Go(func() error {
			for i := 0; ; i++ {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d-%d", w, i)}}
				if _, err := configMaps.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
						return nil // being terminated, or gone
					}
					return err
				}
				created.Add(1)
			}
		})
	}
	time.Sleep(time.Second)
	kubectl(t, theLab.FleetKubeconfig(), "delete", "namespace", ns)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	kubectl(t, theLab.FleetKubeconfig(), "create", "namespace", ns)
	left, err := configMaps.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range left.Items {
		if strings.HasPrefix(cm.Name, "w") {
			names = append(names, cm.Name)
		}
	}
	if len(names) > 0 {
		t.Errorf("the namespace made again holds %d of the %d ConfigMaps created in the one deleted: %v", len(names), created.Load(), names)
	}
}
