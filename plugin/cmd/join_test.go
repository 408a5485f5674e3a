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

package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
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
		if err := printCluster(newPrintFlags(""), op, c, streams.Out); err != nil {
			t.Fatal(err)
		}
		if want := "cluster.cluster.fedhq.io/member1 " + op + "\n"; out.String() != want {
			t.Errorf("got %q, want %q", out.String(), want)
		}
	}
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	pf := newPrintFlags("")
	pf.OutputFormat = ptr.To("name")
	if err := printCluster(pf, "joined", c, streams.Out); err != nil {
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
