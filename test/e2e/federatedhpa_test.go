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
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFederatedHPA is the seed's walkthrough on the lab: nginx Divided over member1 and
// member2, a FederatedHPA with a 10% CPU target and 10 s stabilization windows; the usage
// kwok simulates (the pods' kwok.x-k8s.io/usage-cpu annotation, set in the template) goes
// up to 80% of the request (100m here, not the seed's 25m, so that the idle usage kwok can
// simulate is well under the target), and the FederatedHPA scales the template to 10, which the
// scheduler divides over both members; it goes down to next to nothing, and the FederatedHPA
// scales down to 1. Its status, conditions and events say each step.
func TestFederatedHPA(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, labels: {app: nginx}}
spec:
  replicas: 1
  selector: {matchLabels: {app: nginx}}
  template:
    metadata:
      labels: {app: nginx}
      annotations: {kwok.x-k8s.io/usage-cpu: 1m}
    spec:
      containers:
      - name: nginx
        image: nginx
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 100m, memory: 64Mi}}
`
	kubectlStdin(t, fleet, deployment+`---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx-propagation}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - targetCluster: {clusterNames: [member1]}
          weight: 1
        - targetCluster: {clusterNames: [member2]}
          weight: 1
---
apiVersion: federation.fedhq.io/v1alpha1
kind: FederatedHPA
metadata: {name: nginx}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: nginx}
  minReplicas: 1
  maxReplicas: 10
  behavior:
    scaleDown: {stabilizationWindowSeconds: 10}
    scaleUp: {stabilizationWindowSeconds: 10}
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 10}}
`, "apply", "-n", ns, "-f", "-")

	// usage sets the CPU every pod uses (a patch of the pod template only: an apply of the
	// manifest would also set its replicas back, as with an HPA).
	usage := func(cpu string) {
		t.Helper()
		kubectl(t, fleet, "patch", "deploy", "nginx", "-n", ns, "--type=merge", "-p",
			`{"spec":{"template":{"metadata":{"annotations":{"kwok.x-k8s.io/usage-cpu":"`+cpu+`"}}}}}`)
	}
	// replicas waits until the template asks for want replicas and the members run them.
	replicas := func(want int, timeout time.Duration) {
		t.Helper()
		waitFor(t, timeout, func() error {
			out, err := runKubectl(fleet, "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.spec.replicas}")
			if err != nil {
				return err
			}
			fhpa, _ := runKubectl(fleet, "get", "fhpa", "nginx", "-n", ns, "-o",
				`jsonpath={.status.currentMetrics[0].resource.current.averageUtilization}%/{.status.desiredReplicas} {.status.conditions[*].reason}`)
			if out != strconv.Itoa(want) {
				return fmt.Errorf("the template asks for %s replicas, want %d (FederatedHPA: %s)", out, want, fhpa)
			}
			members := []string{"member1", "member2"}
			counts, err := memberDeploymentReplicas(ns, "nginx", members...)
			if err != nil {
				return err
			}
			total := 0
			for _, m := range members {
				if want > 1 && counts[m] == 0 {
					return fmt.Errorf("%s runs none of the %d replicas", m, want)
				}
				total += counts[m]
			}
			if total != want {
				return fmt.Errorf("the members run %d replicas, want %d", total, want)
			}
			return nil
		})
	}

	t.Run("up to 10 when the usage rises", func(t *testing.T) {
		replicas(1, time.Minute)
		usage("80m")
		// A new pod's CPU rate needs two scrapes of metrics-server (10 s apart), then a sync
		// period (15 s); the default scale-up policy adds 4 pods or doubles per 15 s.
		replicas(10, 4*time.Minute)
		out := kubectl(t, fleet, "get", "fhpa", "nginx", "-n", ns, "-o",
			`jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason};{end}`)
		for _, want := range []string{"AbleToScale=True/", "ScalingActive=True/ValidMetricFound", "ScalingLimited=True/TooManyReplicas"} {
			if !strings.Contains(out, want) {
				t.Errorf("conditions %s, want %s", out, want)
			}
		}
		if out := kubectl(t, fleet, "get", "fhpa", "nginx", "-n", ns); !strings.Contains(out, "REPLICAS") {
			t.Errorf("kubectl get fhpa:\n%s", out)
		}
	})

	t.Run("down to 1 when it falls", func(t *testing.T) {
		// Next to no load (metrics-server drops a pod whose CPU is 0): 1m, which
		// metrics-server reports as 1–2m, 2% of the request, takes any count down to 1.
		usage("1m")
		replicas(1, 4*time.Minute)
	})

	t.Run("events", func(t *testing.T) {
		out := kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.kind=FederatedHPA,reason=SuccessfulRescale",
			"-o", "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}")
		for _, want := range []string{
			"New size: 10; reason: cpu resource utilization (percentage of request) above target",
			"New size: 1; reason: All metrics below target",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("events:\n%s\nwant %q", out, want)
			}
		}
	})
}

// TestCronFederatedHPA runs two CronFederatedHPAs every minute: one sets a Deployment
// template's replicas to 5, the other a FederatedHPA's bounds; each records its run in
// its execution history.
func TestCronFederatedHPA(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	kubectlStdin(t, fleet, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 25m}}}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: FederatedHPA
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 10
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch}
spec:
  replicas: 1
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec: {containers: [{name: batch, image: nginx}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: CronFederatedHPA
metadata: {name: batch-cronfhpa}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: batch}
  rules:
  - name: scale-up
    schedule: "*/1 * * * *"
    targetReplicas: 5
---
apiVersion: federation.fedhq.io/v1alpha1
kind: CronFederatedHPA
metadata: {name: web-cronfhpa}
spec:
  scaleTargetRef: {apiVersion: federation.fedhq.io/v1alpha1, kind: FederatedHPA, name: web}
  rules:
  - name: business-hours
    schedule: "*/1 * * * *"
    timeZone: Asia/Shanghai
    targetMinReplicas: 2
    targetMaxReplicas: 6
`, "apply", "-n", ns, "-f", "-")

	// The next minute comes within 60 s; the run follows at once.
	waitFor(t, 90*time.Second, func() error {
		replicas, err := runKubectl(fleet, "get", "deploy", "batch", "-n", ns, "-o", "jsonpath={.spec.replicas}")
		if err != nil || replicas != "5" {
			return fmt.Errorf("batch has %s replicas, want 5 (%v)", replicas, err)
		}
		bounds, err := runKubectl(fleet, "get", "fhpa", "web", "-n", ns, "-o", "jsonpath={.spec.minReplicas}/{.spec.maxReplicas}")
		if err != nil || bounds != "2/6" {
			return fmt.Errorf("FederatedHPA web has bounds %s, want 2/6 (%v)", bounds, err)
		}
		return nil
	})
	waitFor(t, 10*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "cronfhpa", "batch-cronfhpa", "-n", ns, "-o",
			`jsonpath={.status.executionHistories[0].ruleName} {.status.executionHistories[0].successfulExecutions[0].appliedReplicas} {.status.executionHistories[0].nextExecutionTime}`)
		if err != nil {
			return err
		}
		if f := strings.Fields(out); len(f) != 3 || f[0] != "scale-up" || f[1] != "5" {
			return fmt.Errorf("batch-cronfhpa's history: %q, want rule scale-up applied 5 and its next run", out)
		}
		out, err = runKubectl(fleet, "get", "cronfhpa", "web-cronfhpa", "-n", ns, "-o",
			`jsonpath={.status.executionHistories[0].successfulExecutions[0].appliedMinReplicas}/{.status.executionHistories[0].successfulExecutions[0].appliedMaxReplicas}`)
		if err != nil || out != "2/6" {
			return fmt.Errorf("web-cronfhpa's history: %q (%v), want 2/6 applied", out, err)
		}
		return nil
	})
	if out := kubectl(t, fleet, "get", "cronfhpa", "-n", ns); !strings.Contains(out, "batch-cronfhpa") || !strings.Contains(out, "REFERENCE-KIND") {
		t.Errorf("kubectl get cronfhpa:\n%s", out)
	}

	// A second FederatedHPA on web: neither scales, both say why.
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: FederatedHPA
metadata: {name: web-2}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
`, "apply", "-n", ns, "-f", "-")
	waitFor(t, 30*time.Second, func() error {
		for _, name := range []string{"web", "web-2"} {
			out, err := runKubectl(fleet, "get", "fhpa", name, "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}`)
			if err != nil || out != "AmbiguousSelector" {
				return fmt.Errorf("FederatedHPA %s: ScalingActive reason %q (%v), want AmbiguousSelector", name, out, err)
			}
		}
		return nil
	})
}

