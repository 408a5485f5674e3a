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

package scheduler

import (
	"fmt"
	"testing"
)

func TestDivideByWeight(t *testing.T) {
	for _, c := range []struct {
		name     string
		replicas int32
		weights  []Weight
		want     string
	}{
		{"seeds: 3:2:1 of 6 gives 3/2/1", 6, []Weight{{"member1", 3}, {"member2", 2}, {"member3", 1}}, "member1=3 member2=2 member3=1"},
		{"seeds: 1:1 of 2 gives 1/1 (the nginx example)", 2, []Weight{{"member1", 1}, {"member2", 1}}, "member1=1 member2=1"},
		{"seeds: weight 0 gets none while others have weight", 4, []Weight{{"member1", 1}, {"member2", 0}, {"member3", 1}}, "member1=2 member2=0 member3=2"},
		{"the remainder goes to the largest remainders", 7, []Weight{{"member1", 1}, {"member2", 1}, {"member3", 1}}, "member1=3 member2=2 member3=2"},
		{"equal remainders: the heavier cluster first", 1, []Weight{{"member1", 1}, {"member2", 2}, {"member3", 1}}, "member1=0 member2=1 member3=0"},
		{"nothing to divide", 0, []Weight{{"member2", 1}, {"member1", 1}}, "member1=0 member2=0"},
		{"all weights 0", 3, []Weight{{"member1", 0}, {"member2", 0}}, "member1=0 member2=0"},
		{"scaling 4 at 1:1", 4, []Weight{{"member2", 1}, {"member1", 1}}, "member1=2 member2=2"},
		{"more clusters than replicas", 2, []Weight{{"c", 1}, {"b", 1}, {"a", 1}}, "a=1 b=1 c=0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			var sum int32
			for i, a := range DivideByWeight(c.replicas, c.weights) {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("%s=%d", a.Cluster, a.Replicas)
				sum += a.Replicas
			}
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
			if total := weightSum(c.weights); total > 0 && sum != c.replicas {
				t.Errorf("%d replicas given out of %d", sum, c.replicas)
			}
		})
	}
}

func weightSum(ws []Weight) (n int64) {
	for _, w := range ws {
		n += w.Weight
	}
	return n
}
