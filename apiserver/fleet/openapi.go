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
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/fedhq/fed/apiserver/fleet/crd"
)

// serveOpenAPI serves the fleet's OpenAPI: the host's documents (the native kinds and fed's
// groups have the same paths and schemas there as in the fleet) with the documents of the
// fleet's CRDs added, so that kubectl explain, client-side and server-side field
// validation work as on a cluster.
func (f *Fleet) serveOpenAPI(w http.ResponseWriter, req *http.Request, set *servedSet) {
	p := strings.TrimSuffix(req.URL.Path, "/")
	crds := f.establishedCRDs(req)
	var body []byte
	var err error
	switch {
	case p == "/openapi/v2":
		body, err = f.openAPIV2(crds)
	case p == "/openapi/v3":
		body, err = f.openAPIV3Index(req, crds)
	default:
		gvPath := strings.TrimPrefix(p, "/openapi/v3/")
		body, err = f.openAPIV3Doc(req, gvPath, crds)
	}
	if apierrors.IsNotFound(err) {
		body, err = nil, nil
	}
	if err != nil {
		responsewriters.InternalError(w, req, err)
		return
	}
	if body == nil {
		http.NotFound(w, req)
		return
	}
	// kubectl's client-side validation asks for the v2 document in protobuf.
	if p == "/openapi/v2" && strings.Contains(req.Header.Get("Accept"), "protobuf") {
		proto, err := handler.ToProtoBinary(body)
		if err != nil {
			responsewriters.InternalError(w, req, err)
			return
		}
		w.Header().Set("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
		_, _ = w.Write(proto)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (f *Fleet) establishedCRDs(req *http.Request) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, c := range f.crdTemplates(req.Context()) {
		if crd.Established(c) {
			out = append(out, c)
		}
	}
	return out
}

func (f *Fleet) openAPIV2(crds []*unstructured.Unstructured) ([]byte, error) {
	raw := f.host.Load().openAPIV2
	if len(crds) == 0 && raw != nil {
		return raw, nil
	}
	static := &spec.Swagger{}
	if raw != nil {
		if err := json.Unmarshal(raw, static); err != nil {
			return nil, err
		}
	}
	merged, err := crd.OpenAPIV2WithStatic(static, crds)
	if err != nil {
		return nil, err
	}
	return json.Marshal(merged)
}

// openAPIV3Index is the host's index with its links pointing into the fleet, plus the
// group versions of the fleet's CRDs.
func (f *Fleet) openAPIV3Index(req *http.Request, crds []*unstructured.Unstructured) ([]byte, error) {
	raw, err := f.hostGet(req, "/openapi/v3")
	if err != nil {
		return nil, err
	}
	var index handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, err
	}
	for k, v := range index.Paths {
		v.ServerRelativeURL = Path + v.ServerRelativeURL
		index.Paths[k] = v
	}
	for _, gv := range crdGroupVersions(crds) {
		doc, err := crd.OpenAPIV3(crds, gv)
		if err != nil || doc == nil {
			continue
		}
		body, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		key := "apis/" + gv.String()
		index.Paths[key] = handler3.OpenAPIV3DiscoveryGroupVersion{
			ServerRelativeURL: fmt.Sprintf("%s/openapi/v3/%s?hash=%X", Path, key, sha512.Sum512(body)),
		}
	}
	return json.Marshal(index)
}

func (f *Fleet) openAPIV3Doc(req *http.Request, gvPath string, crds []*unstructured.Unstructured) ([]byte, error) {
	if g, ok := strings.CutPrefix(gvPath, "apis/"); ok {
		if gv, err := schema.ParseGroupVersion(g); err == nil {
			doc, err := crd.OpenAPIV3(crds, gv)
			if err != nil {
				return nil, err
			}
			if doc != nil {
				return json.Marshal(doc)
			}
		}
	}
	return f.hostGet(req, "/openapi/v3/"+gvPath)
}

func crdGroupVersions(crds []*unstructured.Unstructured) []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for _, c := range crds {
		group, _, _ := unstructured.NestedString(c.Object, "spec", "group")
		versions, _, _ := unstructured.NestedSlice(c.Object, "spec", "versions")
		for _, v := range versions {
			m, _ := v.(map[string]any)
			name, _ := m["name"].(string)
			if served, _ := m["served"].(bool); !served || name == "" {
				continue
			}
			gv := schema.GroupVersion{Group: group, Version: name}
			if !seen[gv] {
				seen[gv] = true
				out = append(out, gv)
			}
		}
	}
	return out
}

// hostGet reads a document of the host's, with the request's query.
func (f *Fleet) hostGet(req *http.Request, path string) ([]byte, error) {
	r := f.hostDiscovery.RESTClient().Get().AbsPath(path).SetHeader("Accept", "application/json")
	for k, vs := range req.URL.Query() {
		for _, v := range vs {
			r = r.Param(k, v)
		}
	}
	return r.Do(req.Context()).Raw()
}
