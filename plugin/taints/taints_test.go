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

package taints

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestParseTaints(t *testing.T) {
	tests := []struct {
		name        string
		specs       []string
		add, remove []corev1.Taint
		wantErr     string
	}{
		{name: "key value effect", specs: []string{"dedicated=gpu:NoSchedule"},
			add: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
		{name: "key effect", specs: []string{"example.com/maint:NoExecute"},
			add: []corev1.Taint{{Key: "example.com/maint", Effect: corev1.TaintEffectNoExecute}}},
		{name: "remove by key and effect and by key", specs: []string{"a:NoSchedule-", "b-"},
			remove: []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoSchedule}, {Key: "b"}}},
		{name: "add and remove", specs: []string{"a=1:NoSchedule", "b:NoExecute-"},
			add:    []corev1.Taint{{Key: "a", Value: "1", Effect: corev1.TaintEffectNoSchedule}},
			remove: []corev1.Taint{{Key: "b", Effect: corev1.TaintEffectNoExecute}}},
		{name: "value without effect", specs: []string{"a=1"}, wantErr: "invalid taint spec: a=1, "},
		{name: "key only cannot be added", specs: []string{"a:"}, wantErr: "invalid taint effect: , unsupported taint effect (a cluster supports NoSchedule and NoExecute)"},
		{name: "PreferNoSchedule is not for clusters", specs: []string{"a:PreferNoSchedule"},
			wantErr: "invalid taint effect: PreferNoSchedule, unsupported taint effect (a cluster supports NoSchedule and NoExecute)"},
		{name: "too many colons", specs: []string{"a:b:NoSchedule"}, wantErr: "invalid taint spec: a:b:NoSchedule"},
		{name: "too many equals", specs: []string{"a=b=c:NoSchedule"}, wantErr: "invalid taint spec: a=b=c:NoSchedule"},
		{name: "bad value", specs: []string{"a=b c:NoSchedule"}, wantErr: "invalid taint spec: a=b c:NoSchedule, "},
		{name: "bad key", specs: []string{"-a:NoSchedule"}, wantErr: "invalid taint spec: -a:NoSchedule, "},
		{name: "duplicate", specs: []string{"a=1:NoSchedule", "a=2:NoSchedule"}, wantErr: "duplicated taints with the same key and effect"},
		{name: "same key other effect is fine", specs: []string{"a=1:NoSchedule", "a=2:NoExecute"},
			add: []corev1.Taint{{Key: "a", Value: "1", Effect: corev1.TaintEffectNoSchedule}, {Key: "a", Value: "2", Effect: corev1.TaintEffectNoExecute}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			add, remove, err := Parse(tt.specs)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one starting with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.add, add); d != "" {
				t.Errorf("add (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.remove, remove); d != "" {
				t.Errorf("remove (-want +got):\n%s", d)
			}
		})
	}
}

func TestIsTaintArg(t *testing.T) {
	for arg, want := range map[string]bool{"member1": false, "a=b:NoSchedule": true, "a:NoSchedule": true, "a-": true, "a=b": true} {
		if got := IsChange(arg); got != want {
			t.Errorf("IsChange(%q) = %v, want %v", arg, got, want)
		}
	}
}

func TestConflictingTaintChanges(t *testing.T) {
	add := []corev1.Taint{{Key: "a", Value: "1", Effect: corev1.TaintEffectNoSchedule}}
	if err := Conflicts(add, []corev1.Taint{{Key: "a"}}); err == nil || err.Error() != "can not both modify and remove the following taint(s) in the same command: a=" {
		t.Errorf("remove by key: %v", err)
	}
	if err := Conflicts(add, []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}}); err != nil {
		t.Errorf("other effect: %v", err)
	}
}

