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

package controllers

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestFailoverTunesTheClusterController checks that fed-apiserver's failover flags reach the
// cluster controller's options (--cluster-status-update-frequency, --failover-eviction-timeout).
func TestFailoverTunesTheClusterController(t *testing.T) {
	nowhere := &rest.Config{Host: "https://127.0.0.1:1"}
	f := DefaultFailover()
	f.StatusUpdateFrequency, f.EvictionTimeout = 30*time.Second, time.Minute
	d, err := newDeps(context.Background(), Config{Fed: nowhere, Host: nowhere, Failover: f})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Config.Cluster.ProbeInterval; got != 30*time.Second {
		t.Errorf("the cluster controller probes every %s, want 30s", got)
	}
	if got := d.Config.Cluster.EvictionTimeout; got != time.Minute {
		t.Errorf("the cluster controller's eviction timeout is %s, want 1m", got)
	}
}
