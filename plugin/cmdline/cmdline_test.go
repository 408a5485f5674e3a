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

package cmdline

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

func TestErrorMessage(t *testing.T) {
	nf := apierrors.NewNotFound(clusterv1alpha1.Resource("clusters"), "x")
	if got, want := ErrorMessage(fmt.Errorf("wrapped: %w", nf)), `error: wrapped: clusters.cluster.fedhq.io "x" not found`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := ErrorMessage(nf), `Error from server (NotFound): clusters.cluster.fedhq.io "x" not found`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := ErrorMessage(errors.New("boom")), "error: boom"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
