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

package interpreter

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// podSpecPaths are where the workload kinds keep their pod spec.
var podSpecPaths = map[schema.GroupKind][]string{
	podKind:         {"spec"},
	deploymentKind:  {"spec", "template", "spec"},
	statefulSetKind: {"spec", "template", "spec"},
	daemonSetKind:   {"spec", "template", "spec"},
	replicaSetKind:  {"spec", "template", "spec"},
	jobKind:         {"spec", "template", "spec"},
	cronJobKind:     {"spec", "jobTemplate", "spec", "template", "spec"},
}

// dependency is a kind and name in the template's namespace.
type dependency struct{ kind, name string }

// Dependencies are the objects in the template's namespace that a workload template
// (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob) needs in every
// cluster it runs in, sorted by kind and name:
//
//   - ConfigMaps and Secrets of volumes (projected ones included), of the containers'
//     env and envFrom, of CSI and other volume drivers' secretRefs, and of
//     imagePullSecrets; optional ones as well, since they are used when they exist;
//   - the ServiceAccount, unless it is "default", which every namespace has;
//   - PersistentVolumeClaims of volumes. A StatefulSet's volumeClaimTemplates are not
//     dependencies: each member creates its own claims from them.
//
// Other kinds, and templates whose pod spec cannot be read, have none.
func Dependencies(template *unstructured.Unstructured) []federationv1alpha1.ObjectReference {
	if template == nil {
		return nil
	}
	path, ok := podSpecPaths[template.GroupVersionKind().GroupKind()]
	if !ok {
		return nil
	}
	raw, _, _ := unstructured.NestedFieldNoCopy(template.Object, path...)
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	var spec corev1.PodSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &spec); err != nil {
		return nil
	}
	deps := podSpecDependencies(&spec)
	slices.SortFunc(deps, func(a, b dependency) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.name, b.name))
	})
	deps = slices.Compact(deps)
	var out []federationv1alpha1.ObjectReference
	for _, d := range deps {
		if d.name == "" {
			continue
		}
		out = append(out, federationv1alpha1.ObjectReference{
			APIVersion: "v1",
			Kind:       d.kind,
			Namespace:  template.GetNamespace(),
			Name:       d.name,
		})
	}
	return out
}

// podSpecDependencies lists the objects a pod spec names, with repeats and empty names.
func podSpecDependencies(spec *corev1.PodSpec) []dependency {
	var deps []dependency
	configMap := func(name string) { deps = append(deps, dependency{"ConfigMap", name}) }
	secret := func(name string) { deps = append(deps, dependency{"Secret", name}) }
	secretRef := func(ref *corev1.LocalObjectReference) {
		if ref != nil {
			secret(ref.Name)
		}
	}

	for _, v := range spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			configMap(v.ConfigMap.Name)
		case v.Secret != nil:
			secret(v.Secret.SecretName)
		case v.PersistentVolumeClaim != nil:
			deps = append(deps, dependency{"PersistentVolumeClaim", v.PersistentVolumeClaim.ClaimName})
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					configMap(src.ConfigMap.Name)
				}
				if src.Secret != nil {
					secret(src.Secret.Name)
				}
			}
		case v.CSI != nil:
			secretRef(v.CSI.NodePublishSecretRef)
		case v.AzureFile != nil:
			secret(v.AzureFile.SecretName)
		case v.CephFS != nil:
			secretRef(v.CephFS.SecretRef)
		case v.Cinder != nil:
			secretRef(v.Cinder.SecretRef)
		case v.FlexVolume != nil:
			secretRef(v.FlexVolume.SecretRef)
		case v.ISCSI != nil:
			secretRef(v.ISCSI.SecretRef)
		case v.RBD != nil:
			secretRef(v.RBD.SecretRef)
		case v.ScaleIO != nil:
			secretRef(v.ScaleIO.SecretRef)
		case v.StorageOS != nil:
			secretRef(v.StorageOS.SecretRef)
		}
	}

	envs := func(env []corev1.EnvVar, envFrom []corev1.EnvFromSource) {
		for _, e := range env {
			if e.ValueFrom == nil {
				continue
			}
			if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
				configMap(ref.Name)
			}
			if ref := e.ValueFrom.SecretKeyRef; ref != nil {
				secret(ref.Name)
			}
		}
		for _, e := range envFrom {
			if e.ConfigMapRef != nil {
				configMap(e.ConfigMapRef.Name)
			}
			if e.SecretRef != nil {
				secret(e.SecretRef.Name)
			}
		}
	}
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		envs(c.Env, c.EnvFrom)
	}
	for _, c := range spec.EphemeralContainers {
		envs(c.Env, c.EnvFrom)
	}

	for _, s := range spec.ImagePullSecrets {
		secret(s.Name)
	}
	// serviceAccount is the deprecated spelling of serviceAccountName.
	if sa := cmp.Or(spec.ServiceAccountName, spec.DeprecatedServiceAccount); sa != "default" {
		deps = append(deps, dependency{"ServiceAccount", sa})
	}
	return deps
}
