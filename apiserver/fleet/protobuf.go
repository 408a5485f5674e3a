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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// protobufSerializer speaks Kubernetes protobuf for the native kinds, which typed clients
// (kubectl create, client-go clientsets) send and prefer. Templates stay unstructured: a
// body is decoded into the kind's Go type from client-go's scheme and converted, and an
// object is converted to its Go type to be encoded.
type protobufSerializer struct {
	typed *protobuf.Serializer
}

const protobufMediaType = "application/vnd.kubernetes.protobuf"

func newProtobufInfo() runtime.SerializerInfo {
	s := protobufSerializer{typed: protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)}
	raw := protobuf.NewRawSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)
	return runtime.SerializerInfo{
		MediaType: protobufMediaType, MediaTypeType: "application", MediaTypeSubType: "vnd.kubernetes.protobuf",
		Serializer:       s,
		StrictSerializer: s, // protobuf has no unknown or duplicate fields
		StreamSerializer: &runtime.StreamSerializerInfo{Serializer: raw, Framer: protobuf.LengthDelimitedFramer},
	}
}

func (s protobufSerializer) Identifier() runtime.Identifier { return "fleet-protobuf" }

func (s protobufSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	switch into.(type) {
	case *unstructured.Unstructured, nil:
	default:
		return s.typed.Decode(data, defaults, into)
	}
	obj, gvk, err := s.typed.Decode(data, defaults, nil)
	if err != nil {
		return nil, gvk, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, gvk, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(*gvk)
	if into != nil {
		into.(*unstructured.Unstructured).Object = u.Object
		return into, gvk, nil
	}
	return u, gvk, nil
}

func (s protobufSerializer) Encode(obj runtime.Object, w io.Writer) error {
	switch u := obj.(type) {
	case *unstructured.Unstructured:
		typed, err := toTyped(u.GroupVersionKind(), u.Object)
		if err != nil {
			return err
		}
		return s.typed.Encode(typed, w)
	case *unstructured.UnstructuredList:
		typed, err := toTyped(u.GroupVersionKind(), u.UnstructuredContent())
		if err != nil {
			return err
		}
		return s.typed.Encode(typed, w)
	}
	return s.typed.Encode(obj, w)
}

func toTyped(gvk schema.GroupVersionKind, content map[string]any) (runtime.Object, error) {
	typed, err := clientgoscheme.Scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("%s has no protobuf form: %w", gvk, err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return typed, nil
}
