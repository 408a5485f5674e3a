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
	"time"

	"github.com/robfig/cron/v3"
)

// lookBack bounds how far back a rule's missed runs are looked for: only the latest one
// runs, and one older than this is as good as none.
const lookBack = 48 * time.Hour

// missed returns the latest time sched fired in (after, now], if it did, and the next
// time it fires after now. The times are in loc, as the schedule reads them.
func missed(sched cron.Schedule, after, now time.Time, loc *time.Location) (last time.Time, ok bool, next time.Time) {
	if floor := now.Add(-lookBack); after.Before(floor) {
		after = floor
	}
	t := sched.Next(after.In(loc))
	for !t.IsZero() && !t.After(now) {
		last, ok = t, true
		t = sched.Next(t)
	}
	return last, ok, t
}

// parse reads a rule's schedule in its time zone ("" for the server's).
func parse(schedule, timeZone string) (cron.Schedule, *time.Location, error) {
	loc := time.Local
	if timeZone != "" {
		var err error
		if loc, err = time.LoadLocation(timeZone); err != nil {
			return nil, nil, err
		}
	}
	sched, err := cron.ParseStandard(schedule)
	if err != nil {
		return nil, nil, err
	}
	return sched, loc, nil
}
