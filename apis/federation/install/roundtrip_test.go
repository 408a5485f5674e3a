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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"github.com/fedhq/fed/apis/federation"
	"github.com/fedhq/fed/apis/federation/v1alpha1"
)

// TestRoundTripTypes fuzzes every internal type, converts it to v1alpha1,
// encodes and decodes it, and checks nothing was lost on the way.
func TestRoundTripTypes(t *testing.T) {
	roundtrip.RoundTripTestForAPIGroup(t, Install, fuzzerFuncs)
}

// TestRoundTripProtobuf does the same through protobuf, which fed's controllers use.
func TestRoundTripProtobuf(t *testing.T) {
	roundtrip.RoundTripProtobufTestForAPIGroup(t, Install, fuzzerFuncs)
}

// jsonValues are the kinds of value an apiextensions JSON field may hold,
// in the compact form the encoder writes.
var jsonValues = []string{`{"a":"b","n":[1,2]}`, `4`, `"text"`, `[true,null]`, `false`}

// fuzzerFuncs fill objects the way the server stores them. Decoding applies
// the v1alpha1 defaults, so every fuzzed object is defaulted too; that also
// moves the shorthand fields into their canonical places.
func fuzzerFuncs(runtimeserializer.CodecFactory) []interface{} {
	scheme := runtime.NewScheme()
	Install(scheme)
	return []interface{}{
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			j.Raw = []byte(jsonValues[c.Intn(len(jsonValues))])
		},
		defaulted[*federation.PropagationPolicy](scheme),
		defaulted[*federation.ClusterPropagationPolicy](scheme),
		defaulted[*federation.OverridePolicy](scheme),
		defaulted[*federation.ClusterOverridePolicy](scheme),
		defaulted[*federation.ResourceInterpreterCustomization](scheme),
		defaulted[*federation.ResourceInterpreterWebhookConfiguration](scheme),
		defaulted[*federation.ReplicaSchedulingPolicy](scheme),
		defaulted[*federation.FederatedResourceQuota](scheme),
		defaulted[*federation.ClusterTaintPolicy](scheme),
		defaulted[*federation.WorkloadRebalancer](scheme),
		defaulted[*federation.ResourceBinding](scheme),
		defaulted[*federation.ClusterResourceBinding](scheme),
		defaulted[*federation.Work](scheme),
		defaulted[*federation.FederatedHPA](scheme),
		defaulted[*federation.CronFederatedHPA](scheme),
		defaulted[*federation.MultiClusterService](scheme),
		defaulted[*federation.MultiClusterIngress](scheme),
	}
}

// defaulted returns a fuzzer func that fills an internal object and then
// applies the v1alpha1 defaults to it.
func defaulted[T runtime.Object](scheme *runtime.Scheme) func(T, randfill.Continue) {
	return func(obj T, c randfill.Continue) {
		c.FillNoCustom(obj)
		external, err := scheme.ConvertToVersion(obj.DeepCopyObject(), v1alpha1.SchemeGroupVersion)
		if err != nil {
			panic(err)
		}
		scheme.Default(external)
		if err := scheme.Convert(external, obj, nil); err != nil {
			panic(err)
		}
	}
}

var _ fuzzer.FuzzerFuncs = fuzzerFuncs
