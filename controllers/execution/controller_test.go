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

package execution

import (
	"net/http"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedhq/fed/controllers/internal/applied"
	"github.com/fedhq/fed/controllers/internal/trim"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func object(labels, annotations map[string]string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("apps/v1")
	obj.SetKind("Deployment")
	obj.SetName("web")
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
	return obj
}

func TestFedMade(t *testing.T) {
	manifest := object(nil, map[string]string{federationv1alpha1.AnnotationTemplateUID: "u-1"})
	for _, tc := range []struct {
		name    string
		current *unstructured.Unstructured
		want    bool
	}{
		{"managed by fed", object(map[string]string{federationv1alpha1.LabelManaged: "true"}, nil), true},
		{"created by someone else", object(map[string]string{"app": "web"}, nil), false},
		{"released by fed, same template", object(nil, map[string]string{federationv1alpha1.AnnotationTemplateUID: "u-1"}), true},
		{"released by fed, another template", object(nil, map[string]string{federationv1alpha1.AnnotationTemplateUID: "u-2"}), false},
		{"label not true", object(map[string]string{federationv1alpha1.LabelManaged: "false"}, nil), false},
	} {
		if got := fedMade(tc.current, manifest); got != tc.want {
			t.Errorf("%s: fedMade = %v, want %v", tc.name, got, tc.want)
		}
		// The same from the metadata an informer keeps, which is what fed looks at first.
		kept, err := trim.Compact(tc.current.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		if got := fedMade(kept.(metav1.Object), manifest); got != tc.want {
			t.Errorf("%s, kept compact: fedMade = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	d := object(nil, nil)
	d.SetGeneration(3)
	d.SetResourceVersion("99")
	if got := version(d); got != "3" {
		t.Errorf("version of a Deployment = %s, want its generation", got)
	}
	cm := object(nil, nil)
	cm.SetResourceVersion("99")
	if got := version(cm); got != "99" {
		t.Errorf("version of an object without generation = %s, want its resourceVersion", got)
	}
}

// TestResumeVersions: after a restart, fed takes the versions it applied from the Work's
// status, but only from a status that says this generation is applied.
func TestResumeVersions(t *testing.T) {
	work := func(generation, observed int64, status metav1.ConditionStatus) *federationv1alpha1.Work {
		w := &federationv1alpha1.Work{}
		w.Generation = generation
		w.Spec.Workload.Manifests = []runtime.RawExtension{{}, {}}
		w.Status.Conditions = []metav1.Condition{{Type: federationv1alpha1.WorkConditionApplied, Status: status, ObservedGeneration: observed}}
		w.Status.ManifestStatuses = []federationv1alpha1.ManifestStatus{
			{Identifier: federationv1alpha1.ResourceIdentifier{Ordinal: 1}, AppliedVersion: "7"},
			{Identifier: federationv1alpha1.ResourceIdentifier{Ordinal: 0}, AppliedVersion: "3"},
		}
		return w
	}
	if got := statusVersion(work(2, 2, metav1.ConditionTrue), 1); got != "7" {
		t.Errorf("applied at this generation: version %v, want 7", got)
	}
	if got := statusVersion(work(3, 2, metav1.ConditionTrue), 1); got != nil {
		t.Errorf("applied at an older generation: version %v, want none", got)
	}
	if got := statusVersion(work(2, 2, metav1.ConditionFalse), 1); got != nil {
		t.Errorf("not applied: version %v, want none", got)
	}
	w := work(2, 2, metav1.ConditionTrue)
	if got := recordedVersions(w, applied.Result{}); !slices.Equal(got, []string{"3", "7"}) {
		t.Errorf("recorded versions from the status = %v", got)
	}
	if got := recordedVersions(w, applied.Result{Generation: 2, Versions: []string{"4", "7"}}); !slices.Equal(got, []string{"4", "7"}) {
		t.Errorf("recorded versions of this process = %v", got)
	}
}

// TestCleanable: a member being unjoined is cleaned up while it is Ready, for a minute;
// one not Ready, or leaving for longer, keeps what is left.
func TestCleanable(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	leaving := func(ready metav1.ConditionStatus, since time.Duration) *clusterv1alpha1.Cluster {
		c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m", DeletionTimestamp: &metav1.Time{Time: now.Add(-since)}}}
		c.Status.Conditions = []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: ready}}
		return c
	}
	for _, tc := range []struct {
		ready metav1.ConditionStatus
		since time.Duration
		want  bool
	}{
		{metav1.ConditionTrue, time.Second, true},
		{metav1.ConditionTrue, 59 * time.Second, true},
		{metav1.ConditionTrue, time.Minute, false},
		{metav1.ConditionFalse, time.Second, false},
		{metav1.ConditionUnknown, time.Second, false},
	} {
		if got := cleanable(leaving(tc.ready, tc.since), now); got != tc.want {
			t.Errorf("Ready %s, leaving for %s: cleanable %v, want %v", tc.ready, tc.since, got, tc.want)
		}
	}
}

func TestNotServed(t *testing.T) {
	gr := schema.GroupResource{Group: "cleanup.example.com", Resource: "gadgets"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the object is not there", apierrors.NewNotFound(gr, "g"), false},
		{"the resource is not served", apierrors.NewGenericServerResponse(http.StatusNotFound, "get", gr, "g", "404 page not found", 0, true), true},
		{"no error", nil, false},
		{"another error", apierrors.NewGenericServerResponse(http.StatusServiceUnavailable, "get", gr, "g", "unavailable", 0, true), false},
	} {
		if got := notServed(tc.err); got != tc.want {
			t.Errorf("%s: notServed(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
