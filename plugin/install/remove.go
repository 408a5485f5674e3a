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

	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// InstalledObjects are the objects an install of the chart may have made in the host, in
// either storage mode and with any number of replicas, except the Namespace: what deinit
// deletes, in the order Helm uninstalls (the APIServices first, so that the host stops
// sending requests to fed-apiserver before it goes).
func InstalledObjects() ([]*unstructured.Unstructured, error) {
	certs := placeholderCerts
	var all []*unstructured.Unstructured
	seen := map[string]bool{}
	for _, s := range []Settings{
		{Storage: StorageBadger, Certs: certs},
		{Storage: StorageEtcd3, EtcdServers: []string{"https://etcd:2379"}, Replicas: 2, Certs: certs},
	} {
		objs, err := Render(s)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			key := o.GroupVersionKind().String() + "/" + o.GetNamespace() + "/" + o.GetName()
			if o.GetKind() == "Namespace" || seen[key] {
				continue
			}
			seen[key] = true
			all = append(all, o)
		}
	}
	slices.SortStableFunc(all, func(a, b *unstructured.Unstructured) int {
		return kindIndex(a.GetKind()) - kindIndex(b.GetKind())
	})
	return all, nil
}

// kindIndex is a kind's place in Helm's uninstall order; kinds it does not list go last.
func kindIndex(kind string) int {
	if i := slices.Index(releaseutil.UninstallOrder, kind); i >= 0 {
		return i
	}
	return len(releaseutil.UninstallOrder)
}

// DryRun of a deletion: none, the server's (nothing is deleted, the server checks), or the
// client's (the objects that exist are reported, nothing is sent).
type DryRun int

const (
	NoDryRun DryRun = iota
	ServerDryRun
	ClientDryRun
)

// Delete deletes the objects of objs that exist in the host, in order, and reports them;
// the others are skipped. It stops at the first error: run again, it goes on.
func (h *Host) Delete(ctx context.Context, objs []*unstructured.Unstructured, dryRun DryRun) ([]Result, error) {
	var results []Result
	for _, obj := range objs {
		got, err := h.get(ctx, obj)
		if err != nil {
			return results, err
		}
		if got == nil {
			continue
		}
		if dryRun != ClientDryRun {
			ri, _, err := h.resource(obj, obj.GetNamespace())
			if err != nil {
				return results, err
			}
			opts := metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
			if dryRun == ServerDryRun {
				opts.DryRun = []string{metav1.DryRunAll}
			}
			if err := ri.Delete(ctx, obj.GetName(), opts); err != nil && !apierrors.IsNotFound(err) {
				return results, fmt.Errorf("%s: %w", Ref(obj), err)
			}
		}
		results = append(results, Result{Object: got, Operation: Deleted})
	}
	return results, nil
}

// WaitGone waits until none of objs is left in the host (a namespace is deleted only once
// the host's namespace controller emptied it), polling each in turn. At ctx's end it names
// those still there.
func (h *Host) WaitGone(ctx context.Context, objs []*unstructured.Unstructured) error {
	for _, obj := range objs {
		err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := h.get(ctx, obj)
			return got == nil, err
		})
		if err != nil {
			return fmt.Errorf("%s is still being deleted: %w", Ref(obj), err)
		}
	}
	return nil
}

// NamespaceObject is the chart's Namespace.
func NamespaceObject() *unstructured.Unstructured {
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(Namespace)
	return ns
}

// Remains is what stays in the namespace after the install's objects go: fed's data.
type Remains struct {
	// Namespace tells whether the namespace exists.
	Namespace bool
	// Volumes are the PersistentVolumeClaims of fed-apiserver's Badger database.
	Volumes []string
	// Secrets are the other Secrets: the members' credentials that kubectl fed join
	// wrote, and any the user put there (etcd's client certificates, say).
	Secrets []string
	// EtcdServers and EtcdPrefix are where an etcd3 install keeps fed's objects.
	EtcdServers, EtcdPrefix string
}

// Remaining looks at what deleting objs leaves in the namespace.
func (h *Host) Remaining(ctx context.Context, objs []*unstructured.Unstructured) (*Remains, error) {
	r := &Remains{}
	ns, err := h.get(ctx, NamespaceObject())
	if err != nil || ns == nil {
		return r, err
	}
	r.Namespace = true
	deleted := map[string]bool{}
	for _, o := range objs {
		deleted[o.GetKind()+"/"+o.GetName()] = true
	}
	list := func(kind string) ([]unstructured.Unstructured, error) {
		ri, _, err := h.resource(typed("v1", kind), Namespace)
		if err != nil {
			return nil, err
		}
		l, err := ri.List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	}
	pvcs, err := list("PersistentVolumeClaim")
	if err != nil {
		return nil, err
	}
	for _, p := range pvcs {
		r.Volumes = append(r.Volumes, p.GetName())
	}
	secrets, err := list("Secret")
	if err != nil {
		return nil, err
	}
	for _, s := range secrets {
		if !deleted["Secret/"+s.GetName()] && s.Object["type"] != string(corev1.SecretTypeServiceAccountToken) {
			r.Secrets = append(r.Secrets, s.GetName())
		}
	}
	r.EtcdServers, r.EtcdPrefix, err = h.etcdStorage(ctx)
	return r, err
}

func typed(apiVersion, kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

// etcdStorage reads --etcd-servers and --etcd-prefix of an etcd3 install's Deployment.
func (h *Host) etcdStorage(ctx context.Context) (servers, prefix string, err error) {
	d := typed("apps/v1", "Deployment")
	d.SetNamespace(Namespace)
	d.SetName("fed-apiserver")
	got, err := h.get(ctx, d)
	if err != nil || got == nil {
		return "", "", err
	}
	var dep appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got.Object, &dep); err != nil {
		return "", "", err
	}
	for _, c := range dep.Spec.Template.Spec.Containers {
		for _, a := range c.Args {
			if v, ok := strings.CutPrefix(a, "--etcd-servers="); ok {
				servers = v
			}
			if v, ok := strings.CutPrefix(a, "--etcd-prefix="); ok {
				prefix = v
			}
		}
	}
	return servers, prefix, nil
}
