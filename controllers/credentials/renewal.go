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
	"encoding/json"
	"strings"
	"time"
)

const (
	// DefaultTTL is the lifetime fed assumes for a token whose claims do not say how long
	// it lives: kubectl fed join's default --token-ttl.
	DefaultTTL = 24 * time.Hour
	// minTTL is the shortest token the TokenRequest API gives.
	minTTL = 10 * time.Minute
)

// tokenTimes is what fed knows of a token's life.
//
// A token is renewed once less than a third of its lifetime is left before the expiry the
// Secret records: at two thirds of its life, 16 hours into join's default of a day. The
// kubelet renews the projected tokens of pods later, at 80%, but it runs beside the API
// server it asks; fed asks over a network, of a member that may be down for hours, and the
// third it keeps in hand (8 hours of a day's token) is its time to try again before the
// member is cut off.
type tokenTimes struct {
	// Issued and Expires are the token's own claims (iat and exp), zero when it has none.
	Issued, Expires time.Time
	// Recorded is the expiry the Secret records (AnnotationTokenExpiration), which fed
	// trusts over the claims: it says when the token must have been replaced.
	Recorded time.Time
}

// lifetime is how long the token was issued for, from its claims, or DefaultTTL when
// they do not say. A new token is asked for as long (at least minTTL).
func (t tokenTimes) lifetime() time.Duration {
	if t.Issued.IsZero() || !t.Expires.After(t.Issued) {
		return DefaultTTL
	}
	return t.Expires.Sub(t.Issued)
}

// ttl is the lifetime asked for the next token.
func (t tokenTimes) ttl() time.Duration { return max(t.lifetime(), minTTL) }

// renewAt is when fed renews the token: a third of its lifetime before the recorded
// expiry.
func (t tokenTimes) renewAt() time.Time { return t.Recorded.Add(-t.lifetime() / 3) }

// due says whether the token is to be renewed at now.
func (t tokenTimes) due(now time.Time) bool { return !now.Before(t.renewAt()) }

// timesOf reads the claims of token, a JSON Web Token as the TokenRequest API issues
// them, without checking its signature (only the member can, and it does so at each
// request): fed only plans with them. A token that is not one has no claims.
func timesOf(token []byte, recorded time.Time) tokenTimes {
	t := tokenTimes{Recorded: recorded}
	parts := strings.Split(string(token), ".")
	if len(parts) != 3 {
		return t
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return t
	}
	var claims struct {
		IssuedAt  float64 `json:"iat"`
		ExpiresAt float64 `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.IssuedAt <= 0 || claims.ExpiresAt <= 0 {
		return t
	}
	t.Issued, t.Expires = time.Unix(int64(claims.IssuedAt), 0), time.Unix(int64(claims.ExpiresAt), 0)
	return t
}
