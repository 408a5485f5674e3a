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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

const searchNamespace = "search-e2e"

// searchFixture is what the search tests share: clients of the host and of each member,
// and a ResourceRegistry of pods and deployments of every cluster.
type searchFixture struct {
	host    kubernetes.Interface
	members map[string]kubernetes.Interface
}

// searchList lists path (below the cache's path) through the host with the query params,
// and returns "cluster/namespace/name" of each object in order, and the list.
func searchList(ctx context.Context, c rest.Interface, path string, params map[string]string) ([]string, *unstructured.UnstructuredList, error) {
	req := c.Get().AbsPath(searchv1alpha1.CachePath + path)
	for k, v := range params {
		req = req.Param(k, v)
	}
	body, err := req.DoRaw(ctx)
	if err != nil {
		return nil, nil, err
	}
	list := &unstructured.UnstructuredList{}
	if err := list.UnmarshalJSON(body); err != nil {
		return nil, nil, fmt.Errorf("%v: %s", err, body)
	}
	var names []string
	for _, o := range list.Items {
		names = append(names, o.GetAnnotations()[searchv1alpha1.AnnotationCluster]+"/"+o.GetNamespace()+"/"+o.GetName())
	}
	return names, list, nil
}

// memberPods is the sorted union of the members' own answers to a pod list.
func (f *searchFixture) memberPods(ctx context.Context, clusters []string, opts metav1.ListOptions) ([]string, error) {
	var out []string
	for _, m := range clusters {
		l, err := f.members[m].CoreV1().Pods(searchNamespace).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, p := range l.Items {
			out = append(out, m+"/"+p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestSearch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	host, fed := hostClients(t)
	f := &searchFixture{host: host, members: map[string]kubernetes.Interface{}}
	for _, m := range labMembers {
		cfg, err := clientConfigFor(memberKubeconfig(m))
		if err != nil {
			t.Fatal(err)
		}
		if f.members[m], err = kubernetes.NewForConfig(cfg); err != nil {
			t.Fatal(err)
		}
	}
	// The members' workloads: web (3 pods) in every member, db (2 pods) in member1 and
	// member2.
	for _, m := range labMembers {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: searchNamespace}}
		if _, err := f.members[m].CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = f.members[m].CoreV1().Namespaces().Delete(context.Background(), searchNamespace, metav1.DeleteOptions{})
		})
		apps := map[string]int32{"web": 3}
		if m != "member3" {
			apps["db"] = 2
		}
		for app, replicas := range apps {
			if _, err := f.members[m].AppsV1().Deployments(searchNamespace).Create(ctx, searchDeployment(app, replicas), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The registry of the README: every pod and Deployment of every member.
	rrs := fed.SearchV1alpha1().ResourceRegistries()
	kubectl(t, theLab.Host.Kubeconfig, "apply", "-f", filepath.Join("..", "..", "artifacts", "examples", "search-registry.yaml"))
	rr := &searchv1alpha1.ResourceRegistry{ObjectMeta: metav1.ObjectMeta{Name: "workloads"}}
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
	rc := host.CoreV1().RESTClient()
	// Every pod running, in the members and in search alike.
	running := metav1.ListOptions{FieldSelector: "status.phase=Running"}
	waitFor(t, time.Minute, func() error {
		want, err := f.memberPods(ctx, labMembers, running)
		if err != nil {
			return err
		}
		if len(want) != 13 {
			return fmt.Errorf("%d pods running in the members, want 13", len(want))
		}
		got, _, err := searchList(ctx, rc, "/api/v1/namespaces/"+searchNamespace+"/pods", map[string]string{"fieldSelector": running.FieldSelector})
		if err != nil {
			return err
		}
		if !slices.Equal(sorted(got), want) {
			return fmt.Errorf("search has %v, the members %v", got, want)
		}
		return nil
	})

	t.Run("selectors and pages are the union of the members' answers", func(t *testing.T) {
		node := ""
		if l, err := f.members["member2"].CoreV1().Pods(searchNamespace).List(ctx, metav1.ListOptions{}); err == nil && len(l.Items) > 0 {
			node = l.Items[0].Spec.NodeName
		}
		for _, tc := range []struct {
			name     string
			opts     metav1.ListOptions
			clusters []string
		}{
			{"everything", metav1.ListOptions{}, nil},
			{"label equality", metav1.ListOptions{LabelSelector: "app=web"}, nil},
			{"label set and inequality", metav1.ListOptions{LabelSelector: "app in (web,db),tier!=front"}, nil},
			{"status.phase", metav1.ListOptions{FieldSelector: "status.phase=Running"}, nil},
			{"spec.nodeName", metav1.ListOptions{FieldSelector: "spec.nodeName=" + node}, []string{"member2"}},
			{"labels, fields and clusters", metav1.ListOptions{LabelSelector: "app", FieldSelector: "metadata.namespace=" + searchNamespace}, []string{"member1", "member3"}},
			{"pages of 4", metav1.ListOptions{Limit: 4}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				clusters := tc.clusters
				if clusters == nil {
					clusters = labMembers
				}
				memberOpts := tc.opts
				memberOpts.Limit = 0
				want, err := f.memberPods(ctx, clusters, memberOpts)
				if err != nil {
					t.Fatal(err)
				}
				params := map[string]string{"labelSelector": tc.opts.LabelSelector, "fieldSelector": tc.opts.FieldSelector}
				if tc.clusters != nil {
					params["clusters"] = strings.Join(tc.clusters, ",")
				}
				var got []string
				pages := 0
				for {
					if tc.opts.Limit > 0 {
						params["limit"] = fmt.Sprint(tc.opts.Limit)
					}
					names, list, err := searchList(ctx, rc, "/api/v1/namespaces/"+searchNamespace+"/pods", params)
					if err != nil {
						t.Fatal(err)
					}
					if tc.opts.Limit > 0 && int64(len(names)) > tc.opts.Limit {
						t.Errorf("a page of %d, limit %d", len(names), tc.opts.Limit)
					}
					if list.GetKind() != "PodList" || list.GetAPIVersion() != "v1" || list.GetResourceVersion() == "" {
						t.Errorf("list kind %s, apiVersion %s, resourceVersion %q", list.GetKind(), list.GetAPIVersion(), list.GetResourceVersion())
					}
					got, pages = append(got, names...), pages+1
					if params["continue"] = list.GetContinue(); params["continue"] == "" {
						break
					}
				}
				if len(want) == 0 {
					t.Fatalf("the members have no pods for %+v: the case tests nothing", tc.opts)
				}
				if !slices.Equal(sorted(got), want) {
					t.Errorf("search %v\nmembers %v", sorted(got), want)
				}
				if tc.opts.Limit > 0 && pages < 3 {
					t.Errorf("%d pages of %d for %d pods", pages, tc.opts.Limit, len(want))
				}
			})
		}
	})

	// How soon, is BenchmarkSearchFreshness's figure.
	t.Run("a Deployment in member3 appears and goes", func(t *testing.T) {
		path := "/apis/apps/v1/namespaces/" + searchNamespace + "/deployments"
		params := map[string]string{"fieldSelector": "metadata.name=appear"}
		start := time.Now()
		if _, err := f.members["member3"].AppsV1().Deployments(searchNamespace).Create(ctx, searchDeployment("appear", 0), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, func() error {
			names, _, err := searchList(ctx, rc, path, params)
			if err != nil || !slices.Equal(names, []string{"member3/" + searchNamespace + "/appear"}) {
				return fmt.Errorf("search has %v, %v", names, err)
			}
			return nil
		})
		t.Logf("appeared in search %s after its creation", time.Since(start).Round(time.Millisecond))
		start = time.Now()
		if err := f.members["member3"].AppsV1().Deployments(searchNamespace).Delete(ctx, "appear", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, func() error {
			names, _, err := searchList(ctx, rc, path, params)
			if err != nil || len(names) != 0 {
				return fmt.Errorf("search has %v, %v", names, err)
			}
			return nil
		})
		t.Logf("gone from search %s after its deletion", time.Since(start).Round(time.Millisecond))
	})

	t.Run("tables, watches and errors", func(t *testing.T) {
		body, err := rc.Get().AbsPath(searchv1alpha1.CachePath+"/apis/apps/v1/deployments").
			SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json").DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var table metav1.Table
		if err := json.Unmarshal(body, &table); err != nil {
			t.Fatal(err)
		}
		var columns []string
		for _, c := range table.ColumnDefinitions {
			columns = append(columns, c.Name)
		}
		if len(columns) < 2 || columns[0] != "Cluster" || columns[1] != "Name" || len(table.Rows) < 5 {
			t.Errorf("table columns %v with %d rows, want Cluster, Name, ... and a row per deployment", columns, len(table.Rows))
		}
		// kubectl get --raw and a watch of member2's deployments from the list's version.
		out := kubectl(t, theLab.Host.Kubeconfig, "get", "--raw", searchv1alpha1.CachePath+"/apis/apps/v1/namespaces/"+searchNamespace+"/deployments?clusters=member2")
		if !strings.Contains(out, `"kind":"DeploymentList"`) || !strings.Contains(out, `"`+searchv1alpha1.AnnotationCluster+`":"member2"`) {
			t.Errorf("kubectl get --raw: %s", out)
		}
		_, list, err := searchList(ctx, rc, "/apis/apps/v1/deployments", nil)
		if err != nil {
			t.Fatal(err)
		}
		w, err := rc.Get().AbsPath(searchv1alpha1.CachePath+"/apis/apps/v1/namespaces/"+searchNamespace+"/deployments").
			Param("watch", "true").Param("resourceVersion", list.GetResourceVersion()).Param("clusters", "member2").Watch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if _, err := f.members["member2"].AppsV1().Deployments(searchNamespace).Create(ctx, searchDeployment("watched", 0), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-w.ResultChan():
			o, err := meta.Accessor(ev.Object)
			if err != nil || ev.Type != "ADDED" || o.GetName() != "watched" || o.GetAnnotations()[searchv1alpha1.AnnotationCluster] != "member2" {
				t.Errorf("event %s %v (%v)", ev.Type, o, err)
			}
		case <-time.After(10 * time.Second):
			t.Error("no event for a Deployment created in member2")
		}
		for path, want := range map[string]int{
			"/api/v1/secrets": http.StatusNotFound, // not in any registry
			"/api/v1/namespaces/" + searchNamespace + "/pods/x": http.StatusMethodNotAllowed,
			"/api/v1/pods?fieldSelector=spec.bogus%3Dx":         http.StatusBadRequest,
			"/api/v1/pods?limit=1&continue=nonsense":            http.StatusBadRequest,
		} {
			p, query, _ := strings.Cut(path, "?")
			req := rc.Get().AbsPath(searchv1alpha1.CachePath + p)
			for _, kv := range strings.Split(query, "&") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					req = req.Param(k, strings.ReplaceAll(v, "%3D", "="))
				}
			}
			err := req.Do(ctx).Error()
			var status apierrors.APIStatus
			if code := 0; !errors.As(err, &status) || int(status.Status().Code) != want {
				if status != nil {
					code = int(status.Status().Code)
				}
				t.Errorf("GET %s: %v (code %d), want %d", path, err, code, want)
			}
		}
	})

	t.Run("the host's RBAC on the kind decides", func(t *testing.T) {
		user := "search-e2e-user"
		cfg, err := theLab.Host.RESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		as, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		bind := func(role string, rules []rbacv1.PolicyRule) {
			name := "search-e2e-" + role
			if _, err := host.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := host.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = host.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
				_ = host.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{})
			})
		}
		// Reaching the search endpoint at all is the host's rule on search.fedhq.io.
		bind("endpoint", []rbacv1.PolicyRule{{APIGroups: []string{searchv1alpha1.GroupName}, Resources: []string{"search/api", "search/apis"}, Verbs: []string{"get"}}})
		podsPath := searchv1alpha1.CachePath + "/api/v1/namespaces/" + searchNamespace + "/pods"
		waitFor(t, 10*time.Second, func() error {
			err := as.CoreV1().RESTClient().Get().AbsPath(podsPath).Do(ctx).Error()
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "pods") {
				return fmt.Errorf("without list on pods: %v, want 403 naming pods", err)
			}
			return nil
		})
		bind("pods", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}})
		waitFor(t, 10*time.Second, func() error {
			names, _, err := searchList(ctx, as.CoreV1().RESTClient(), "/api/v1/namespaces/"+searchNamespace+"/pods", nil)
			if err != nil || len(names) != 13 {
				return fmt.Errorf("with list on pods: %d pods, %v", len(names), err)
			}
			return nil
		})
	})

	t.Run("plain kubectl on the fleet proxy", func(t *testing.T) {
		bin := buildKubectlFed(t)
		kubeconfig := filepath.Join(t.TempDir(), "proxy.kubeconfig")
		if out, errOut, err := runFed(bin, "kubeconfig", "--proxy", "-o", kubeconfig); err != nil {
			t.Fatalf("kubectl fed kubeconfig --proxy: %v: %s", err, errOut)
		} else if !strings.Contains(out, "the fleet proxy") {
			t.Errorf("kubectl fed kubeconfig --proxy printed %q", out)
		}
		out := kubectl(t, kubeconfig, "get", "pods", "-A", "-l", "app")
		// -A also shows pods other tests left running on the shared lab; this
		// test's own are the 13 in its namespace.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		ours := 0
		for _, line := range lines[1:] {
			if fields := strings.Fields(line); len(fields) > 0 && fields[0] == searchNamespace {
				ours++
			}
		}
		if header := strings.Fields(lines[0]); ours != 13 || len(header) < 2 || header[0] != "NAMESPACE" || header[1] != "CLUSTER" {
			t.Fatalf("kubectl get pods -A through the proxy:\n%s\nwant a CLUSTER column and the 13 pods of %s", out, searchNamespace)
		}
		for _, m := range labMembers {
			if !strings.Contains(out, m+" ") {
				t.Errorf("no pod of %s in:\n%s", m, out)
			}
		}
		// kubectl top through the proxy: the fleet's metrics, not one member's.
		waitFor(t, time.Minute, func() error {
			out, err := runKubectl(kubeconfig, "top", "pods", "-n", searchNamespace, "-l", "app")
			if err != nil {
				return err
			}
			if n := len(strings.Split(strings.TrimSpace(out), "\n")) - 1; n != 13 {
				return fmt.Errorf("kubectl top pods through the proxy: %d pods, want the 13 of every member:\n%s", n, out)
			}
			return nil
		})
		pods, err := f.members["member2"].CoreV1().Pods(searchNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
		if err != nil || len(pods.Items) == 0 {
			t.Fatalf("member2's db pods: %v", err)
		}
		pod := pods.Items[0].Name
		if logs := kubectl(t, kubeconfig, "logs", "-n", searchNamespace, pod); !strings.Contains(logs, "member2: log line 1") {
			t.Errorf("kubectl logs %s through the proxy: %q, want member2's log", pod, logs)
		}
		kubectl(t, kubeconfig, "delete", "pod", "-n", searchNamespace, pod, "--wait=false")
		waitFor(t, 30*time.Second, func() error {
			p, err := f.members["member2"].CoreV1().Pods(searchNamespace).Get(ctx, pod, metav1.GetOptions{})
			if apierrors.IsNotFound(err) || (err == nil && p.DeletionTimestamp != nil) {
				return nil
			}
			return fmt.Errorf("pod %s in member2 after kubectl delete through the proxy: %v", pod, err)
		})
		if _, err := runKubectl(kubeconfig, "get", "pod", "-n", searchNamespace, "no-such-pod"); err == nil || !strings.Contains(err.Error(), "NotFound") && !strings.Contains(err.Error(), "not found") {
			t.Errorf("kubectl get of a pod no member has: %v, want not found", err)
		}
		// The Deployment makes a new pod; the fleet's 13 again before the next test.
		waitFor(t, time.Minute, func() error {
			names, _, err := searchList(ctx, rc, "/api/v1/namespaces/"+searchNamespace+"/pods", map[string]string{"fieldSelector": running.FieldSelector})
			if err != nil || len(names) != 13 || slices.Contains(names, "member2/"+searchNamespace+"/"+pod) {
				return fmt.Errorf("%d pods running in search, %v", len(names), err)
			}
			return nil
		})
	})

	t.Run("a restart of fed-apiserver resumes the members' watches without listing", func(t *testing.T) {
		_, before, err := searchList(ctx, rc, "/api/v1/pods", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := theLab.KillProcess("fed-apiserver"); err != nil {
			t.Fatal(err)
		}
		upCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := theLab.Up(upCtx); err != nil {
			t.Fatal(err)
		}
		// The cache answers once its registry is read again (up to a minute here on a
		// loaded 2-core machine, once more than 90 s in a full run); how long is not what
		// this checks.
		var after *unstructured.UnstructuredList
		waitFor(t, 3*time.Minute, func() error {
			_, after, err = searchList(ctx, rc, "/api/v1/pods", nil)
			return err
		})
		// A list of a member would have written every object again, at new revisions.
		versions := map[string]string{}
		for _, o := range before.Items {
			versions[o.GetAnnotations()[searchv1alpha1.AnnotationCluster]+"/"+o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
		}
		for _, o := range after.Items {
			key := o.GetAnnotations()[searchv1alpha1.AnnotationCluster] + "/" + o.GetNamespace() + "/" + o.GetName()
			if v, ok := versions[key]; ok && v != o.GetResourceVersion() {
				t.Errorf("%s was written again across the restart (resourceVersion %s -> %s)", key, v, o.GetResourceVersion())
			}
		}
		metrics, err := fedMetrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range labMembers {
			for _, r := range []string{"pods", "deployments.apps"} {
				labels := fmt.Sprintf(`{cluster=%q,resource=%q}`, m, r)
				if !strings.Contains(metrics, "fed_search_member_watch_resumes_total"+labels+" 1") {
					t.Errorf("%s's %s: no resumed watch in fed's metrics", m, r)
				}
				if strings.Contains(metrics, "fed_search_member_lists_total"+labels) {
					t.Errorf("%s's %s was listed after the restart", m, r)
				}
			}
		}
	})

	t.Run("an unreachable member's objects stay, marked stale", func(t *testing.T) {
		memberDown := true
		t.Cleanup(func() {
			if memberDown {
				restartControlPlane(t, "member2")
			}
		})
		if err := theLab.StopProcess("member2-apiserver"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, time.Minute, func() error {
			_, list, err := searchList(ctx, rc, "/api/v1/namespaces/"+searchNamespace+"/pods", map[string]string{"clusters": "member2"})
			if err != nil {
				return err
			}
			if len(list.Items) != 5 {
				return fmt.Errorf("%d of member2's pods, want its 5", len(list.Items))
			}
			for _, o := range list.Items {
				if o.GetAnnotations()[searchv1alpha1.AnnotationStale] != "true" {
					return fmt.Errorf("%s not marked stale", o.GetName())
				}
			}
			got, err := rrs.Get(ctx, rr.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, c := range got.Status.Caches {
				if c.Cluster == "member2" && (!c.Stale || c.Message == "") {
					return fmt.Errorf("member2's cache %+v, want stale with a message", c)
				}
			}
			return nil
		})
		restartControlPlane(t, "member2")
		memberDown = false
		_, list, err := searchList(ctx, rc, "/api/v1/namespaces/"+searchNamespace+"/pods", map[string]string{"clusters": "member1"})
		if err != nil || len(list.Items) != 5 || list.Items[0].GetAnnotations()[searchv1alpha1.AnnotationStale] != "" {
			t.Errorf("member1's pods: %v, %v; want 5, not stale", list, err)
		}
	})

	// searchPods waits until search holds exactly the members' pods of the namespace, of
	// the given members.
	searchPods := func(t *testing.T, members []string) {
		t.Helper()
		waitFor(t, time.Minute, func() error {
			want, err := f.memberPods(ctx, members, metav1.ListOptions{})
			if err != nil {
				return err
			}
			got, _, err := searchList(ctx, rc, "/api/v1/namespaces/"+searchNamespace+"/pods", nil)
			if err != nil {
				return err
			}
			if !slices.Equal(sorted(got), want) {
				return fmt.Errorf("search has %v, the members %v", got, want)
			}
			return nil
		})
	}

	t.Run("a registry deleted and made again at once, with the same name, caches again", func(t *testing.T) {
		registry := filepath.Join("..", "..", "artifacts", "examples", "search-registry.yaml")
		kubectl(t, theLab.Host.Kubeconfig, "delete", "-f", registry, "--wait=false")
		kubectl(t, theLab.Host.Kubeconfig, "apply", "-f", registry)
		searchPods(t, labMembers)
	})

	t.Run("an unjoined member's entries go, and come back when it joins again", func(t *testing.T) {
		m3 := theLab.Member("member3")
		t.Cleanup(func() {
			if err := theLab.JoinMembers(context.Background()); err != nil {
				t.Errorf("joining member3 again: %v", err)
			}
		})
		bin := buildKubectlFed(t)
		if _, stderr, err := runFed(bin, "unjoin", "member3", "--cluster-kubeconfig", m3.Kubeconfig); err != nil {
			t.Fatalf("kubectl fed unjoin member3: %v: %s", err, stderr)
		}
		searchPods(t, []string{"member1", "member2"})
		if err := theLab.JoinMembers(ctx); err != nil {
			t.Fatal(err)
		}
		searchPods(t, labMembers)
	})

	t.Run("deleting the registry removes its entries", func(t *testing.T) {
		if err := rrs.Delete(ctx, rr.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, func() error {
			_, _, err := searchList(ctx, rc, "/api/v1/pods", nil)
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("after deleting the registry: %v, want 404", err)
			}
			return nil
		})
	})
}

// fedMetrics is fed-apiserver's /metrics.
func fedMetrics(ctx context.Context) (string, error) {
	cfg, err := theLab.FedRESTConfig(theLab.FedServer())
	if err != nil {
		return "", err
	}
	return serverMetrics(ctx, cfg)
}

// serverMetrics is the /metrics of the server cfg names.
func serverMetrics(ctx context.Context, cfg *rest.Config) (string, error) {
	rc, err := rest.UnversionedRESTClientFor(withCodecs(cfg))
	if err != nil {
		return "", err
	}
	body, err := rc.Get().AbsPath("/metrics").DoRaw(ctx)
	return string(body), err
}

func searchDeployment(app string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": app}
	podLabels := map[string]string{"app": app}
	if app == "web" {
		podLabels["tier"] = "front"
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: app, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/" + app + ":1"}}},
			},
		},
	}
}
