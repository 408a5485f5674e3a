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

package cronfederatedhpa

import (
	"testing"
	"time"
)

func TestMissed(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, schedule, tz string
		after, now         time.Time
		wantLast           time.Time
		wantOK             bool
		wantNext           time.Time
	}{
		{name: "every minute, one due", schedule: "*/1 * * * *", after: at("2026-11-25T10:00:30Z"), now: at("2026-11-25T10:01:10Z"),
			wantLast: at("2026-11-25T10:01:00Z"), wantOK: true, wantNext: at("2026-11-25T10:02:00Z")},
		{name: "every minute, none yet", schedule: "*/1 * * * *", after: at("2026-11-25T10:01:00Z"), now: at("2026-11-25T10:01:59Z"),
			wantNext: at("2026-11-25T10:02:00Z")},
		{name: "several missed: the latest", schedule: "*/5 * * * *", after: at("2026-11-25T10:00:00Z"), now: at("2026-11-25T10:17:00Z"),
			wantLast: at("2026-11-25T10:15:00Z"), wantOK: true, wantNext: at("2026-11-25T10:20:00Z")},
		{name: "in a time zone: 9:00 in Shanghai is 1:00 UTC", schedule: "0 9 * * *", tz: "Asia/Shanghai",
			after: at("2026-11-25T00:00:00Z"), now: at("2026-11-25T01:00:05Z"),
			wantLast: at("2026-11-25T01:00:00Z"), wantOK: true, wantNext: at("2026-11-26T01:00:00Z")},
		{name: "a run older than the look-back does not count", schedule: "0 0 1 1 *", after: at("2020-01-01T00:00:00Z"), now: at("2026-11-25T10:00:00Z"),
			wantNext: at("2027-01-01T00:00:00Z")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sched, loc, err := parse(tc.schedule, tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			if tc.tz != "" && loc.String() != shanghai.String() {
				t.Fatalf("location %s", loc)
			}
			last, ok, next := missed(sched, tc.after, tc.now, loc)
			if ok != tc.wantOK || (ok && !last.Equal(tc.wantLast)) {
				t.Errorf("last %v (%v), want %v (%v)", last, ok, tc.wantLast, tc.wantOK)
			}
			if !next.Equal(tc.wantNext) {
				t.Errorf("next %v, want %v", next, tc.wantNext)
			}
		})
	}
}
