package fleet

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// sink keeps the events the broadcaster writes.
type sink struct {
	mu     sync.Mutex
	events []*corev1.Event
}

func (s *sink) Create(e *corev1.Event) (*corev1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return e, nil
}
func (s *sink) Update(e *corev1.Event) (*corev1.Event, error) { return s.Create(e) }
func (s *sink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	return s.Create(e)
}

func (s *sink) reasons() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, e := range s.events {
		out[e.Reason]++
	}
	return out
}

// TestSpamKeyKeepsTransitions: after more events of one reason than the spam filter lets
// through for an object, an event of another reason is still recorded.
func TestSpamKeyKeepsTransitions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &sink{}
	b := newBroadcaster(ctx)
	b.StartRecordingToSink(s)
	defer b.Shutdown()
	r := b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "fed"})
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "busy", Namespace: "a", UID: "u"}}
	for i := range 40 {
		r.Eventf(obj, corev1.EventTypeNormal, "Synced", "applied to cluster member%d", i%3+1)
	}
	r.Event(obj, corev1.EventTypeNormal, "Scheduled", "placed on member1:2, member2:2")
	r.Event(obj, corev1.EventTypeNormal, "PolicyRemoved", "the policy is gone")
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.reasons()
		if got["Scheduled"] == 1 && got["PolicyRemoved"] == 1 {
			if got["Synced"] > 25 {
				t.Errorf("%d Synced events recorded, want the spam filter to stop them at 25", got["Synced"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("recorded %v, want Scheduled and PolicyRemoved after the Synced burst", fmt.Sprint(got))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
