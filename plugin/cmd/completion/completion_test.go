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

package completion

import (
	"os"
	"testing"
)

// The release archives ship hack/kubectl_complete-fed; it must be the script documented.
func TestCompletionScriptShipped(t *testing.T) {
	data, err := os.ReadFile("../../../hack/kubectl_complete-fed")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != CompletionScript {
		t.Errorf("hack/kubectl_complete-fed differs from CompletionScript:\n%s", data)
	}
	fi, err := os.Stat("../../../hack/kubectl_complete-fed")
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("hack/kubectl_complete-fed is not executable: %v", err)
	}
}
