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

package v1alpha1

import "testing"

func TestWorkName(t *testing.T) {
	if got := WorkName("default", "nginx-deployment"); got != "default.nginx-deployment" {
		t.Errorf("WorkName = %s", got)
	}
	if got := WorkName("", "guestbooks.webapp.my.domain-customresourcedefinition"); got != "guestbooks.webapp.my.domain-customresourcedefinition" {
		t.Errorf("WorkName = %s", got)
	}
	if got := BindingKey("default", "nginx-deployment"); got != "default/nginx-deployment" {
		t.Errorf("BindingKey = %s", got)
	}
}
