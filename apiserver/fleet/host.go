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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/klog/v2"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/fedhq/fed/apis/native"
	"github.com/fedhq/fed/apiserver/fleet/tables"
)

// hostState is what the fleet read from the host: its kinds and their schemas.
type hostState struct {
	resources     []*resource
	typeConverter managedfields.TypeConverter
	// openAPIV2 is the host's /openapi/v2 document, raw.
	openAPIV2 []byte
	// version is the host's /version, which the fleet answers: it serves the host's API.
	version *version.Info
}

// excludedGroups are host groups the fleet does not take templates of: fed's own (served
// by fed-apiserver itself) and metrics, which are read-only.
var excludedGroups = map[string]bool{"metrics.k8s.io": true}

// templateVerbs are the verbs of every template kind.
var templateVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// readHost reads the kinds the host serves (its preferred version of each group) and their
// OpenAPI schemas.
func (f *Fleet) readHost(ctx context.Context) (*hostState, error) {
	groups, lists, err := f.hostDiscovery.ServerGroupsAndResources()
	if err != nil {
		var failed *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &failed) || len(lists) == 0 {
			return nil, fmt.Errorf("reading the host's API discovery: %w", err)
		}
		// fed's own groups do not answer the host while fed-apiserver starts; the fleet
		// serves them itself.
		for gv, gerr := range failed.Groups {
			if !f.fedGroups[gv.Group] {
				klog.ErrorS(gerr, "A group of the host did not answer discovery; the fleet serves the others", "groupVersion", gv)
			}
		}
	}
	preferred := map[string]string{}
	for _, g := range groups {
		preferred[g.Name] = g.PreferredVersion.Version
	}
	state := &hostState{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil || preferred[gv.Group] != gv.Version || excludedGroups[gv.Group] || f.fedGroups[gv.Group] {
			continue
		}
		subresources := map[string][]string{}
		for _, r := range list.APIResources {
			if name, sub, ok := strings.Cut(r.Name, "/"); ok {
				subresources[name] = append(subresources[name], sub)
			}
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !hasVerbs(r.Verbs, "create", "get", "list") {
				continue
			}
			res := &resource{
				gvr:                 gv.WithResource(r.Name),
				kind:                r.Kind,
				listKind:            r.Kind + "List",
				singular:            r.SingularName,
				namespaced:          r.Namespaced,
				shortNames:          r.ShortNames,
				categories:          r.Categories,
				verbs:               templateVerbs,
				status:              slices.Contains(subresources[r.Name], "status"),
				scale:               slices.Contains(subresources[r.Name], "scale"),
				table:               tables.For(schema.GroupKind{Group: gv.Group, Kind: r.Kind}),
				fields:              native.FieldLabels(schema.GroupResource{Group: gv.Group, Resource: r.Name}),
				returnsDeleted:      native.ReturnsDeletedObject(schema.GroupResource{Group: gv.Group, Resource: r.Name}),
				unconditionalUpdate: true,
			}
			if res.singular == "" {
				res.singular = strings.ToLower(r.Kind)
			}
			if res.gvr == nodesResource {
				res.memberView, res.verbs, res.status = true, memberViewVerbs, false
				state.resources = append(state.resources, res)
				continue
			}
			f.nativeHooks(res)
			f.rolloutHooks(res)
			namespaceHooks(res)
			f.crdHooks(res)
			state.resources = append(state.resources, res)
		}
	}
	state.openAPIV2, state.typeConverter = f.readHostOpenAPI(ctx)
	if state.version, err = f.hostDiscovery.ServerVersion(); err != nil {
		return nil, fmt.Errorf("reading the host's version: %w", err)
	}
	return state, nil
}

func hasVerbs(verbs []string, want ...string) bool {
	for _, v := range want {
		if !slices.Contains(verbs, v) {
			return false
		}
	}
	return true
}

// readHostOpenAPI returns the host's OpenAPI v2 document and a type converter built from
// it, so that server-side apply merges lists of native templates by their keys. Without a
// document, server-side apply still works, treating lists as atomic.
func (f *Fleet) readHostOpenAPI(ctx context.Context) ([]byte, managedfields.TypeConverter) {
	deduced := managedfields.NewDeducedTypeConverter()
	raw, err := f.hostDiscovery.RESTClient().Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").Do(ctx).Raw()
	if err != nil {
		klog.ErrorS(err, "Reading the host's OpenAPI v2 document; server-side apply treats lists as atomic")
		return nil, deduced
	}
	if prev := f.host.Load(); prev != nil && bytes.Equal(raw, prev.openAPIV2) {
		return prev.openAPIV2, prev.typeConverter // unchanged: building a converter takes a while
	}
	var doc spec.Swagger
	if err := json.Unmarshal(raw, &doc); err != nil {
		klog.ErrorS(err, "Parsing the host's OpenAPI v2 document")
		return raw, deduced
	}
	defs := make(map[string]*spec.Schema, len(doc.Definitions))
	for name, s := range doc.Definitions {
		defs[name] = &s
	}
	f.addV3Defaults(defs)
	tc, err := managedfields.NewTypeConverter(defs, false)
	if err != nil {
		klog.ErrorS(err, "Building the type converter from the host's OpenAPI; server-side apply treats lists as atomic")
		return raw, deduced
	}
	return raw, tc
}

