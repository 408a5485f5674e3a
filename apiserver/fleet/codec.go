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

package fleet

import (
	"fmt"
	"io"
	"net/url"
	"slices"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Templates are *unstructured.Unstructured of any kind; only the meta types (Status,
// options, WatchEvent) and autoscaling/v1 Scale are typed. metaScheme knows those.
var metaScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	if err := autoscalingv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// typer names an object's kind: an Unstructured by its apiVersion and kind, a typed object
// by metaScheme (runtime.Scheme handles both).
var typer runtime.ObjectTyper = metaScheme

// creator makes typed objects for the kinds metaScheme knows and an Unstructured of the
// kind for everything else.
type creator struct{}

func (creator) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if metaScheme.Recognizes(gvk) {
		return metaScheme.New(gvk)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// converter converts templates between versions of one kind by rewriting apiVersion: the
// fleet serves one version of each native kind, and custom resources with conversion
// strategy None. Typed meta objects go through metaScheme.
//
// With typedReferences (the scopes' UnsafeConvertor, which only the strategic merge patch
// handler uses), one conversion is special: that handler asks for a typed "schema
// reference" by converting the store's New() — an Unstructured holding nothing but
// apiVersion and kind — and reads the patch strategy from the Go struct. For native kinds
// that client-go's scheme knows, converter then returns such a struct, so `kubectl apply`,
// `edit` and `label` patch templates exactly as on a cluster.
type converter struct {
	typedReferences bool
}

var _ runtime.ObjectConvertor = converter{}

func (converter) Convert(in, out, context any) error {
	inU, ok1 := in.(*unstructured.Unstructured)
	outU, ok2 := out.(*unstructured.Unstructured)
	if ok1 && ok2 {
		outU.Object = runtime.DeepCopyJSON(inU.Object)
		return nil
	}
	return metaScheme.Convert(in, out, context)
}

func (c converter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if list, ok := in.(*unstructured.UnstructuredList); ok {
		return c.convertList(list, target)
	}
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		if _, ok := in.(*metav1.WatchEvent); ok {
			return in, nil // the frame of every watch, whatever the version of its object
		}
		return metaScheme.ConvertToVersion(in, target)
	}
	from := u.GroupVersionKind()
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from})
	if !ok {
		return nil, fmt.Errorf("%s cannot be converted to %v", from, target)
	}
	if c.typedReferences && isSchemaReference(u) {
		if typed, err := clientgoscheme.Scheme.New(to); err == nil {
			typed.GetObjectKind().SetGroupVersionKind(to)
			return typed, nil
		}
	}
	if to == from {
		if c.typedReferences {
			// The strategic merge patch handler patches the map of what it converts in
			// place: without a copy it would patch the stored object it read (and the
			// watch cache's), and the update would find no change to count in the
			// generation.
			return u.DeepCopy(), nil
		}
		return u, nil
	}
	if to.GroupKind() != from.GroupKind() {
		return nil, fmt.Errorf("%s cannot be converted to %s", from, to)
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(to)
	return out, nil
}

// convertList converts a list and each of its items.
func (c converter) convertList(list *unstructured.UnstructuredList, target runtime.GroupVersioner) (runtime.Object, error) {
	from := list.GroupVersionKind()
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from})
	if !ok {
		return nil, fmt.Errorf("%s cannot be converted to %v", from, target)
	}
	if to == from {
		return list, nil
	}
	out := &unstructured.UnstructuredList{Object: runtime.DeepCopyJSON(list.Object)}
	out.SetGroupVersionKind(to)
	for i := range list.Items {
		item, err := c.ConvertToVersion(&list.Items[i], target)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, *item.(*unstructured.Unstructured))
	}
	return out, nil
}

func (converter) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	// Each scope checks field selectors against its resource's fields (native.FieldLabels).
	return label, value, nil
}

// isSchemaReference tells whether u is an empty object made by a store's New().
func isSchemaReference(u *unstructured.Unstructured) bool {
	for k := range u.Object {
		if k != "apiVersion" && k != "kind" {
			return false
		}
	}
	return true
}

// defaulter applies no defaults: native templates are stored as written (the members
// default them when they are created there), custom resources get their schema's defaults
// in the strategy.
type defaulter struct{}

func (defaulter) Default(runtime.Object) {}

// parameterCodec decodes query parameters into the meta options of every version.
type parameterCodec struct{}

func (parameterCodec) DecodeParameters(parameters url.Values, _ schema.GroupVersion, into runtime.Object) error {
	return metainternalversionscheme.ParameterCodec.DecodeParameters(parameters, metav1.SchemeGroupVersion, into)
}

func (parameterCodec) EncodeParameters(obj runtime.Object, to schema.GroupVersion) (url.Values, error) {
	return metainternalversionscheme.ParameterCodec.EncodeParameters(obj, to)
}

// negotiatedSerializer serves JSON and YAML, and protobuf for the kinds client-go's scheme
// knows (not custom resources, as in a cluster).
type negotiatedSerializer struct {
	infos []runtime.SerializerInfo
	// native lists are written as kube-apiserver writes a typed list: items without
	// apiVersion and kind, no empty continue.
	native bool
}

