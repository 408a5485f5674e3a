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

package detector

import (
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
	"github.com/fedhq/fed/controllers/internal/templates"
)

// growingMapper is a RESTMapper that learns kinds while the test runs, as the fleet's
// discovery serves a CRD's kind once fed-apiserver has read the CRD.
type growingMapper struct {
	mu sync.Mutex
	*meta.DefaultRESTMapper
}

func (m *growingMapper) Reset() {}

func (m *growingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.DefaultRESTMapper.RESTMapping(gk, versions...)
}

func (m *growingMapper) add(gvk schema.GroupVersionKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.DefaultRESTMapper.Add(gvk, meta.RESTScopeNamespace)
}

// TestEnqueueRefUnmappedKind: a binding whose template's kind the fleet does not serve yet
// (right after a start) has its template looked at once the kind is served, not never.
func TestEnqueueRefUnmappedKind(t *testing.T) {
	mapper := &growingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper(nil)}
	c := &Controller{templates: templates.New(nil, mapper), queue: reconciler.NewQueue[key]("detector-test")}
	defer c.queue.ShutDown()
	c.enqueueRef(federationv1alpha1.ObjectReference{APIVersion: "soak.example.com/v1", Kind: "Widget", Namespace: "ns", Name: "t3"})
	if c.queue.Len() != 0 {
		t.Fatal("a key of a kind not served")
	}
	mapper.add(schema.GroupVersionKind{Group: "soak.example.com", Version: "v1", Kind: "Widget"})
	deadline := time.Now().Add(5 * time.Second)
	for c.queue.Len() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the template was not looked at once its kind was served")
		}
		time.Sleep(20 * time.Millisecond)
	}
	k, _ := c.queue.Get()
	if want := (key{GVR: schema.GroupVersionResource{Group: "soak.example.com", Version: "v1", Resource: "widgets"}, Namespace: "ns", Name: "t3"}); k != want {
		t.Errorf("queued %v, want %v", k, want)
	}
}
