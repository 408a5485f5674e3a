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

package fleet

import (
	"context"
	"sync"

	"k8s.io/client-go/rest"
)

// MemberResult is what one member answered.
type MemberResult[T any] struct {
	Cluster string
	Value   T
	Err     error
}

// FanOut runs query on every member in parallel, each with its proxy config, and returns
// the answers in the order of clusters.
func FanOut[T any](ctx context.Context, host *rest.Config, clusters []string, query func(ctx context.Context, cluster string, cfg *rest.Config) (T, error)) []MemberResult[T] {
	results := make([]MemberResult[T], len(clusters))
	var wg sync.WaitGroup
	for i, name := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].Cluster = name
			cfg, err := MemberConfig(host, name)
			if err != nil {
				results[i].Err = err
				return
			}
			results[i].Value, results[i].Err = query(ctx, name, cfg)
		}()
	}
	wg.Wait()
	return results
}
