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

package app

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedhq/fed/apis/federation"
)

// TestStorageCodec checks what --storage-media-type picks is what the store writes, in the
// storage version, and that a codec of either type reads what the other wrote: a server
// whose flag changed reads the objects it stored before.
func TestStorageCodec(t *testing.T) {
	work := &federation.Work{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx-member1", Namespace: "default", Labels: map[string]string{"app": "nginx"}},
		Spec: federation.WorkSpec{Workload: federation.WorkloadTemplate{Manifests: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","namespace":"default"},"spec":{"replicas":2}}`)},
		}}},
		Status: federation.WorkStatus{Conditions: []metav1.Condition{{Type: federation.WorkConditionApplied, Status: metav1.ConditionTrue,
			Reason: "Applied", LastTransitionTime: metav1.Unix(1700000000, 0)}}},
	}
	protobufCodec, err := storageCodec(runtime.ContentTypeProtobuf)
	if err != nil {
		t.Fatal(err)
	}
	jsonCodec, err := storageCodec(runtime.ContentTypeJSON)
	if err != nil {
		t.Fatal(err)
	}
	encoded := map[string][]byte{}
	for name, c := range map[string]runtime.Codec{"protobuf": protobufCodec, "json": jsonCodec} {
		var buf bytes.Buffer
		if err := c.Encode(work.DeepCopy(), &buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		encoded[name] = buf.Bytes()
	}
	if !bytes.HasPrefix(encoded["protobuf"], []byte("k8s\x00")) {
		t.Errorf("the protobuf codec wrote %q, want Kubernetes' protobuf envelope", encoded["protobuf"][:min(20, len(encoded["protobuf"]))])
	}
	if !bytes.Contains(encoded["json"], []byte(`"apiVersion":"federation.fedhq.io/v1alpha1"`)) {
		t.Errorf("the JSON codec wrote %s, want the storage version", encoded["json"])
	}
	for reader, c := range map[string]runtime.Codec{"protobuf": protobufCodec, "json": jsonCodec} {
		for writer, data := range encoded {
			got, _, err := c.Decode(data, nil, &federation.Work{})
			if err != nil {
				t.Fatalf("the %s codec reading %s: %v", reader, writer, err)
			}
			got.(*federation.Work).TypeMeta = metav1.TypeMeta{}
			if !equality.Semantic.DeepEqual(got, work) {
				t.Errorf("the %s codec reading %s got %#v, want %#v", reader, writer, got, work)
			}
		}
	}
	if _, err := storageCodec("application/xml"); err == nil {
		t.Error("storageCodec accepted application/xml")
	}
}

// TestValidateStorageMediaType checks a media type the store cannot write is refused before
// the server starts, with the Badger backend too, whose etcd options the generic validation
// does not see.
func TestValidateStorageMediaType(t *testing.T) {
	o := NewOptions(io.Discard, io.Discard)
	o.DataDir = t.TempDir()
	o.Recommended.Etcd.DefaultStorageMediaType = "application/xml"
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `--storage-media-type="application/xml"`) {
		t.Errorf("Validate() = %v, want an error naming --storage-media-type", err)
	}
}

func TestClusterStatusUpdateFrequency(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
		err  string
	}{
		{nil, 5 * time.Second, ""},
		{[]string{"--cluster-status-update-frequency=30s"}, 30 * time.Second, ""},
		{[]string{"--cluster-status-update-frequency=0s"}, 0, "--cluster-status-update-frequency"},
	} {
		o := NewOptions(io.Discard, io.Discard)
		o.DataDir = t.TempDir()
		fs := pflag.NewFlagSet("fed-apiserver", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := o.Failover.StatusUpdateFrequency; got != tc.want {
			t.Errorf("%v: the frequency is %s, want %s", tc.args, got, tc.want)
		}
		if err := o.Complete(); err != nil {
			t.Fatal(err)
		}
		err := o.Validate()
		if tc.err == "" && err != nil {
			t.Errorf("%v: Validate() = %v", tc.args, err)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: Validate() = %v, want an error naming %s", tc.args, err, tc.err)
		}
	}
}
