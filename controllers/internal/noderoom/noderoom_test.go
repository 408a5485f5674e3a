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

package noderoom

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestStore(t *testing.T) {
	s := NewStore()
	if _, ok := s.Get("member1"); ok {
		t.Fatal("a picture of a member never set")
	}
	read := time.Now()
	s.Set("member1", []Node{{Name: "n1"}}, read)
	s.Set("member2", nil, read)
	if p, ok := s.Get("member1"); !ok || len(p.Nodes) != 1 || p.Nodes[0].Name != "n1" || !p.Read.Equal(read) {
		t.Errorf("member1: %v %v, want its node n1 read at %v", p, ok, read)
	}
	if p, ok := s.Get("member2"); !ok || len(p.Nodes) != 0 {
		t.Errorf("member2: %v %v, want a picture without nodes", p, ok)
	}
	s.Set("member1", []Node{{Name: "n2"}}, read.Add(time.Second))
	if p, _ := s.Get("member1"); p.Nodes[0].Name != "n2" {
		t.Errorf("member1 after a new probe: %v, want n2", p)
	}
	s.Delete("member1")
	if _, ok := s.Get("member1"); ok {
		t.Error("member1 still has a picture after Delete")
	}

	var none *Store
	none.Set("member1", []Node{{Name: "n1"}}, time.Now())
	none.Delete("member1")
	if _, ok := none.Get("member1"); ok {
		t.Error("a nil store has a picture")
	}
}

// TestStoreConcurrent is for -race: probes write while the scheduler reads.
func TestStoreConcurrent(t *testing.T) {
	s := NewStore()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("member%d", i%3)
			for j := range 200 {
				switch j % 3 {
				case 0:
					s.Set(name, []Node{{Name: fmt.Sprint(j)}}, time.Now())
				case 1:
					s.Get(name)
				default:
					s.Delete(name)
				}
			}
		}()
	}
	wg.Wait()
}
