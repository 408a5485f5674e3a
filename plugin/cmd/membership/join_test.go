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

package membership

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
	"github.com/fedhq/fed/plugin/cmdline"
)

func TestCheckJoinable(t *testing.T) {
	cluster := func(name, id string) clusterv1alpha1.Cluster {
		return clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{ID: id}}
	}
	existing := []clusterv1alpha1.Cluster{cluster("first", "uid-1"), cluster("other", "uid-2"), cluster("manual", "")}
	tests := []struct {
		name, join, id string
		wantErr        string
	}{
		{name: "new member, new name", join: "new", id: "uid-3"},
		{name: "re-join under the same name", join: "first", id: "uid-1"},
		{name: "a name without id can be taken", join: "manual", id: "uid-3"},
		{name: "same member, other name", join: "second", id: "uid-1", wantErr: "is already joined as first; unjoin first first"},
		{name: "name of another member", join: "other", id: "uid-3", wantErr: "cluster other already exists for another member (id uid-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkJoinable(existing, tt.join, tt.id, "https://127.0.0.1:6443")
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestJoinSpecApply(t *testing.T) {
	j := joinSpec{ID: "uid-1", Endpoint: "https://127.0.0.1:6443", Region: "eu", Zone: "eu-1a", Provider: "aws", Labels: map[string]string{"env": "prod"}}
	taint := corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoSchedule}
	c := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "m1", Labels: map[string]string{"team": "x"}},
		Spec:       clusterv1alpha1.ClusterSpec{Taints: []corev1.Taint{taint}},
	}
	if !j.apply(c) {
		t.Fatal("apply reported no change")
	}
	want := clusterv1alpha1.ClusterSpec{
		ID: "uid-1", SyncMode: clusterv1alpha1.Push, APIEndpoint: "https://127.0.0.1:6443",
		SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "fed-system", Name: "m1"},
		Region:    "eu", Zone: "eu-1a", Provider: "aws", Taints: []corev1.Taint{taint},
	}
	if d := cmp.Diff(want, c.Spec); d != "" {
		t.Errorf("spec (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"team": "x", "env": "prod"}, c.Labels); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	if j.apply(c) {
		t.Error("a second apply reported a change")
	}
}

