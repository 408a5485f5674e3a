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

package scheme

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// work is a Work as the lab's execution controller wrote it (a Deployment, its member
// status, managed fields), encoded by each serializer.
func work(t testing.TB) (*federationv1alpha1.Work, map[string][]byte, map[string]runtime.Serializer) {
	data, err := os.ReadFile("testdata/work.json")
	if err != nil {
		t.Fatal(err)
	}
	serializers := map[string]runtime.Serializer{
		"json":     json.NewSerializerWithOptions(json.DefaultMetaFactory, Scheme, Scheme, json.SerializerOptions{}),
		"cbor":     cbor.NewSerializer(Scheme, Scheme),
		"protobuf": protobuf.NewSerializer(Scheme, Scheme),
	}
	obj, _, err := serializers["json"].Decode(data, nil, &federationv1alpha1.Work{})
	if err != nil {
		t.Fatal(err)
	}
	// Encoded once, the manifest's raw JSON loses the file's indentation; what follows
	// compares with that form.
	var compact bytes.Buffer
	if err := serializers["json"].Encode(obj, &compact); err != nil {
		t.Fatal(err)
	}
	if obj, _, err = serializers["json"].Decode(compact.Bytes(), nil, &federationv1alpha1.Work{}); err != nil {
		t.Fatal(err)
	}
	w := obj.(*federationv1alpha1.Work)
	encoded := map[string][]byte{}
	for name, s := range serializers {
		var buf bytes.Buffer
		if err := s.Encode(w, &buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		encoded[name] = buf.Bytes()
	}
	return w, encoded, serializers
}

// TestWorkRoundTrip: a Work comes back the same from each encoding fed serves.
func TestWorkRoundTrip(t *testing.T) {
	w, encoded, serializers := work(t)
	for name, s := range serializers {
		got, _, err := s.Decode(encoded[name], nil, &federationv1alpha1.Work{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equality.Semantic.DeepEqual(w, got) {
			t.Errorf("%s: the Work changed in a round trip (-before +after):\n%s", name, cmp.Diff(w, got))
		}
	}
}

// BenchmarkDecodeWork is why fed's controllers talk JSON to fed-apiserver rather than CBOR:
// decoding is most of what a Work costs them and the server, and CBOR decodes it slower.
func BenchmarkDecodeWork(b *testing.B) {
	_, encoded, serializers := work(b)
	for _, name := range []string{"json", "cbor", "protobuf"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(encoded[name])))
			for b.Loop() {
				if _, _, err := serializers[name].Decode(encoded[name], nil, &federationv1alpha1.Work{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeWork(b *testing.B) {
	w, _, serializers := work(b)
	for _, name := range []string{"json", "protobuf"} {
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := serializers[name].Encode(w, &buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
