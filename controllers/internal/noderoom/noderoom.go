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

// Package noderoom is the per-node picture of each member that the scheduler estimates
// room from: which nodes take pods, what they are labelled and tainted with, and what is
// left of their allocatable resources. The cluster controller writes a member's picture
// after each successful probe and drops it when the Cluster is deleted; the scheduler reads
// it. It lives in memory only: after a restart a member has no picture until its first
// probe, and the scheduler falls back to the Cluster's resource summary.
package noderoom

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Node is one node of a member that takes new pods: Ready and not cordoned.
type Node struct {
	Name   string
	Labels map[string]string
	Taints []corev1.Taint
	// Free is the node's allocatable less the requests of the pods bound to it that have
	// not terminated. When the node reports a "pods" allocatable, Free["pods"] is how
	// many more pods it takes.
	Free corev1.ResourceList
}

// Picture is what one probe read of a member's nodes, and when it began to read them.
type Picture struct {
	Nodes []Node
	// Read is when the probe began to read the nodes and pods: a pod bound after it is
	// not counted.
	Read time.Time
}

// Store keeps the nodes of each member, by cluster name. It is safe for concurrent use.
// The slices it hands out are never changed afterwards: Set replaces a member's picture.
// A nil Store keeps nothing.
type Store struct {
	mu       sync.RWMutex
	clusters map[string]Picture
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{clusters: map[string]Picture{}} }

// Set records the nodes a probe of cluster found, having begun to read at read, replacing
// the previous picture. The caller must not change nodes afterwards.
func (s *Store) Set(cluster string, nodes []Node, read time.Time) {
	if s == nil {
		return
	}
	if nodes == nil {
		nodes = []Node{} // a member without nodes has a picture: no room
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clusters[cluster] = Picture{Nodes: nodes, Read: read}
}

// Get returns cluster's last picture, and false when there is none (never probed since
// fed started, or gone). Its nodes must not be changed.
func (s *Store) Get(cluster string) (Picture, bool) {
	if s == nil {
		return Picture{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.clusters[cluster]
	return p, ok
}

// Delete drops the picture of a cluster that is gone.
func (s *Store) Delete(cluster string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clusters, cluster)
}
