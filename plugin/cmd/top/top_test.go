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

package top

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fedhq/fed/internal/golden"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	metricsapi "k8s.io/metrics/pkg/apis/metrics"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

func usage(cpu, memory string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
}

func nodeMetrics(name, cpu, memory string) metricsv1beta1.NodeMetrics {
	return metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: name}, Usage: usage(cpu, memory)}
}

func node(name, cpu, memory string) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: usage(cpu, memory)}}
}

func podMetrics(ns, name string, containers ...metricsv1beta1.ContainerMetrics) metricsv1beta1.PodMetrics {
	return metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Containers: containers}
}

func container(name, cpu, memory string) metricsv1beta1.ContainerMetrics {
	return metricsv1beta1.ContainerMetrics{Name: name, Usage: usage(cpu, memory)}
}

// The canned metrics of the lab's members: member1 has one node, member2 three (one whose
// metrics are not there yet), member3 a node of the same name as member1's. Within a
// member, the orders by name, CPU and memory differ.
var (
	topNodeMetrics = map[string][]metricsv1beta1.NodeMetrics{
		"member1": {nodeMetrics("node-0", "1250m", "3Gi")},
		"member2": {nodeMetrics("member2-node-0", "50m", "256Mi"), nodeMetrics("member2-node-2", "400m", "128Mi")},
		"member3": {nodeMetrics("node-0", "3", "40Gi")},
	}
	topNodes = map[string][]corev1.Node{
		"member1": {node("node-0", "4", "8Gi")},
		"member2": {node("member2-node-0", "8", "16Gi"), node("member2-node-1", "8", "16Gi"), node("member2-node-2", "8", "16Gi")},
		"member3": {node("node-0", "16", "64Gi")},
	}
	topPodMetrics = map[string][]metricsv1beta1.PodMetrics{
		"member1": {
			podMetrics("shop", "web-6d4b-x2x9", container("nginx", "12m", "30Mi"), container("sidecar", "1m", "8Mi")),
			podMetrics("shop", "api-5c7f-q8rt", container("api", "250m", "512Mi")),
			podMetrics("shop", "cache-8b9d-k4zt", container("redis", "5m", "600Mi")),
		},
		"member2": {
			podMetrics("shop", "web-9f8c-pp2m", container("nginx", "40m", "28Mi"), container("sidecar", "55m", "9Mi")),
			podMetrics("kube-system", "coredns-7db6-4xk2", container("coredns", "3m", "17Mi")),
		},
	}
)

// topNodeResults are the members' node usage, as the printer gets it.
func topNodeResults(t *testing.T) []fleet.MemberResult[*nodeUsage] {
	var results []fleet.MemberResult[*nodeUsage]
	for _, c := range []string{"member1", "member2", "member3"} {
		u, err := newNodeUsage(&metricsv1beta1.NodeMetricsList{Items: topNodeMetrics[c]}, topNodes[c])
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, fleet.MemberResult[*nodeUsage]{Cluster: c, Value: u})
	}
	return results
}

// topPodResults are the members' pod metrics of namespace ("" for all), as the printer
// gets them; member3 failed and is left out.
func topPodResults(t *testing.T, namespace string) []fleet.MemberResult[[]metricsapi.PodMetrics] {
	var results []fleet.MemberResult[[]metricsapi.PodMetrics]
	for _, c := range []string{"member1", "member2"} {
		list := &metricsv1beta1.PodMetricsList{}
		for _, m := range topPodMetrics[c] {
			if namespace == "" || m.Namespace == namespace {
				list.Items = append(list.Items, m)
			}
		}
		pods, err := toPodMetrics(list)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, fleet.MemberResult[[]metricsapi.PodMetrics]{Cluster: c, Value: pods})
	}
	return append(results, fleet.MemberResult[[]metricsapi.PodMetrics]{Cluster: "member3", Err: errors.New("Metrics API not available")})
}

func TestTopNodeGolden(t *testing.T) {
	for _, c := range []struct {
		name      string
		noHeaders bool
		sortBy    string
	}{
		{name: "node"},
		{name: "node-sort-by-cpu", sortBy: "cpu"},
		{name: "node-no-headers-sort-by-memory", noHeaders: true, sortBy: "memory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := printNodeUsage(&out, topNodeResults(t), c.noHeaders, c.sortBy); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "top-"+c.name+".txt", out.Bytes())
		})
	}
}