// addV3Defaults gives the properties of defs (the host's OpenAPI v2 definitions) the
// defaults the host's OpenAPI v3 documents state and v2 leaves out. Server-side apply
// needs them for keys of lists: a Service's ports are keyed by port and protocol, and a
// port applied without protocol (TCP by default) must be the stored one, defaulted to TCP,
// not a second one. kube-apiserver's own type converter has them. Without v3 documents
// (an error is logged), lists merge as before.
func (f *Fleet) addV3Defaults(defs map[string]*spec.Schema) {
	paths, err := f.hostDiscovery.OpenAPIV3().Paths()
	if err != nil {
		klog.ErrorS(err, "Reading the host's OpenAPI v3 paths; server-side apply lacks the defaults of list keys")
		return
	}
	for path, gv := range paths {
		if !strings.HasPrefix(path, "api/") && !strings.HasPrefix(path, "apis/") {
			continue
		}
		raw, err := gv.Schema("application/json")
		if err != nil {
			klog.ErrorS(err, "Reading the host's OpenAPI v3 document", "path", path)
			continue
		}
		var doc struct {
			Components struct {
				Schemas map[string]*spec.Schema `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			klog.ErrorS(err, "Parsing the host's OpenAPI v3 document", "path", path)
			continue
		}
		for name, s3 := range doc.Components.Schemas {
			s2, ok := defs[name]
			if !ok || s3 == nil {
				continue
			}
			for prop, p3 := range s3.Properties {
				if p2, ok := s2.Properties[prop]; ok && p2.Default == nil && p3.Default != nil {
					p2.Default = p3.Default
					s2.Properties[prop] = p2
				}
			}
		}
	}
}

// nativeHooks sets the validation of a native kind: the host's dry run.
func (f *Fleet) nativeHooks(r *resource) {
	v := f.cfg.HostValidator
	if v == nil {
		return
	}
	gvr, namespaced := r.gvr, r.namespaced
	if gvr.Resource == "events" {
		// Events are the fleet's own record of what happened to templates (fed's controllers
		// write one per sync), never templates: a host round trip for each would cost more
		// than it checks.
		return
	}
	r.validate = func(ctx context.Context, obj *unstructured.Unstructured, fieldValidation string) ([]string, *unstructured.Unstructured, error) {
		return v.Validate(ctx, gvr, namespaced, obj, fieldValidation)
	}
	r.validateUpdate = func(ctx context.Context, obj, _ *unstructured.Unstructured, fieldValidation string) ([]string, *unstructured.Unstructured, error) {
		return v.Validate(ctx, gvr, namespaced, obj, fieldValidation)
	}
	var fold func(*unstructured.Unstructured) ([]string, error)
	if gvr.GroupResource() == (schema.GroupResource{Resource: "secrets"}) {
		fold = foldStringData
	}
	r.decodeBody = decoders(fold, r.decodeBody, nativeDecoder(r.gvk()))
	service := gvr.GroupResource() == (schema.GroupResource{Resource: "services"})
	r.completed = func(obj, old, dryRun *unstructured.Unstructured) {
		withHostDefaults(obj, dryRun)
		if service && old == nil {
			fleetClusterIPs(obj, dryRun)
		}
		if old != nil {
			// The generation counts changes of what is stored, the host's defaults
			// included: an update that only leaves out a default changes nothing.
			setGeneration(obj, old)
		}
	}
	if service {
		// A Service template has a cluster IP of the fleet's own, so that tools that wait for
		// one (helm --wait) find it; it is never sent to the members (they allocate their
		// own), and an update keeps it, as a cluster does.
		r.prepareUpdate = copyClusterIPs
	}
}

// copyClusterIPs gives a Service template without a cluster IP the one the stored template
// has, on an update. from may be nil.
func copyClusterIPs(obj, from *unstructured.Unstructured) {
	if from == nil {
		return
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "clusterIP"); found {
		return
	}
	for _, f := range []string{"clusterIP", "clusterIPs"} {
		if v, found, _ := unstructured.NestedFieldCopy(from.Object, "spec", f); found {
			_ = unstructured.SetNestedField(obj.Object, v, "spec", f)
		}
	}
}

// fleetClusterIPs gives a new Service template without a cluster IP one of the fleet's own
// for each address the host's dry run gave it (dryRun; nil when the host could not
// validate it: one IPv4 address then), "None" kept for a headless one. The host's dry run
// allocates nothing (it answers its range's network address, the same for every Service),
// and a template runs nowhere, so the fleet's addresses are taken from ranges that are
// never routed, where nobody can take one for a real Service: IPv4's reserved 240.0.0.0/4
// and IPv6's documentation prefix 2001:db8::/32, the rest of the address made of the
// template's UID.
func fleetClusterIPs(obj, dryRun *unstructured.Unstructured) {
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "clusterIP"); found {
		return
	}
	if t, _, _ := unstructured.NestedString(obj.Object, "spec", "type"); t == "ExternalName" {
		return
	}
	hostIPs := []string{"0.0.0.0"}
	if dryRun != nil {
		hostIPs, _, _ = unstructured.NestedStringSlice(dryRun.Object, "spec", "clusterIPs")
	}
	sum := sha256.Sum256([]byte(obj.GetUID()))
	var ips []any
	for _, ip := range hostIPs {
		switch addr, err := netip.ParseAddr(ip); {
		case ip == "None":
			ips = append(ips, ip)
		case err != nil:
			continue
		case addr.Is4():
			ips = append(ips, netip.AddrFrom4([4]byte{0xf0 | sum[0]&0x0f, sum[1], sum[2], sum[3]}).String())
		default:
			var b [16]byte
			copy(b[:], []byte{0x20, 0x01, 0x0d, 0xb8})
			copy(b[4:], sum[4:16])
			ips = append(ips, netip.AddrFrom16(b).String())
		}
	}
	if len(ips) == 0 {
		return
	}
	_ = unstructured.SetNestedField(obj.Object, ips[0], "spec", "clusterIP")
	_ = unstructured.SetNestedSlice(obj.Object, ips, "spec", "clusterIPs")
}
