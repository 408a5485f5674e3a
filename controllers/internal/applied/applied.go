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

// Package applied is what the execution controller made of each Work, for the work status
// controller to write into the Work's Applied condition: execution applies and records the
// outcome here, the status path writes it once with the objects' state. Nothing here is
// kept across a restart: the Works' status is.
package applied

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Reasons of a Work's Applied condition.
const (
	ReasonApplied        = "Applied"
	ReasonFailed         = "ApplyFailed"
	ReasonConflict       = "Conflict"
	ReasonSuspended      = "Suspended"
	ReasonOverrideFailed = "OverrideFailed"
	ReasonUnreachable    = "ClusterUnreachable"
)

// Result is what execution made of one generation of a Work.
type Result struct {
	Generation int64
	Status     metav1.ConditionStatus
	Reason     string
	Message    string
	// Versions is, for each manifest, the member object's version (generation, or
	// resourceVersion) right after fed applied it; empty where fed applied nothing.
	Versions []string
}

// Condition is the Work's Applied condition for a result.
func (r Result) Condition(conditionType string) metav1.Condition {
	return metav1.Condition{Type: conditionType, Status: r.Status, Reason: r.Reason, Message: r.Message, ObservedGeneration: r.Generation}
}

// Log keeps the last Result of each Work, by its UID, and tells the status path of each
// new one: execution records, the work status controller reads and writes (a channel
// between the two through the object they share, not a call of one into the other).
type Log struct {
	results sync.Map
	// recorded are told of each Result recorded: the Work's key, and how long to wait
	// before its status is written (what the member's controllers make of the objects
	// meanwhile is part of it).
	recorded []func(k types.NamespacedName, after time.Duration)
}

// OnRecord has f told of each Result recorded from now on; call it before anything
// records.
func (l *Log) OnRecord(f func(k types.NamespacedName, after time.Duration)) {
	l.recorded = append(l.recorded, f)
}

// Record keeps the result of the Work k, of uid, and tells those that asked, after.
func (l *Log) Record(k types.NamespacedName, uid types.UID, r Result, after time.Duration) {
	l.results.Store(uid, r)
	for _, f := range l.recorded {
		f(k, after)
	}
}

// Get returns a Work's last result.
func (l *Log) Get(uid types.UID) (Result, bool) {
	r, ok := l.results.Load(uid)
	if !ok {
		return Result{}, false
	}
	return r.(Result), true
}

// Forget drops the result of a Work that is gone.
func (l *Log) Forget(uid types.UID) { l.results.Delete(uid) }
