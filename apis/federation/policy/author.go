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

package policy

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// Author is the user who last wrote a policy's spec (federationv1alpha1.AnnotationAuthor),
// as fed-apiserver authenticated them: fed writes to members what the policy makes of a
// template only when its author may create that in the host.
type Author struct {
	User   string   `json:"user"`
	Groups []string `json:"groups,omitempty"`
}

// String is the annotation's value.
func (a Author) String() string {
	raw, _ := json.Marshal(a) // strings only: cannot fail
	return string(raw)
}

// AuthorOf reads the author recorded on a policy; an error says why there is none.
func AuthorOf(obj metav1.Object) (Author, error) {
	v, ok := obj.GetAnnotations()[federationv1alpha1.AnnotationAuthor]
	if !ok {
		return Author{}, fmt.Errorf("no author is recorded on it (annotation %s): write it again (kubectl apply) so that fed knows whose rights it carries",
			federationv1alpha1.AnnotationAuthor)
	}
	var a Author
	if err := json.Unmarshal([]byte(v), &a); err != nil || a.User == "" {
		return Author{}, fmt.Errorf("its annotation %s is not an author fed recorded: write it again (kubectl apply)", federationv1alpha1.AnnotationAuthor)
	}
	return a, nil
}
