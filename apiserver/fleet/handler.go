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
	"net/http"
	"slices"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// patchTypes are the patches of a native kind; a custom resource takes them but the
// strategic merge patch, which needs a Go type (kube answers 415 for it).
var patchTypes = []string{
	string(types.JSONPatchType),
	string(types.MergePatchType),
	string(types.StrategicMergePatchType),
	string(types.ApplyYAMLPatchType),
}

var customResourcePatchTypes = slices.DeleteFunc(slices.Clone(patchTypes), func(t string) bool { return t == string(types.StrategicMergePatchType) })

func (s *served) patchTypes() []string {
	if s.r.fromCRD {
		return customResourcePatchTypes
	}
	return patchTypes
}

// served is one resource as the fleet serves it: its storage and request scopes.
type served struct {
	r        *resource
	storage  *restStorage
	main     *handlers.RequestScope
	status   *handlers.RequestScope
	scale    *handlers.RequestScope
	finalize *handlers.RequestScope
}

// scopeConfig is what every request scope shares.
type scopeConfig struct {
	authorizer          authorizer.Authorizer
	maxRequestBodyBytes int64
}

func newServed(r *resource, st *restStorage, typeConverter managedfields.TypeConverter, sc scopeConfig) (*served, error) {
	s := &served{r: r, storage: st}
	gvk := r.gvk()
	base := handlers.RequestScope{
		Namer:                    handlers.ContextBasedNaming{Namer: meta.NewAccessor(), ClusterScoped: !r.namespaced},
		Serializer:               newNegotiatedSerializer(clientgoscheme.Scheme.Recognizes(gvk), r.decodeBody),
		ParameterCodec:           parameterCodec{},
		Creater:                  creator{},
		Convertor:                fieldLabelConverter{r: r},
		Defaulter:                defaulter{},
		Typer:                    typer,
		UnsafeConvertor:          converter{typedReferences: true},
		Authorizer:               sc.authorizer,
		EquivalentResourceMapper: runtime.NewEquivalentResourceRegistry(),
		TableConvertor:           st.main,
		Resource:                 r.gvr,
		Kind:                     gvk,
		MetaGroupVersion:         metav1.SchemeGroupVersion,
		HubGroupVersion:          gvk.GroupVersion(),
		MaxRequestBodyBytes:      sc.maxRequestBodyBytes,
	}
	main := base
	fm, err := managedfields.NewDefaultFieldManager(typeConverter, converter{}, defaulter{}, creator{}, gvk, gvk.GroupVersion(), "",
		fieldpath.NewExcludeFilterSetMap(newStrategy(r).GetResetFields()))
	if err != nil {
		return nil, fmt.Errorf("field manager of %s: %w", r.gvr, err)
	}
	main.FieldManager = fm
	s.main = &main

	if st.status != nil {
		status := base
		status.Subresource = "status"
		fm, err := managedfields.NewDefaultFieldManager(typeConverter, converter{}, defaulter{}, creator{}, gvk, gvk.GroupVersion(), "status",
			fieldpath.NewExcludeFilterSetMap(st.status.GetResetFields()))
		if err != nil {
			return nil, fmt.Errorf("status field manager of %s: %w", r.gvr, err)
		}
		status.FieldManager = fm
		s.status = &status
	}
	if st.finalize != nil {
		finalize := base
		finalize.Subresource = "finalize"
		fm, err := managedfields.NewDefaultFieldManager(typeConverter, converter{}, defaulter{}, creator{}, gvk, gvk.GroupVersion(), "finalize", nil)
		if err != nil {
			return nil, fmt.Errorf("finalize field manager of %s: %w", r.gvr, err)
		}
		finalize.FieldManager = fm
		s.finalize = &finalize
	}
	if st.scale != nil {
		scale := base
		scaleGVK := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
		scale.Subresource = "scale"
		scale.Serializer = serializer.NewCodecFactory(metaScheme)
		scale.Kind = scaleGVK
		scale.HubGroupVersion = scaleGVK.GroupVersion()
		scale.Creater = metaScheme
		scale.Convertor = metaScheme
		scale.UnsafeConvertor = runtime.UnsafeObjectConvertor(metaScheme)
		scale.Defaulter = metaScheme
		scale.TableConvertor = rest.NewDefaultTableConvertor(r.gvr.GroupResource())
		fm, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), metaScheme, metaScheme, metaScheme,
			scaleGVK, scaleGVK.GroupVersion(), "scale", nil)
		if err != nil {
			return nil, fmt.Errorf("scale field manager of %s: %w", r.gvr, err)
		}
		scale.FieldManager = fm
		s.scale = &scale
	}
	return s, nil
}

