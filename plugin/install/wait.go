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

package install

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
)

// podSelector selects fed-apiserver's pods (the chart's selector labels).
const podSelector = "app.kubernetes.io/name=fed-apiserver"

// APIServices are the names of the APIServices among objs.
func APIServices(objs []*unstructured.Unstructured) []string {
	var names []string
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == apiregistrationv1.SchemeGroupVersion.WithKind("APIService").GroupKind() {
			names = append(names, o.GetName())
		}
	}
	return names
}

// Waiter waits for fed's APIServices to be Available in the host.
type Waiter struct {
	APIServices apiregistrationclient.APIServiceInterface
	Client      kubernetes.Interface
	// Progress receives a line when an APIService is first looked at and when its
	// Available condition changes.
	Progress func(msg string)
	// Interval between two looks (1 s when 0).
	Interval time.Duration
}

// Wait returns once every APIService of names is Available, or an error at the timeout
// that says which are not, why, and how fed-apiserver's pods are.
func (w *Waiter) Wait(ctx context.Context, names []string, timeout time.Duration) error {
	interval := w.Interval
	if interval == 0 {
		interval = time.Second
	}
	state := map[string]string{}
	for _, n := range names {
		w.progress(fmt.Sprintf("Waiting for APIService %s ...", n))
	}
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		done := true
		for _, n := range names {
			s, err := w.availability(ctx, n)
			if err != nil {
				return false, err
			}
			if s != state[n] {
				state[n] = s
				w.progress(fmt.Sprintf("APIService %s: %s", n, s))
			}
			done = done && s == "Available"
		}
		return done, nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() == nil && !wait.Interrupted(err) {
		return err
	}
	var not []string
	for _, n := range names {
		if state[n] != "Available" {
			not = append(not, n+" ("+state[n]+")")
		}
	}
	msg := fmt.Sprintf("fed's APIServices are not Available after %s: %s", timeout, strings.Join(not, ", "))
	if pods := w.pods(ctx); pods != "" {
		msg += "\nfed-apiserver's pods: " + pods
	}
	msg += fmt.Sprintf("\nSee 'kubectl -n %s describe pods -l %s' and 'kubectl get apiservice %s -o yaml'; run init again to go on waiting.",
		Namespace, podSelector, names[0])
	return fmt.Errorf("%s", msg)
}

// availability is "Available", or "not Available" with the condition's reason and message.
func (w *Waiter) availability(ctx context.Context, name string) (string, error) {
	as, err := w.APIServices.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	for _, c := range as.Status.Conditions {
		if c.Type != apiregistrationv1.Available {
			continue
		}
		if c.Status == apiregistrationv1.ConditionTrue {
			return "Available", nil
		}
		s := "not Available"
		if c.Reason != "" {
			s += ", " + c.Reason
		}
		if c.Message != "" {
			s += ": " + c.Message
		}
		return s, nil
	}
	return "not Available yet (no condition)", nil
}

func (w *Waiter) progress(msg string) {
	if w.Progress != nil {
		w.Progress(msg)
	}
}

// pods says how fed-apiserver's pods are, for a wait that timed out ("" when they cannot
// be listed).
func (w *Waiter) pods(ctx context.Context) string {
	if w.Client == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	list, err := w.Client.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: podSelector})
	if err != nil {
		return ""
	}
	if len(list.Items) == 0 {
		return "none (see 'kubectl -n " + Namespace + " get events')"
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Name+" "+podState(&p))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// podState is a pod's phase, or why a container is waiting or not ready.
func podState(p *corev1.Pod) string {
	for _, c := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if w := c.State.Waiting; w != nil && w.Reason != "" {
			s := w.Reason
			if w.Message != "" {
				s += ": " + w.Message
			}
			return s
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue && c.Message != "" {
			return string(p.Status.Phase) + ", not scheduled: " + c.Message
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Running != nil && !c.Ready {
			return "Running, not ready"
		}
	}
	return string(p.Status.Phase)
}