func TestParseLabels(t *testing.T) {
	got, err := parseLabels([]string{"env=prod", "example.com/tier=", "a=b=c"})
	if err == nil {
		t.Fatalf("a=b=c accepted: %v", got)
	}
	got, err = parseLabels([]string{"env=prod", "example.com/tier="})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"env": "prod", "example.com/tier": ""}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"env", "-x=1", "x=a b"} {
		if _, err := parseLabels([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestPrintCluster(t *testing.T) {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"}}
	for _, op := range []string{"joined", "tainted", "already cordoned"} {
		streams, _, out, _ := genericiooptions.NewTestIOStreams()
		if err := cmdline.PrintCluster(cmdline.NewPrintFlags(""), op, c, streams.Out); err != nil {
			t.Fatal(err)
		}
		if want := "cluster.cluster.fedhq.io/member1 " + op + "\n"; out.String() != want {
			t.Errorf("got %q, want %q", out.String(), want)
		}
	}
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	pf := cmdline.NewPrintFlags("")
	pf.OutputFormat = ptr.To("name")
	if err := cmdline.PrintCluster(pf, "joined", c, streams.Out); err != nil {
		t.Fatal(err)
	}
	if want := "cluster.cluster.fedhq.io/member1\n"; out.String() != want {
		t.Errorf("-o name: got %q, want %q", out.String(), want)
	}
}

func TestJoinValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(o *JoinOptions)
		wantErr string
	}{
		{name: "defaults"},
		{name: "narrower role, shortest token", change: func(o *JoinOptions) { o.ClusterRole, o.TokenTTL = "fed:member", 10*time.Minute }},
		{name: "no role", change: func(o *JoinOptions) { o.ClusterRole = "" }, wantErr: "--cluster-role must name a ClusterRole"},
		{name: "token too short", change: func(o *JoinOptions) { o.TokenTTL = 5 * time.Minute },
			wantErr: "--token-ttl must be at least 10m0s (the shortest token the TokenRequest API gives), got 5m0s"},
		{name: "bad name", change: func(o *JoinOptions) { o.Name = "Member_1" }, wantErr: `invalid cluster name "Member_1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := NewCmdJoin(nil, genericiooptions.NewTestIOStreamsDiscard())
			o := &JoinOptions{Name: "member1", Wait: true, Timeout: time.Minute}
			o.ClusterRole, _ = cmd.Flags().GetString("cluster-role")
			o.TokenTTL, _ = cmd.Flags().GetDuration("token-ttl")
			if o.ClusterRole != "cluster-admin" || o.TokenTTL != 24*time.Hour {
				t.Fatalf("defaults: --cluster-role %q, --token-ttl %s", o.ClusterRole, o.TokenTTL)
			}
			if tc.change != nil {
				tc.change(o)
			}
			err := o.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Validate: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestJoinWaitReady: --wait follows the Cluster's watch events, printing each new state of
// its Ready condition, and says what it last saw when it gives up.
func TestJoinWaitReady(t *testing.T) {
	cond := func(status metav1.ConditionStatus, reason string) []metav1.Condition {
		return []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: status, Reason: reason}}
	}
	newOptions := func(timeout time.Duration) (*JoinOptions, *bytes.Buffer, *fake.Clientset) {
		streams, _, _, errOut := genericiooptions.NewTestIOStreams()
		client := fake.NewSimpleClientset(&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"}})
		return &JoinOptions{IOStreams: streams, Name: "member1", Timeout: timeout, fed: client}, errOut, client
	}
	setStatus := func(t *testing.T, client *fake.Clientset, conds []metav1.Condition) {
		t.Helper()
		c, err := client.ClusterV1alpha1().Clusters().Get(context.Background(), "member1", metav1.GetOptions{})
		if err == nil {
			c.Status.Conditions = conds
			_, err = client.ClusterV1alpha1().Clusters().UpdateStatus(context.Background(), c, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Error(err) // also from the goroutines below
		}
	}

	t.Run("ready", func(t *testing.T) {
		o, errOut, client := newOptions(time.Minute)
		setStatus(t, client, cond(metav1.ConditionFalse, "ClusterNotReady"))
		go func() {
			// Ready once the watch is open: an event, not the first list, says so.
			for !slices.ContainsFunc(client.Actions(), func(a clienttesting.Action) bool { return a.GetVerb() == "watch" }) {
				time.Sleep(10 * time.Millisecond)
			}
			setStatus(t, client, cond(metav1.ConditionTrue, "ClusterReady"))
		}()
		c, err := o.waitReady(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil || !meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			t.Fatalf("returned %+v, want the Ready Cluster", c)
		}
		if got := errOut.String(); !strings.Contains(got, "cluster member1: Ready=False, ClusterNotReady\n") ||
			!strings.HasSuffix(got, "cluster member1: Ready=True, ClusterReady\n") {
			t.Errorf("progress:\n%s", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		o, _, client := newOptions(time.Second)
		setStatus(t, client, cond(metav1.ConditionFalse, "ClusterNotReady"))
		_, err := o.waitReady(context.Background(), nil)
		want := "cluster member1 did not become Ready within 1s (Ready=False, ClusterNotReady); see 'kubectl get clusters.cluster.fedhq.io member1 -o yaml'"
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
		o, _, _ = newOptions(300 * time.Millisecond)
		if _, err := o.waitReady(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no Ready condition yet; is fed's cluster controller running?") {
			t.Errorf("without a condition: error %v", err)
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		o, _, client := newOptions(time.Minute)
		client.PrependReactor("list", "clusters", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "cluster.fedhq.io", Resource: "clusters"}, "",
				errors.New(`User "dev" cannot list resource "clusters"`))
		})
		start := time.Now()
		_, err := o.waitReady(context.Background(), nil)
		if err == nil || !strings.HasPrefix(err.Error(), "watching cluster member1 until it is Ready: clusters.cluster.fedhq.io is forbidden") {
			t.Errorf("error %v", err)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("gave up after %s, want at once", d)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		o, _, client := newOptions(time.Minute)
		go func() {
			for !slices.ContainsFunc(client.Actions(), func(a clienttesting.Action) bool { return a.GetVerb() == "watch" }) {
				time.Sleep(10 * time.Millisecond)
			}
			_ = client.ClusterV1alpha1().Clusters().Delete(context.Background(), "member1", metav1.DeleteOptions{})
		}()
		if _, err := o.waitReady(context.Background(), nil); err == nil || err.Error() != "cluster member1 was deleted while waiting for it to be Ready" {
			t.Errorf("error %v", err)
		}
	})
}
