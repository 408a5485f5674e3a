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
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// warnings collects the warnings of the fleet's answers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// fleetRaw reads a path of the fleet API as JSON into out, and returns its warnings.
func fleetRaw(t *testing.T, path string, out any) []string {
	t.Helper()
	cfg, err := clientConfigFor(theLab.FleetKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	w := &warnings{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = w
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, query, _ := strings.Cut(path, "?")
	req := dc.RESTClient().Get().AbsPath(p)
	params, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range params {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	raw, err := req.Do(context.Background()).Raw()
	if err != nil {
		t.Fatalf("GET %s: %v (%s)", path, err, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, raw)
	}
	return w.take()
}

// memberPods are the names of the pods of a Deployment in each member.
func memberPods(t *testing.T, ns, app string, members ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, m := range members {
		names := kubectl(t, theLab.Member(m).Kubeconfig, "get", "pods", "-n", ns, "-l", "app="+app, "-o", "jsonpath={.items[*].metadata.name}")
		out[m] = strings.Fields(names)
	}
	return out
}

// metricList is a custom.metrics.k8s.io/v1beta2 or external.metrics.k8s.io answer, read
// loosely.
type metricList struct {
	Items []struct {
		DescribedObject struct{ Name string } `json:"describedObject"`
		Metric          struct {
			Selector *metav1.LabelSelector `json:"selector"`
		} `json:"metric"`
		MetricLabels map[string]string `json:"metricLabels"`
		Value        resource.Quantity `json:"value"`
	} `json:"items"`
}

// TestFleetCustomMetrics checks custom.metrics.k8s.io and external.metrics.k8s.io in the
// fleet, passed through from member1 and member2 (which run the test adapter of
// custom-metrics-apiserver) with member3 (which serves neither) named in a warning, and
// FederatedHPAs scaling on Pods, Object and External metrics.
func TestFleetCustomMetrics(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	ctx := context.Background()
	kubectlStdin(t, fleet, dividedDeployment("web", 4)+dividedDeployment("api", 2)+dividedDeployment("worker", 2), "apply", "-n", ns, "-f", "-")
	members := []string{"member1", "member2"}
	var pods map[string][]string
	waitFor(t, time.Minute, func() error {
		pods = memberPods(t, ns, "web", members...)
		if len(pods["member1"]) != 2 || len(pods["member2"]) != 2 {
			return fmt.Errorf("web's pods: %v, want 2 in each of member1 and member2", pods)
		}
		return nil
	})
	for _, m := range members {
		for _, p := range pods[m] {
			if err := theLab.Member(m).WriteCustomMetric(ctx, ns, "pods", p, "http_requests", resource.MustParse("200m")); err != nil {
				t.Fatal(err)
			}
		}
	}
	// api's requests per second: 15 in each member, 30 in the fleet.
	for _, m := range members {
		if err := theLab.Member(m).WriteCustomMetric(ctx, ns, "deployments.apps", "api", "requests", resource.MustParse("15")); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("pass-through", func(t *testing.T) {
		base := "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns
		var list metricList
		warned := fleetRaw(t, base+"/pods/*/http_requests?labelSelector=app%3Dweb", &list)
		var got []string
		for _, it := range list.Items {
			got = append(got, it.Metric.Selector.MatchLabels["cluster.fedhq.io/cluster"]+"/"+it.DescribedObject.Name+"="+it.Value.String())
		}
		slices.Sort(got)
		var want []string
		for _, m := range members {
			for _, p := range pods[m] {
				want = append(want, m+"/"+p+"=200m")
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("web's http_requests in the fleet: %v, want %v", got, want)
		}
		if !slices.ContainsFunc(warned, func(w string) bool {
			return strings.Contains(w, "cluster member3 does not serve custom.metrics.k8s.io")
		}) {
			t.Errorf("warnings %q do not name member3, which serves no custom metrics", warned)
		}

		// The cluster label in the metric selector picks the members asked.
		warned = fleetRaw(t, base+"/pods/*/http_requests?labelSelector=app%3Dweb&metricLabelSelector=cluster.fedhq.io%2Fcluster%3Dmember2", &list)
		if len(list.Items) != 2 || len(warned) != 0 {
			t.Errorf("member2's values: %d items, warnings %q; want 2 and none", len(list.Items), warned)
		}

		// An object named: the sum of its members' values; in v1beta1 as well.
		for _, version := range []string{"v1beta2", "v1beta1"} {
			fleetRaw(t, "/apis/custom.metrics.k8s.io/"+version+"/namespaces/"+ns+"/deployments.apps/api/requests", &list)
			if len(list.Items) != 1 || list.Items[0].Value.Value() != 30 {
				t.Errorf("%s: api's requests %+v, want 30 (15 in each member)", version, list.Items)
			}
		}

		// External metrics: every member's series, labelled with its member.
		fleetRaw(t, "/apis/external.metrics.k8s.io/v1beta1/namespaces/"+ns+"/my-external-metric?labelSelector=foo%3Dbar", &list)
		got = nil
		for _, it := range list.Items {
			got = append(got, it.MetricLabels["cluster.fedhq.io/cluster"]+"="+it.Value.String())
		}
		slices.Sort(got)
		if want := []string{"member1=42", "member2=42"}; !slices.Equal(got, want) {
			t.Errorf("my-external-metric: %v, want %v", got, want)
		}

		// The same through the fleet proxy.
		raw := kubectl(t, theLab.Host.Kubeconfig, "get", "--raw",
			"/apis/search.fedhq.io/v1alpha1/proxying/fleet/proxy/apis/external.metrics.k8s.io/v1beta1/namespaces/"+ns+"/my-external-metric?labelSelector=foo%3Dbar")
		if err := json.Unmarshal([]byte(raw), &list); err != nil || len(list.Items) != 2 {
			t.Errorf("my-external-metric through the fleet proxy: %v, %s; want 2 items", err, raw)
		}

		// Discovery lists the groups.
		out := kubectl(t, fleet, "api-versions")
		for _, gv := range []string{"custom.metrics.k8s.io/v1beta2", "custom.metrics.k8s.io/v1beta1", "external.metrics.k8s.io/v1beta1"} {
			if !strings.Contains(out, gv+"\n") {
				t.Errorf("kubectl api-versions lacks %s", gv)
			}
		}
	})

	// Each FederatedHPA below settles at a count its metric fixes.
	autoscale := func(t *testing.T, name, metric string, want int, step func()) {
		t.Helper()
		kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: FederatedHPA
metadata: {name: %[1]s}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %[1]s}
  minReplicas: 1
  maxReplicas: 10
  behavior:
    scaleUp: {stabilizationWindowSeconds: 0}
    scaleDown: {stabilizationWindowSeconds: 0}
  metrics:
%s`, name, metric), "apply", "-n", ns, "-f", "-")
		settle := func(want int) {
			t.Helper()
			waitFor(t, 90*time.Second, func() error {
				out, err := runKubectl(fleet, "get", "fhpa", name, "-n", ns, "-o",
					`jsonpath={.status.desiredReplicas} {.status.conditions[?(@.type=="ScalingActive")].reason}: {.status.conditions[?(@.type=="ScalingActive")].message}`)
				if err != nil {
					return err
				}
				replicas, err := runKubectl(fleet, "get", "deploy", name, "-n", ns, "-o", "jsonpath={.spec.replicas}")
				if err != nil {
					return err
				}
				if replicas != strconv.Itoa(want) {
					return fmt.Errorf("%s asks for %s replicas, want %d (FederatedHPA: %s)", name, replicas, want, out)
				}
				return nil
			})
		}
		settle(want)
		if step != nil {
			step()
		}
	}

	// The three FederatedHPAs run side by side.
	t.Run("FederatedHPAs", func(t *testing.T) {
		t.Run("on a Pods metric", func(t *testing.T) {
			t.Parallel()
			// 4 pods at 200m against 100m: 8. The 4 new pods have no value; on a scale-up
			// they count as 0, which brings the average back to the target: it stays at 8.
			autoscale(t, "web", `  - type: Pods
    pods:
      metric: {name: http_requests}
      target: {type: AverageValue, averageValue: 100m}
`, 8, nil)
			time.Sleep(16 * time.Second) // a sync period
			out := kubectl(t, fleet, "get", "fhpa", "web", "-n", ns, "-o", "jsonpath={.status.currentMetrics[0].pods.current.averageValue} {.status.desiredReplicas}")
			if out != "200m 8" {
				t.Errorf("a sync period later: current average and desired replicas %q, want \"200m 8\"", out)
			}
			out = kubectl(t, fleet, "get", "fhpa", "web", "-n", ns)
			if !strings.Contains(out, "200m/100m") {
				t.Errorf("kubectl get fhpa's TARGETS does not show the pods metric:\n%s", out)
			}
			events := kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=web,reason=SuccessfulRescale", "-o", "jsonpath={.items[*].message}")
			if !strings.Contains(events, "pods metric http_requests above target") {
				t.Errorf("rescale events %q do not name the pods metric", events)
			}
		})
		t.Run("on an Object metric", func(t *testing.T) {
			t.Parallel()
			// api's requests in the fleet are 30; 5 per replica asks for 6.
			autoscale(t, "api", `  - type: Object
    object:
      describedObject: {apiVersion: apps/v1, kind: Deployment, name: api}
      metric: {name: requests}
      target: {type: AverageValue, averageValue: "5"}
`, 6, nil)
		})
		t.Run("on an External metric", func(t *testing.T) {
			t.Parallel()
			// my-external-metric{foo=bar} is 42 in each member that runs worker: 84 against
			// 20 per replica asks for 5.
			autoscale(t, "worker", `  - type: External
    external:
      metric: {name: my-external-metric, selector: {matchLabels: {foo: bar}}}
      target: {type: AverageValue, averageValue: "20"}
`, 5, nil)
		})
	})

	workerReplicas := func(want string, why string) func() error {
		return func() error {
			replicas, err := runKubectl(fleet, "get", "deploy", "worker", "-n", ns, "-o", "jsonpath={.spec.replicas}")
			if err != nil || replicas != want {
				return fmt.Errorf("worker asks for %s replicas, want %s %s (%v)", replicas, want, why, err)
			}
			return nil
		}
	}
	t.Run("a member's adapter down holds a scale-down back", func(t *testing.T) {
		// Without member2's share, the total (42) would ask for 3: fed keeps 5 until it can
		// read member2 again, and says why.
		const adapter = "member2-custom-metrics-adapter"
		if err := theLab.StopProcess(adapter); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := theLab.StartProcess(adapter); err != nil {
				t.Error(err)
			}
		}()
		waitFor(t, 60*time.Second, func() error {
			events, err := runKubectl(fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=worker,reason=ScaleDownHeldBack", "-o", "jsonpath={.items[*].message}")
			if err != nil || !strings.Contains(events, "member2") {
				return fmt.Errorf("no ScaleDownHeldBack event naming member2: %q %v", events, err)
			}
			return nil
		})
		if err := workerReplicas("5", "while member2's share cannot be read")(); err != nil {
			t.Error(err)
		}
	})
	t.Run("the cluster label in a metric's selector picks the members", func(t *testing.T) {
		kubectl(t, fleet, "patch", "fhpa", "worker", "-n", ns, "--type=json", "-p",
			`[{"op":"add","path":"/spec/metrics/0/external/metric/selector/matchLabels/cluster.fedhq.io~1cluster","value":"member1"}]`)
		waitFor(t, 60*time.Second, workerReplicas("3", "once the metric names member1 only (42 against 20 per replica)"))
	})
}

// dividedDeployment is a Deployment template of nginx pods labelled app=NAME, and its
// PropagationPolicy dividing the replicas 1:1 over member1 and member2.
func dividedDeployment(name string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, labels: {app: %[1]s}}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers:
      - {name: app, image: nginx, resources: {requests: {cpu: 10m, memory: 16Mi}}}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: %[1]s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: %[1]s}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [member1]}, weight: 1}
        - {targetCluster: {clusterNames: [member2]}, weight: 1}
---
`, name, replicas)
}
