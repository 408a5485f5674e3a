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

package credentials

import (
	"encoding/base64"
	"fmt"
	"testing"
	"time"
)

// jwt is a token with the claims iat and exp (and an unchecked signature).
func jwt(issued, expires time.Time) []byte {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"aud":["https://kubernetes.default.svc"],"exp":%d,"iat":%d,"sub":"system:serviceaccount:fed-system:fed"}`, expires.Unix(), issued.Unix())
	return []byte(enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(claims)) + ".c2ln")
}

func TestRenewal(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, tc := range []struct {
		name  string
		token []byte
		// recorded is the Secret's expiry, now when fed looks.
		recorded, now time.Time
		wantDue       bool
		wantRenewAt   time.Time
		wantTTL       time.Duration
	}{
		{name: "a day's token just issued waits 16 hours", token: jwt(t0, t0.Add(day)), recorded: t0.Add(day), now: t0,
			wantRenewAt: t0.Add(16 * time.Hour), wantTTL: day},
		{name: "a day's token at 15h59m is not due", token: jwt(t0, t0.Add(day)), recorded: t0.Add(day), now: t0.Add(16*time.Hour - time.Minute),
			wantRenewAt: t0.Add(16 * time.Hour), wantTTL: day},
		{name: "a day's token at two thirds of its life is due", token: jwt(t0, t0.Add(day)), recorded: t0.Add(day), now: t0.Add(16 * time.Hour),
			wantDue: true, wantRenewAt: t0.Add(16 * time.Hour), wantTTL: day},
		{name: "an expired token is due (fed tries; the member says whether it still works)", token: jwt(t0, t0.Add(day)), recorded: t0.Add(day), now: t0.Add(2 * day),
			wantDue: true, wantRenewAt: t0.Add(16 * time.Hour), wantTTL: day},
		{name: "a token the member capped at an hour is renewed after 40 minutes, for an hour", token: jwt(t0, t0.Add(time.Hour)), recorded: t0.Add(time.Hour), now: t0.Add(30 * time.Minute),
			wantRenewAt: t0.Add(40 * time.Minute), wantTTL: time.Hour},
		{name: "the recorded expiry wins: a minute left of a day's token is due now", token: jwt(t0, t0.Add(day)), recorded: t0.Add(time.Minute), now: t0,
			wantDue: true, wantRenewAt: t0.Add(time.Minute - 8*time.Hour), wantTTL: day},
		{name: "a week's token is renewed 56 hours before it expires", token: jwt(t0, t0.Add(7*day)), recorded: t0.Add(7 * day), now: t0.Add(4 * day),
			wantRenewAt: t0.Add(7*day - 56*time.Hour), wantTTL: 7 * day},
		{name: "a token without claims lives DefaultTTL", token: []byte("opaque"), recorded: t0.Add(9 * time.Hour), now: t0,
			wantRenewAt: t0.Add(time.Hour), wantTTL: DefaultTTL},
		{name: "claims that do not parse count as none", token: []byte("a.b!.c"), recorded: t0.Add(day), now: t0.Add(17 * time.Hour),
			wantDue: true, wantRenewAt: t0.Add(16 * time.Hour), wantTTL: DefaultTTL},
		{name: "claims that end before they start count as none", token: jwt(t0, t0.Add(-time.Hour)), recorded: t0.Add(day), now: t0,
			wantRenewAt: t0.Add(16 * time.Hour), wantTTL: DefaultTTL},
		{name: "a new token is asked for at least 10 minutes", token: jwt(t0, t0.Add(3*time.Minute)), recorded: t0.Add(3 * time.Minute), now: t0.Add(2 * time.Minute),
			wantDue: true, wantRenewAt: t0.Add(2 * time.Minute), wantTTL: 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			times := timesOf(tc.token, tc.recorded)
			if got := times.renewAt(); !got.Equal(tc.wantRenewAt) {
				t.Errorf("renewAt %s, want %s", got, tc.wantRenewAt)
			}
			if got := times.due(tc.now); got != tc.wantDue {
				t.Errorf("due at %s: %v, want %v", tc.now, got, tc.wantDue)
			}
			if got := times.ttl(); got != tc.wantTTL {
				t.Errorf("ttl %s, want %s", got, tc.wantTTL)
			}
		})
	}
}
