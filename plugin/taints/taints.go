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

// Package taints parses and applies the taint changes of `kubectl fed taint clusters`, by
// kubectl taint's rules, and the cordon taint of `kubectl fed cordon`.
package taints

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// The operations `taint` reports, as `kubectl taint nodes` does.
const (
	OpTainted   = "tainted"
	OpUntainted = "untainted"
	OpModified  = "modified"
)

// Cordon is the taint that keeps new placements off a cordoned cluster.
var Cordon = corev1.Taint{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// k8s.io/kubectl/pkg/cmd/taint keeps its parser unexported and works on Nodes only, so the
// same rules are implemented here for the effects a Cluster supports.

// IsChange says whether a command-line argument is a taint change rather than a name,
// by kubectl's rule: it contains '=' or ':', or ends with '-'.
func IsChange(s string) bool {
	return strings.Contains(s, "=") || strings.Contains(s, ":") || strings.HasSuffix(s, "-")
}

// Parse splits taint arguments into taints to add (key[=value]:Effect) and taints to
// remove (key[:Effect]-), checking each as kubectl does.
func Parse(specs []string) (add, remove []corev1.Taint, err error) {
	seen := map[string]bool{}
	for _, spec := range specs {
		if s, ok := strings.CutSuffix(spec, "-"); ok {
			t, err := parseTaint(s)
			if err != nil {
				return nil, nil, err
			}
			remove = append(remove, corev1.Taint{Key: t.Key, Effect: t.Effect})
			continue
		}
		t, err := parseTaint(spec)
		if err != nil {
			return nil, nil, err
		}
		if t.Effect == "" {
			return nil, nil, fmt.Errorf("invalid taint spec: %v", spec)
		}
		id := t.Key + ":" + string(t.Effect)
		if seen[id] {
			return nil, nil, fmt.Errorf("duplicated taints with the same key and effect: %v", t)
		}
		seen[id] = true
		add = append(add, t)
	}
	return add, remove, nil
}

// parseTaint parses key=value:Effect, key:Effect or key.
func parseTaint(spec string) (corev1.Taint, error) {
	var t corev1.Taint
	parts := strings.Split(spec, ":")
	switch len(parts) {
	case 1:
		t.Key = parts[0]
	case 2:
		t.Effect = corev1.TaintEffect(parts[1])
		if err := validateTaintEffect(t.Effect); err != nil {
			return corev1.Taint{}, err
		}
		kv := strings.Split(parts[0], "=")
		if len(kv) > 2 {
			return corev1.Taint{}, fmt.Errorf("invalid taint spec: %v", spec)
		}
		t.Key = kv[0]
		if len(kv) == 2 {
			t.Value = kv[1]
			if errs := validation.IsValidLabelValue(t.Value); len(errs) > 0 {
				return corev1.Taint{}, fmt.Errorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
			}
		}
	default:
		return corev1.Taint{}, fmt.Errorf("invalid taint spec: %v", spec)
	}
	if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
		return corev1.Taint{}, fmt.Errorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
	}
	return t, nil
}

// validateTaintEffect accepts the effects a Cluster supports; PreferNoSchedule, which
// kubectl accepts for nodes, has no meaning for fed's scheduler and is refused.
func validateTaintEffect(effect corev1.TaintEffect) error {
	if effect != corev1.TaintEffectNoSchedule && effect != corev1.TaintEffectNoExecute {
		return fmt.Errorf("invalid taint effect: %v, unsupported taint effect (a cluster supports %s and %s)",
			effect, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)
	}
	return nil
}

// Conflicts refuses to add and remove the same taint in one command.
func Conflicts(add, remove []corev1.Taint) error {
	var conflicts []string
	for _, a := range add {
		for _, r := range remove {
			if a.Key == r.Key && (r.Effect == "" || a.Effect == r.Effect) {
				conflicts = append(conflicts, fmt.Sprintf("%s=%s", r.Key, r.Effect))
			}
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("can not both modify and remove the following taint(s) in the same command: %s", strings.Join(conflicts, ", "))
	}
	return nil
}

// Apply computes a cluster's new taints from its current ones and returns the
// operation to report: "tainted", "untainted" or "modified" (any --overwrite, or adding and
// removing at once). Without overwrite, adding a key:effect the cluster has is an error;
// removing a taint the cluster does not have is an error. New NoExecute taints get now as
// their TimeAdded.
func Apply(name string, old, add, remove []corev1.Taint, overwrite bool, now time.Time) (string, []corev1.Taint, error) {
	if !overwrite {
		var exists []string
		for _, a := range add {
			for _, o := range old {
				if a.MatchTaint(&o) {
					exists = append(exists, a.Key)
				}
			}
		}
		if len(exists) > 0 {
			return "", nil, fmt.Errorf("cluster %s already has %s taint(s) with same effect(s) and --overwrite is false", name, strings.Join(exists, ","))
		}
	}

	taints := make([]corev1.Taint, 0, len(add)+len(old))
	for _, a := range add {
		if a.Effect == corev1.TaintEffectNoExecute && a.TimeAdded == nil {
			a.TimeAdded = ptr.To(metav1.NewTime(now))
		}
		taints = append(taints, a)
	}
	for _, o := range old {
		if !matchesAny(o, add) {
			taints = append(taints, o)
		}
	}
	added := len(taints) != len(old)

	var errs []error
	deleted := false
	for _, r := range remove {
		kept := taints[:0:0]
		for _, t := range taints {
			if t.Key == r.Key && (r.Effect == "" || t.Effect == r.Effect) {
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == len(taints) {
			errs = append(errs, fmt.Errorf("taint %q not found", r.ToString()))
			continue
		}
		deleted = true
		taints = kept
	}
	if len(errs) > 0 {
		return "", nil, utilerrors.NewAggregate(errs)
	}

	switch {
	case (added && deleted) || overwrite:
		return OpModified, taints, nil
	case added:
		return OpTainted, taints, nil
	default:
		return OpUntainted, taints, nil
	}
}

func matchesAny(t corev1.Taint, list []corev1.Taint) bool {
	for i := range list {
		if t.MatchTaint(&list[i]) {
			return true
		}
	}
	return false
}

// SetCordoned adds (cordon) or removes the cordon taint and returns the operation to
// report: "cordoned", "already cordoned", "uncordoned" or "already uncordoned".
func SetCordoned(taints []corev1.Taint, cordon bool) (string, []corev1.Taint, bool) {
	has := matchesAny(Cordon, taints)
	switch {
	case cordon && has:
		return "already cordoned", taints, false
	case cordon:
		return "cordoned", append(append([]corev1.Taint(nil), taints...), Cordon), true
	case !has:
		return "already uncordoned", taints, false
	}
	kept := make([]corev1.Taint, 0, len(taints))
	for _, t := range taints {
		if !t.MatchTaint(&Cordon) {
			kept = append(kept, t)
		}
	}
	return "uncordoned", kept, true
}