func TestTopPodGolden(t *testing.T) {
	for _, c := range []struct {
		name                 string
		allNamespaces        bool
		containers, noHeader bool
		sortBy               string
	}{
		{name: "pod"},
		{name: "pod-all-namespaces", allNamespaces: true},
		{name: "pod-containers", containers: true},
		{name: "pod-all-namespaces-containers-sort-by-cpu", allNamespaces: true, containers: true, sortBy: "cpu"},
		{name: "pod-no-headers-sort-by-memory", noHeader: true, sortBy: "memory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := "shop"
			if c.allNamespaces {
				ns = ""
			}
			var out bytes.Buffer
			if err := printPodUsage(&out, topPodResults(t, ns), c.containers, c.allNamespaces, c.noHeader, c.sortBy); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "top-"+c.name+".txt", out.Bytes())
		})
	}
}

// fakeHost answers as a fed host would: the Clusters, and each member's metrics.k8s.io and
// nodes through the cluster proxy. member3 has no metrics-server.
func fakeHost(t *testing.T) *httptest.Server {
	const proxy = "/apis/cluster.fedhq.io/v1alpha1/clusters/"
	write := func(w http.ResponseWriter, code int, obj any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if err := json.NewEncoder(w).Encode(obj); err != nil {
			t.Error(err)
		}
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == strings.TrimSuffix(proxy, "/") {
			list := &clusterv1alpha1.ClusterList{TypeMeta: metav1.TypeMeta{APIVersion: "cluster.fedhq.io/v1alpha1", Kind: "ClusterList"}}
			for _, name := range []string{"member1", "member2", "member3"} {
				list.Items = append(list.Items, clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}})
			}
			write(w, http.StatusOK, list)
			return
		}
		cluster, path, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, proxy), "/proxy/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		if cluster == "member3" && strings.HasPrefix(path, "apis/metrics.k8s.io/") {
			write(w, http.StatusServiceUnavailable, &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
				Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable, Reason: metav1.StatusReasonServiceUnavailable,
				Message: "the server is currently unable to handle the request"})
			return
		}
		switch path {
		case "apis/metrics.k8s.io/v1beta1/nodes":
			write(w, http.StatusOK, &metricsv1beta1.NodeMetricsList{TypeMeta: metav1.TypeMeta{APIVersion: "metrics.k8s.io/v1beta1", Kind: "NodeMetricsList"}, Items: topNodeMetrics[cluster]})
		case "api/v1/nodes":
			write(w, http.StatusOK, &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"}, Items: topNodes[cluster]})
		case "apis/metrics.k8s.io/v1beta1/namespaces/shop/pods":
			var items []metricsv1beta1.PodMetrics
			for _, m := range topPodMetrics[cluster] {
				if m.Namespace == "shop" {
					items = append(items, m)
				}
			}
			write(w, http.StatusOK, &metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{APIVersion: "metrics.k8s.io/v1beta1", Kind: "PodMetricsList"}, Items: items})
		default:
			http.NotFound(w, r)
		}
	}))
}

// TestTopCommand runs kubectl fed top against a fake host: the members that answer are
// printed, the one without metrics is a warning, and the command fails naming it.
func TestTopCommand(t *testing.T) {
	srv := fakeHost(t)
	defer srv.Close()
	for _, c := range []struct {
		args   []string
		golden string
	}{
		{args: []string{"top", "node"}, golden: "top-node-command.txt"},
		{args: []string{"top", "pod", "-n", "shop"}, golden: "top-pod-command.txt"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			streams, _, out, errOut := genericiooptions.NewTestIOStreams()
			cmd := cmdline.NewRootWith(streams, NewCmdTop)
			cmd.SetArgs(append(c.args, "--server", srv.URL, "--kubeconfig", "/dev/null", "--cache-dir", t.TempDir()))
			err := cmd.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), "member3") {
				t.Errorf("error %v, want one naming member3", err)
			}
			if want := "Warning: cluster member3: Metrics API not available"; !strings.Contains(errOut.String(), want) {
				t.Errorf("standard error %q lacks %q", errOut, want)
			}
			golden.Check(t, c.golden, out.Bytes())
		})
	}
}

func TestTopFlags(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(false)
	for _, args := range [][]string{
		{"pod", "web", "-l", "app=web"},
		{"node", "--sort-by", "name"},
	} {
		cmd := NewCmdTop(flags, genericiooptions.NewTestIOStreamsDiscard())
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); err == nil {
			t.Errorf("top %v: no error", args)
		}
	}
}
