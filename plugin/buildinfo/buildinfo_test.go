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

package buildinfo

import "testing"

func TestMajorMinor(t *testing.T) {
	for v, want := range map[string][2]string{
		"v1.2.3":                 {"1", "2"},
		"v0.10.0-rc.1":           {"0", "10"},
		"v2.3.4-5-gabcdef-dirty": {"2", "3"},
		"1.5+meta":               {"1", "5"},
		"dev":                    {"", ""},
		"v1":                     {"", ""},
		"vx.1.0":                 {"", ""},
	} {
		major, minor, ok := MajorMinor(v)
		if major != want[0] || minor != want[1] || ok != (want[0] != "") {
			t.Errorf("MajorMinor(%q) = %q, %q, %v; want %q", v, major, minor, ok, want)
		}
	}
}

func TestClientVersionDefaultsToDev(t *testing.T) {
	if gitVersion != "" {
		t.Skip("built with a version")
	}
	if v := Version(); v.GitVersion != "dev" || v.GoVersion == "" || v.Platform == "" {
		t.Errorf("Version() = %+v", v)
	}
}
