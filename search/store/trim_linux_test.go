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

package store

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// The pages of the cache's mapped files go out of RSS and what they hold stays readable.
func TestTrimMapped(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	defer s.Close()
	fill(t, s)
	before := fileRSS()
	if before == 0 {
		t.Skip("no RssFile in /proc/self/status")
	}
	trimmed, err := trimMapped(dir, 1)
	if errors.Is(err, unix.EINVAL) {
		t.Skip("the kernel has no MADV_PAGEOUT")
	}
	if err != nil || !trimmed {
		t.Fatalf("trimMapped = %v, %v; want true, nil", trimmed, err)
	}
	if trimmed, err := trimMapped(dir, 1<<62); trimmed || err != nil {
		t.Errorf("trimMapped under its budget = %v, %v; want false, nil", trimmed, err)
	}
	if got, _ := names(t, s, Query{Resource: pods}, 0, ""); len(got) != 24 {
		t.Errorf("%d objects after trimming, want 24", len(got))
	}
}
