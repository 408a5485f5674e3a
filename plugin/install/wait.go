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
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	"k8s.io/kubectl/pkg/polymorphichelpers"
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

// Waiter waits until fed-apiserver has rolled out and the host serves fed's APIs.
type Waiter struct {
	*Host
	APIServices apiregistrationclient.APIServiceInterface
	// Progress receives a line when something is first looked at and when its state
	// changes.
	Progress func(msg string)
	// Interval between two looks (1 s when 0).
	Interval time.Duration
}

// Wait returns once the workloads among objs (fed-apiserver's StatefulSet or Deployment)
// have rolled out, as kubectl rollout status says, and every APIService among them is
// Available; at the timeout it returns an error that says which are not, why, and how
// fed-apiserver's pods are. A rollout is waited for too because after an upgrade the
// APIServices are still Available from the old pods.
func (w *Waiter) Wait(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration) error {
	interval := w.Interval
	if interval == 0 {
		interval = time.Second
	}
	type item struct {
		name  string
		look  func(context.Context) (string, bool, error)
		state string
		done  bool
	}
	var items []*item
	for _, o := range objs {
		if viewer, err := polymorphichelpers.StatusViewerFor(o.GroupVersionKind().GroupKind()); err == nil {
			items = append(items, &item{name: Ref(o), look: func(ctx context.Context) (string, bool, error) {
				got, err := w.get(ctx, o)
				if err != nil || got == nil {
					return "not found", false, err
				}
				msg, done, err := viewer.Status(got, 0)
				return strings.TrimSpace(msg), done, err
			}})
		}
	}
	for _, n := range APIServices(objs) {
		items = append(items, &item{name: "APIService " + n, look: func(ctx context.Context) (string, bool, error) {
			s, err := w.availability(ctx, n)
			return s, s == "Available", err
		}})
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.name
	}
	w.progress(fmt.Sprintf("Waiting up to %s for %s ...", timeout, strings.Join(names, ", ")))
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(context.Context) (bool, error) {
		// The requests get a deadline of their own: the poll's would make a client's rate
		// limiter refuse them just before it.
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		all := true
		for _, it := range items {
			if it.done {
				continue
			}
			s, done, err := it.look(rctx)
			if err != nil {
				return false, fmt.Errorf("%s: %w", it.name, err)
			}
			if s != it.state || done {
				it.state, it.done = s, done
				w.progress(it.name + ": " + s)
			}
			all = all && done
		}
		return all, nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil || !wait.Interrupted(err) {
		return err
	}
	msg := fmt.Sprintf("fed is not ready after %s:", timeout)
	for _, it := range items {
		if !it.done {
			msg += "\n  " + it.name + ": " + it.state
		}
	}
	if pods := w.pods(ctx); pods != "" {
		msg += "\nfed-apiserver's pods: " + pods
	}
	msg += fmt.Sprintf("\nSee 'kubectl -n %s describe pods -l %s' and 'kubectl get apiservices %s'; run init again to go on waiting.",
		Namespace, podSelector, strings.Join(APIServices(objs), " "))
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