// serveResource serves a request for a resource of the fleet.
func (s *served) serveResource(w http.ResponseWriter, req *http.Request, info *request.RequestInfo, admit admission.Interface, minRequestTimeout time.Duration) {
	st := s.storage
	switch info.Subresource {
	case "":
		switch info.Verb {
		case "get":
			handlers.GetResource(st.main, s.main).ServeHTTP(w, req)
		case "list", "watch":
			handlers.ListResource(st.main, st.main, s.main, false, minRequestTimeout).ServeHTTP(w, req)
		case "create":
			handlers.CreateResource(st.main, s.main, admit).ServeHTTP(w, req)
		case "update":
			handlers.UpdateResource(st.main, s.main, admit).ServeHTTP(w, req)
		case "patch":
			handlers.PatchResource(st.main, s.main, admit, s.patchTypes()).ServeHTTP(w, req)
		case "delete":
			handlers.DeleteResource(st.main, true, s.main, admit).ServeHTTP(w, req)
		case "deletecollection":
			if !slices.Contains(s.r.verbs, "deletecollection") {
				// As kube-apiserver, which routes no such method.
				err := apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, "", schema.GroupResource{}, "", "", 0, false)
				responsewriters.ErrorNegotiated(err, s.main.Serializer, s.r.gvr.GroupVersion(), w, req)
				return
			}
			handlers.DeleteCollection(st.main, true, s.main, admit).ServeHTTP(w, req)
		default:
			s.methodNotSupported(w, req, info)
		}
	case "status":
		if st.status == nil {
			s.notFound(w, req, info)
			return
		}
		s.serveSubresource(w, req, info, st.status, s.status, admit, s.patchTypes())
	case "finalize":
		if st.finalize == nil {
			s.notFound(w, req, info)
			return
		}
		if info.Verb != "update" {
			s.methodNotSupported(w, req, info)
			return
		}
		handlers.UpdateResource(st.finalize, s.finalize, admit).ServeHTTP(w, req)
	case "scale":
		if st.scale == nil {
			s.notFound(w, req, info)
			return
		}
		s.serveSubresource(w, req, info, st.scale, s.scale, admit, patchTypes)
	default:
		s.notFound(w, req, info)
	}
}

// serveSubresource serves status and scale: get, update and patch.
func (s *served) serveSubresource(w http.ResponseWriter, req *http.Request, info *request.RequestInfo, r rest.Patcher, scope *handlers.RequestScope,
	admit admission.Interface, patchTypes []string) {
	switch info.Verb {
	case "get":
		handlers.GetResource(r, scope).ServeHTTP(w, req)
	case "update":
		handlers.UpdateResource(r, scope, admit).ServeHTTP(w, req)
	case "patch":
		handlers.PatchResource(r, scope, admit, patchTypes).ServeHTTP(w, req)
	default:
		s.methodNotSupported(w, req, info)
	}
}

func (s *served) notFound(w http.ResponseWriter, req *http.Request, info *request.RequestInfo) {
	err := apierrors.NewNotFound(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource + "/" + info.Subresource}, info.Name)
	err.ErrStatus.Message = fmt.Sprintf("the fleet serves no subresource %q of %s", info.Subresource, s.r.gvr.GroupResource())
	responsewriters.ErrorNegotiated(err, s.main.Serializer, s.r.gvr.GroupVersion(), w, req)
}

func (s *served) methodNotSupported(w http.ResponseWriter, req *http.Request, info *request.RequestInfo) {
	err := apierrors.NewMethodNotSupported(s.r.gvr.GroupResource(), info.Verb)
	responsewriters.ErrorNegotiated(err, s.main.Serializer, s.r.gvr.GroupVersion(), w, req)
}
