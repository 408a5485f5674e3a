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

package apply

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// The fleet's apply is kubectl's: its flags, and its errors before any server is asked.
func TestApplyIsKubectlApply(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(false)
	cmd := NewCmdApply(flags, genericiooptions.IOStreams{In: os.Stdin, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	for _, f := range []string{"filename", "recursive", "server-side", "dry-run", "prune", "kustomize", "force-conflicts", "field-manager"} {
		if cmd.Flags().Lookup(f) == nil {
			t.Errorf("no --%s", f)
		}
	}
	if !strings.Contains(cmd.Long, federationv1alpha1.FleetPath) {
		t.Errorf("the help does not name the fleet path:\n%s", cmd.Long)
	}
}