// newNegotiatedSerializer is the serializers of one resource; decode, when not nil, is its
// kind's decoding of a request's object (custom resources: pruning and defaults), done as
// the body is decoded, before the field manager records what the request set.
func newNegotiatedSerializer(protobuf bool, decode func(*unstructured.Unstructured) ([]string, error)) negotiatedSerializer {
	c := creator{}
	var jsonSerializer, jsonStrict, yamlSerializer, yamlStrict runtime.Serializer
	jsonSerializer = json.NewSerializerWithOptions(json.DefaultMetaFactory, c, typer, json.SerializerOptions{})
	jsonPretty := json.NewSerializerWithOptions(json.DefaultMetaFactory, c, typer, json.SerializerOptions{Pretty: true})
	jsonStrict = json.NewSerializerWithOptions(json.DefaultMetaFactory, c, typer, json.SerializerOptions{Strict: true})
	yamlSerializer = json.NewSerializerWithOptions(json.DefaultMetaFactory, c, typer, json.SerializerOptions{Yaml: true})
	yamlStrict = json.NewSerializerWithOptions(json.DefaultMetaFactory, c, typer, json.SerializerOptions{Yaml: true, Strict: true})
	if decode != nil {
		jsonSerializer, jsonStrict = kindDecoder{jsonSerializer, decode, false}, kindDecoder{jsonStrict, decode, true}
		yamlSerializer, yamlStrict = kindDecoder{yamlSerializer, decode, false}, kindDecoder{yamlStrict, decode, true}
	}
	s := negotiatedSerializer{infos: []runtime.SerializerInfo{
		{
			MediaType: "application/json", MediaTypeType: "application", MediaTypeSubType: "json",
			EncodesAsText: true, Serializer: jsonSerializer, PrettySerializer: jsonPretty, StrictSerializer: jsonStrict,
			StreamSerializer: &runtime.StreamSerializerInfo{EncodesAsText: true, Serializer: jsonSerializer, Framer: json.Framer},
		},
		{
			MediaType: "application/yaml", MediaTypeType: "application", MediaTypeSubType: "yaml",
			EncodesAsText: true, Serializer: yamlSerializer, StrictSerializer: yamlStrict,
		},
	}}
	if protobuf {
		s.infos = append(s.infos, newProtobufInfo())
		s.native = true
	}
	return s
}

func (s negotiatedSerializer) SupportedMediaTypes() []runtime.SerializerInfo { return s.infos }

func (s negotiatedSerializer) EncoderForVersion(encoder runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	if s.native {
		encoder = typedListEncoder{encoder}
	}
	return versioning.NewCodec(encoder, nil, converter{}, creator{}, typer, defaulter{}, gv, nil, "fleet")
}

// kindDecoder decodes a request's object with its kind's rules. The fields those drop are
// reported by the strict serializer as strict decoding errors, which the request's
// fieldValidation makes an error (Strict) or warnings (Warn), as kube-apiserver's handlers
// do; the object is the decoded one either way.
type kindDecoder struct {
	runtime.Serializer
	decode func(*unstructured.Unstructured) ([]string, error)
	strict bool
}

func (d kindDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := d.Serializer.Decode(data, defaults, into)
	strictErr, isStrict := runtime.AsStrictDecodingError(err)
	if err != nil && !isStrict {
		return obj, gvk, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, gvk, err
	}
	unknown, derr := d.decode(u)
	if derr != nil {
		return obj, gvk, derr
	}
	if !d.strict || len(unknown) == 0 {
		return obj, gvk, err
	}
	var errs []error
	if isStrict {
		errs = strictErr.Errors()
	}
	for _, p := range unknown {
		errs = append(errs, fmt.Errorf("unknown field %q", p))
	}
	return obj, gvk, runtime.NewStrictDecodingError(errs)
}

// typedListEncoder writes a list of a native kind as kube-apiserver writes its typed list:
// the items without apiVersion and kind (client-go fills them in from the list's), and no
// continue on the last page. The list and its items are not changed: they may be the watch
// cache's.
type typedListEncoder struct{ runtime.Encoder }

func (e typedListEncoder) Encode(obj runtime.Object, w io.Writer) error {
	list, ok := obj.(*unstructured.UnstructuredList)
	if !ok {
		return e.Encoder.Encode(obj, w)
	}
	out := &unstructured.UnstructuredList{Object: without(list.Object), Items: make([]unstructured.Unstructured, len(list.Items))}
	if md, ok := list.Object["metadata"].(map[string]any); ok && md["continue"] == "" {
		out.Object["metadata"] = without(md, "continue")
	}
	for i := range list.Items {
		out.Items[i].Object = without(list.Items[i].Object, "apiVersion", "kind")
	}
	return e.Encoder.Encode(out, w)
}

// without is a shallow copy of m without keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

func (s negotiatedSerializer) DecoderToVersion(decoder runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	return versioning.NewCodec(nil, decoder, converter{}, creator{}, typer, defaulter{}, nil, gv, "fleet")
}