// TestMemberHPANotFought propagates a Deployment with an HPA template beside it: fed marks
// the Deployment's template to leave its replicas to the members, so the HPA in member1
// scales it (to its minimum, 3) and fed does not set the template's 2 back; without the HPA
// template the mark goes and the template's replicas apply again.
func TestMemberHPANotFought(t *testing.T) {
	t.Parallel()
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	hpa := `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 3
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
`
	kubectlStdin(t, fleet, `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: nginx, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: api}
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: api}
  - {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, name: api}
  placement: {clusterAffinity: {clusterNames: [member1]}}
---
`+hpa, "apply", "-n", ns, "-f", "-")

	memberReplicas := func() string {
		counts, err := memberDeploymentReplicas(ns, "api", "member1")
		if err != nil {
			return err.Error()
		}
		return strconv.Itoa(counts["member1"])
	}
	waitFor(t, time.Minute, func() error {
		label, err := runKubectl(fleet, "get", "deploy", "api", "-n", ns, "-o", `jsonpath={.metadata.labels.federation\.fedhq\.io/retain-replicas}`)
		if err != nil || label != "true" {
			return fmt.Errorf("the template's retain-replicas label: %q (%v), want true", label, err)
		}
		if r := memberReplicas(); r != "3" {
			return fmt.Errorf("member1 runs %q replicas, want the member HPA's minimum, 3", r)
		}
		return nil
	})
	// fed re-applies on any drift of what it manages: give it the time to, and see that it
	// leaves the HPA's count alone.
	time.Sleep(10 * time.Second)
	if r := memberReplicas(); r != "3" {
		t.Fatalf("member1 runs %q replicas after 10 s, want still 3: fed fought the member's HPA", r)
	}
	if r := kubectl(t, fleet, "get", "deploy", "api", "-n", ns, "-o", "jsonpath={.spec.replicas}"); r != "2" {
		t.Errorf("the template asks for %s replicas, want its own 2", r)
	}

	kubectl(t, fleet, "delete", "hpa", "api", "-n", ns)
	waitFor(t, time.Minute, func() error {
		label, err := runKubectl(fleet, "get", "deploy", "api", "-n", ns, "-o", `jsonpath={.metadata.labels.federation\.fedhq\.io/retain-replicas}`)
		if err != nil || label != "" {
			return fmt.Errorf("the template's retain-replicas label: %q (%v), want none", label, err)
		}
		if r := memberReplicas(); r != "2" {
			return fmt.Errorf("member1 runs %q replicas, want the template's 2 again", r)
		}
		return nil
	})
}

// memberDeploymentReplicas is the spec.replicas of Deployment ns/name in each of the
// members, 0 where a member has none (the scheduler gives it no replica).
func memberDeploymentReplicas(ns, name string, members ...string) (map[string]int, error) {
	counts := map[string]int{}
	for _, m := range members {
		out, err := runKubectl(theLab.Member(m).Kubeconfig, "get", "deploy", name, "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.replicas}")
		if err != nil && !strings.Contains(err.Error(), "NotFound") {
			return nil, fmt.Errorf("%s: %v", m, err)
		}
		counts[m], _ = strconv.Atoi(out)
	}
	return counts, nil
}