func TestApplyTaints(t *testing.T) {
	now := time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)
	at := metav1.NewTime(now)
	ns := func(k, v string) corev1.Taint {
		return corev1.Taint{Key: k, Value: v, Effect: corev1.TaintEffectNoSchedule}
	}
	ne := func(k, v string) corev1.Taint {
		return corev1.Taint{Key: k, Value: v, Effect: corev1.TaintEffectNoExecute}
	}
	neAt := func(k, v string) corev1.Taint { t := ne(k, v); t.TimeAdded = ptr.To(at); return t }
	tests := []struct {
		name        string
		old         []corev1.Taint
		add, remove []corev1.Taint
		overwrite   bool
		wantOp      string
		want        []corev1.Taint
		wantErr     string
	}{
		{name: "add to none", add: []corev1.Taint{ns("a", "1")}, wantOp: "tainted", want: []corev1.Taint{ns("a", "1")}},
		{name: "add keeps others", old: []corev1.Taint{ns("b", "")}, add: []corev1.Taint{ns("a", "1")},
			wantOp: "tainted", want: []corev1.Taint{ns("a", "1"), ns("b", "")}},
		{name: "NoExecute gets its time", add: []corev1.Taint{ne("a", "")}, wantOp: "tainted", want: []corev1.Taint{neAt("a", "")}},
		{name: "existing key and effect without overwrite", old: []corev1.Taint{ns("a", "1")}, add: []corev1.Taint{ns("a", "2")},
			wantErr: "cluster m1 already has a taint(s) with same effect(s) and --overwrite is false"},
		{name: "same key other effect is new", old: []corev1.Taint{ns("a", "1")}, add: []corev1.Taint{neAt("a", "2")},
			wantOp: "tainted", want: []corev1.Taint{neAt("a", "2"), ns("a", "1")}},
		{name: "overwrite", old: []corev1.Taint{ns("a", "1")}, add: []corev1.Taint{ns("a", "2")}, overwrite: true,
			wantOp: "modified", want: []corev1.Taint{ns("a", "2")}},
		{name: "remove by key and effect", old: []corev1.Taint{ns("a", "1"), ne("a", "1")}, remove: []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoSchedule}},
			wantOp: "untainted", want: []corev1.Taint{ne("a", "1")}},
		{name: "remove by key", old: []corev1.Taint{ns("a", "1"), ne("a", "1"), ns("b", "")}, remove: []corev1.Taint{{Key: "a"}},
			wantOp: "untainted", want: []corev1.Taint{ns("b", "")}},
		{name: "remove missing", old: []corev1.Taint{ns("a", "1")}, remove: []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}},
			wantErr: `taint "a:NoExecute" not found`},
		{name: "remove missing key", remove: []corev1.Taint{{Key: "x"}}, wantErr: `taint "x" not found`},
		{name: "add and remove", old: []corev1.Taint{ns("b", "")}, add: []corev1.Taint{ns("a", "1")}, remove: []corev1.Taint{{Key: "b"}},
			wantOp: "modified", want: []corev1.Taint{ns("a", "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := append([]corev1.Taint(nil), tt.old...)
			op, got, err := Apply("m1", tt.old, tt.add, tt.remove, tt.overwrite, now)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if op != tt.wantOp {
				t.Errorf("operation %q, want %q", op, tt.wantOp)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("taints (-want +got):\n%s", d)
			}
			if d := cmp.Diff(old, tt.old); d != "" {
				t.Errorf("the old taints were modified:\n%s", d)
			}
		})
	}
}

func TestSetCordoned(t *testing.T) {
	other := corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name    string
		old     []corev1.Taint
		cordon  bool
		wantOp  string
		want    []corev1.Taint
		changed bool
	}{
		{name: "cordon", old: []corev1.Taint{other}, cordon: true, wantOp: "cordoned", want: []corev1.Taint{other, Cordon}, changed: true},
		{name: "cordon again", old: []corev1.Taint{Cordon}, cordon: true, wantOp: "already cordoned", want: []corev1.Taint{Cordon}},
		{name: "uncordon", old: []corev1.Taint{Cordon, other}, wantOp: "uncordoned", want: []corev1.Taint{other}, changed: true},
		{name: "uncordon again", old: []corev1.Taint{other}, wantOp: "already uncordoned", want: []corev1.Taint{other}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, got, changed := SetCordoned(tt.old, tt.cordon)
			if op != tt.wantOp || changed != tt.changed {
				t.Errorf("got %q changed=%v, want %q changed=%v", op, changed, tt.wantOp, tt.changed)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("taints (-want +got):\n%s", d)
			}
		})
	}
	if Cordon.Key != "cluster.fedhq.io/unschedulable" || Cordon.Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("cordon taint is %v", Cordon)
	}
}
