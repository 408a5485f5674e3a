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

package overridepolicies

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apiserver/registry/internal/registrytest"
)

func TestStrategy(t *testing.T) {
	registrytest.CheckStrategy(t, Strategy, registrytest.OverridePolicy())
}

func TestColumns(t *testing.T) {
	registrytest.CheckColumns(t, columns, registrytest.OverridePolicy())
}

// TestStrategyRecordsAuthor: the author is whoever created the policy or last changed its
// spec; a write of anything else, a forged annotation included, keeps the recorded one.
func TestStrategyRecordsAuthor(t *testing.T) {
	as := func(name string, groups ...string) context.Context {
		return request.WithUser(context.Background(), &user.DefaultInfo{Name: name, Groups: groups})
	}
	author := func(p *federation.OverridePolicy) string {
		a, err := policy.AuthorOf(p)
		if err != nil {
			return "none: " + err.Error()
		}
		return a.User + " " + strings.Join(a.Groups, ",")
	}
	c := registrytest.OverridePolicy()
	p := c.Valid()
	p.Annotations = map[string]string{federationv1alpha1.AnnotationAuthor: `{"user":"mallory"}`}
	Strategy.PrepareForCreate(as("alice", "team-a"), p)
	if got := author(p); got != "alice team-a" {
		t.Fatalf("after alice's create: %q", got)
	}

	labelled := p.DeepCopy()
	labelled.Labels = map[string]string{"x": "y"}
	labelled.Annotations[federationv1alpha1.AnnotationAuthor] = `{"user":"carol","groups":["system:masters"]}`
	Strategy.PrepareForUpdate(as("carol"), labelled, p)
	if got := author(labelled); got != "alice team-a" {
		t.Errorf("after carol's label and forged annotation: %q, want alice's kept", got)
	}

	changed := labelled.DeepCopy()
	c.ChangeSpec(changed)
	delete(changed.Annotations, federationv1alpha1.AnnotationAuthor)
	Strategy.PrepareForUpdate(as("bob"), changed, labelled)
	if got := author(changed); got != "bob " {
		t.Errorf("after bob's change of the spec: %q", got)
	}

	bare := c.Valid()
	stripped := bare.DeepCopy()
	stripped.Labels = map[string]string{"x": "y"}
	Strategy.PrepareForUpdate(as("carol"), stripped, bare)
	if _, err := policy.AuthorOf(stripped); err == nil {
		t.Errorf("a policy stored without an author got one from a write of its labels: %v", stripped.Annotations)
	}
}
