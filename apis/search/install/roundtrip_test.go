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

package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"github.com/fedhq/fed/apis/search"
	"github.com/fedhq/fed/apis/search/v1alpha1"
)

// TestRoundTripTypes fuzzes every internal type, converts it to v1alpha1,
// encodes and decodes it, and checks nothing was lost on the way. The
// spec's targetCluster goes through federation.fedhq.io's conversion of
// ClusterAffinity, which the fuzzer fills as well.
func TestRoundTripTypes(t *testing.T) {
	roundtrip.RoundTripTestForAPIGroup(t, Install, fuzzerFuncs)
}

// TestRoundTripProtobuf does the same through protobuf, which fed's controllers use.
func TestRoundTripProtobuf(t *testing.T) {
	roundtrip.RoundTripProtobufTestForAPIGroup(t, Install, fuzzerFuncs)
}

// fuzzerFuncs fill objects the way the server stores them: decoding applies
// the v1alpha1 defaults, so fuzzed objects are defaulted too.
func fuzzerFuncs(runtimeserializer.CodecFactory) []interface{} {
	scheme := runtime.NewScheme()
	Install(scheme)
	return []interface{}{
		func(r *search.ResourceRegistry, c randfill.Continue) {
			c.FillNoCustom(r)
			external := &v1alpha1.ResourceRegistry{}
			mustConvert(scheme, r, external)
			scheme.Default(external)
			mustConvert(scheme, external, r)
		},
	}
}

func mustConvert(scheme *runtime.Scheme, in, out runtime.Object) {
	if err := scheme.Convert(in, out, nil); err != nil {
		panic(err)
	}
}

var _ fuzzer.FuzzerFuncs = fuzzerFuncs
