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
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	pluginfleet "github.com/fedhq/fed/plugin/fleet"
)

// pluginSearchRegistry is the ResourceRegistry TestFedSearch creates (TestSearch has its
// own).
const pluginSearchRegistry = "e2e-plugin-search"

// lockedBuffer is a bytes.Buffer a running command writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFedSearch checks kubectl fed search and kubectl fed get reading the search cache:
// workloads in the members, a ResourceRegistry of their pods and deployments, then the
// table with its CLUSTER column, selectors, -C, -o json and name, names, -w, the error for
// a kind no registry caches, and -v=1 of kubectl fed get saying where it read.
func TestFedSearch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bin := buildKubectlFed(t)
	_, fed := hostClients(t)
	ns := fmt.Sprintf("e2e-search-cli-%d", time.Now().UnixNano()%1000000)
	members := map[string]kubernetes.Interface{}
	for _, m := range labMembers {
		cfg, err := clientConfigFor(memberKubeconfig(m))
		if err != nil {
			t.Fatal(err)
		}
		if members[m], err = kubernetes.NewForConfig(cfg); err != nil {
			t.Fatal(err)
		}
	}
	// web (2 pods) in every member, db (1 pod) in member2.
	for _, m := range labMembers {
		if _, err := members[m].CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = members[m].CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		})
		apps := map[string]int32{"web": 2}
		if m == "member2" {
			apps["db"] = 1
		}
		for app, replicas := range apps {
			if _, err := members[m].AppsV1().Deployments(ns).Create(ctx, searchDeployment(app, replicas), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	rrs := fed.SearchV1alpha1().ResourceRegistries()
	_ = rrs.Delete(ctx, pluginSearchRegistry, metav1.DeleteOptions{})
	rr := &searchv1alpha1.ResourceRegistry{
		ObjectMeta: metav1.ObjectMeta{Name: pluginSearchRegistry},
		Spec: searchv1alpha1.ResourceRegistrySpec{ResourceSelectors: []searchv1alpha1.ResourceSelector{
			{APIVersion: "v1", Kind: "Pod"}, {APIVersion: "apps/v1", Kind: "Deployment"},
		}},
	}
	waitFor(t, 30*time.Second, func() error {
		_, err := rrs.Create(ctx, rr, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("the registry of an earlier run is still being deleted")
		}
		return err
	})
	t.Cleanup(func() { _ = rrs.Delete(context.Background(), rr.Name, metav1.DeleteOptions{}) })
	waitFor(t, time.Minute, func() error {
		got, err := rrs.Get(ctx, rr.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, searchv1alpha1.ResourceRegistryConditionReady); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("not Ready: %+v", got.Status)
		}
		if len(got.Status.Caches) != 2*len(labMembers) {
			return fmt.Errorf("caches %+v, want one per cluster and kind", got.Status.Caches)
		}
		return nil
	})

	// podKeys are "NAME CLUSTER" of the members' pods, sorted.
	podKeys := func(clusters []string, opts metav1.ListOptions) ([]string, error) {
		var keys []string
		for _, m := range clusters {
			l, err := members[m].CoreV1().Pods(ns).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for _, p := range l.Items {
				keys = append(keys, p.Name+" "+m)
			}
		}
		slices.Sort(keys)
		return keys, nil
	}
	rowKeys := func(out string) []string {
		var keys []string
		for k := range rows(out) {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	search := func(t *testing.T, args ...string) string {
		t.Helper()
		out, stderr, err := runFed(bin, append([]string{"search"}, args...)...)
		if err != nil {
			t.Fatalf("kubectl fed search %s: %v: %s", strings.Join(args, " "), err, stderr)
		}
		return out
	}
	// Every pod running, in the members and in the search alike.
	running := metav1.ListOptions{FieldSelector: "status.phase=Running"}
	var all []string
	waitFor(t, 2*time.Minute, func() error {
		want, err := podKeys(labMembers, running)
		if err != nil {
			return err
		}
		if len(want) != 2*len(labMembers)+1 {
			return fmt.Errorf("%d pods running in the members, want %d", len(want), 2*len(labMembers)+1)
		}
		out, stderr, err := runFed(bin, "search", "pods", "-n", ns, "--field-selector", running.FieldSelector)
		if err != nil {
			return fmt.Errorf("%v: %s", err, stderr)
		}
		if got := rowKeys(out); !slices.Equal(got, want) {
			return fmt.Errorf("search has %v, the members %v", got, want)
		}
		all = want
		return nil
	})

	t.Run("pods: one row per pod with its CLUSTER", func(t *testing.T) {
		out := search(t, "pods", "-n", ns)
		header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
		if len(header) < 3 || header[0] != "NAME" || header[1] != "CLUSTER" || header[len(header)-1] != "ADOPTION" {
			t.Errorf("header %v, want NAME CLUSTER … ADOPTION", header)
		}
		if n := strings.Count(out, "\n"); n != len(all)+1 {
			t.Errorf("%d lines, want %d pods and the header:\n%s", n, len(all), out)
		}
		if got := rowKeys(out); !slices.Equal(got, all) {
			t.Errorf("rows %v, want %v", got, all)
		}
		for _, f := range rows(out) {
			if f[len(f)-1] != "N" {
				t.Errorf("row %v: pods made by hand, want ADOPTION N", f)
			}
		}
	})

	t.Run("-l", func(t *testing.T) {
		want, err := podKeys(labMembers, metav1.ListOptions{LabelSelector: "app=db"})
		if err != nil {
			t.Fatal(err)
		}
		if got := rowKeys(search(t, "pods", "-n", ns, "-l", "app=db")); len(want) != 1 || !slices.Equal(got, want) {
			t.Errorf("rows %v, want %v (member2's db pod)", got, want)
		}
	})

	t.Run("--field-selector", func(t *testing.T) {
		if got := rowKeys(search(t, "pods", "-n", ns, "--field-selector", "status.phase=Running")); !slices.Equal(got, all) {
			t.Errorf("Running: rows %v, want %v", got, all)
		}
		out, stderr, err := runFed(bin, "search", "pods", "-n", ns, "--field-selector", "status.phase=Failed")
		if err != nil || out != "" || !strings.Contains(stderr, "No resources found in "+ns+" namespace.") {
			t.Errorf("Failed: %v, %q, %q; want no rows and kubectl's message", err, out, stderr)
		}
	})

	t.Run("-C member2", func(t *testing.T) {
		want, err := podKeys([]string{"member2"}, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rowKeys(search(t, "pods", "-n", ns, "-C", "member2")); !slices.Equal(got, want) {
			t.Errorf("rows %v, want member2's %v", got, want)
		}
	})

	t.Run("-o json: each item annotated with its cluster", func(t *testing.T) {
		var list unstructured.UnstructuredList
		if err := list.UnmarshalJSON([]byte(search(t, "pods", "-n", ns, "-o", "json"))); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != len(all) {
			t.Errorf("%d items, want %d", len(list.Items), len(all))
		}
		for _, item := range list.Items {
			a := item.GetAnnotations()
			cluster := a[searchv1alpha1.AnnotationCluster]
			if cluster == "" || a[pluginfleet.AnnotationCluster] != cluster {
				t.Errorf("pod %s: annotations %v, want %s and %s naming its cluster", item.GetName(), a, searchv1alpha1.AnnotationCluster, pluginfleet.AnnotationCluster)
				continue
			}
			// The pod is in the member the annotation names.
			p, err := members[cluster].CoreV1().Pods(ns).Get(ctx, item.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Errorf("pod %s of %s: %v", item.GetName(), cluster, err)
			} else if p.UID != item.GetUID() {
				t.Errorf("pod %s of %s: uid %s, the search says %s", item.GetName(), cluster, p.UID, item.GetUID())
			}
		}
	})

	t.Run("-o name", func(t *testing.T) {
		lines := strings.Split(strings.TrimSpace(search(t, "pods", "-n", ns, "-o", "name")), "\n")
		if len(lines) != len(all) {
			t.Errorf("%d names, want %d: %v", len(lines), len(all), lines)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "pod/") {
				t.Errorf("name %q, want pod/NAME", l)
			}
		}
	})

	t.Run("names", func(t *testing.T) {
		r := rows(search(t, "deployments", "web", "-n", ns))
		for _, m := range labMembers {
			if r["web "+m] == nil {
				t.Errorf("no row of web in %s: %v", m, r)
			}
		}
		if r := rows(search(t, "deploy/db", "-n", ns)); len(r) != 1 || r["db member2"] == nil {
			t.Errorf("deploy/db: rows %v, want member2's", r)
		}
		_, stderr, err := runFed(bin, "search", "deploy", "nosuch", "-n", ns)
		if err == nil || !strings.Contains(stderr, `deployments.apps "nosuch" not found`) {
			t.Errorf("a name no member has: %v, %q; want kubectl's NotFound", err, stderr)
		}
	})

	t.Run("a kind no registry caches", func(t *testing.T) {
		_, stderr, err := runFed(bin, "search", "configmaps", "-n", ns)
		if err == nil {
			t.Fatal("exit 0, want an error")
		}
		for _, want := range []string{"configmaps is not in the search cache", "kubectl get resourceregistries", "kubectl apply -f -", "kubectl fed get configmaps --all-clusters"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
	})

	t.Run("-w", func(t *testing.T) {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		cmd := exec.CommandContext(wctx, bin, "--kubeconfig", theLab.Host.Kubeconfig, "search", "pods", "-n", ns, "-w", "-l", "app=watched")
		var out, stderr lockedBuffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { stop(); _ = cmd.Wait() }()
		time.Sleep(2 * time.Second) // listed, watching
		if _, err := members["member3"].AppsV1().Deployments(ns).Create(ctx, searchDeployment("watched", 1), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, func() error {
			for _, f := range rows("HEADER\n" + out.String()) {
				if strings.HasPrefix(f[0], "watched-") && f[1] == "member3" {
					return nil
				}
			}
			return fmt.Errorf("no watched pod of member3 in the watch's output %q (stderr %q)", out.String(), stderr.String())
		})
	})

	t.Run("kubectl fed get -v=1 says where it reads", func(t *testing.T) {
		out, stderr, err := runFed(bin, "get", "pods", "-n", ns, "-v=1")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if want := "reading pods of " + strings.Join(labMembers, ", ") + " from the search cache"; !strings.Contains(stderr, want) {
			t.Errorf("get pods: stderr %q, want %q", stderr, want)
		}
		want, err := podKeys(labMembers, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rowKeys(out); !slices.Equal(got, want) {
			t.Errorf("get pods from the cache: rows %v, the members have %v", got, want)
		}

		out, stderr, err = runFed(bin, "get", "replicasets", "-n", ns, "-v=1")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if want := "reading replicasets.apps from the members (" + strings.Join(labMembers, ", ") + "): no ResourceRegistry caches replicasets.apps"; !strings.Contains(stderr, want) {
			t.Errorf("get replicasets: stderr %q, want %q", stderr, want)
		}
		for _, m := range labMembers {
			found := false
			for k := range rows(out) {
				found = found || strings.HasPrefix(k, "web-") && strings.HasSuffix(k, " "+m)
			}
			if !found {
				t.Errorf("get replicasets: no ReplicaSet of web in %s:\n%s", m, out)
			}
		}

		_, stderr, err = runFed(bin, "get", "pods", "-n", ns, "-v=1", "--cache=false")
		if err != nil || !strings.Contains(stderr, "reading pods from the members") || !strings.Contains(stderr, "--cache=false") {
			t.Errorf("get pods --cache=false: %v, stderr %q", err, stderr)
		}
	})
}
