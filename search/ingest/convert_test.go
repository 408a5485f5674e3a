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

package ingest

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// token is a Secret's value in the cases below; tokenData is its base64, as in data.
const token, tokenData = "hunter2-token", "aHVudGVyMi10b2tlbg=="

// secretMeta is a Secret's metadata as the metadata client reads it, with m's fields.
func secretMeta(m map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": "s", "namespace": "a", "uid": "u-1", "resourceVersion": "7", "creationTimestamp": "2026-01-01T00:00:00Z"}
	maps.Copy(meta, m)
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": meta}}
}

// fieldsOf is a managedFields entry of manager that owns fields.
func fieldsOf(manager, operation string, fields map[string]any) []any {
	return []any{map[string]any{"manager": manager, "operation": operation, "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields}}
}

func TestConverterSecrets(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *unstructured.Unstructured
		// meta are the fields of metadata kept, annotations those kept with their values.
		meta        []string
		annotations map[string]string
	}{
		{name: "kubectl apply", in: secretMeta(map[string]any{
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"Secret",` +
				`"metadata":{"annotations":{},"name":"s","namespace":"a"},"stringData":{"token":"` + token + `"}}` + "\n"},
			"managedFields": fieldsOf("kubectl-client-side-apply", "Update", map[string]any{
				"f:data": map[string]any{".": map[string]any{}, "f:token": map[string]any{}},
				"f:metadata": map[string]any{"f:annotations": map[string]any{".": map[string]any{},
					"f:kubectl.kubernetes.io/last-applied-configuration": map[string]any{}}}}),
		}), meta: []string{"annotations", "creationTimestamp", "name", "namespace", "uid"}},
		{name: "kubectl create", in: secretMeta(map[string]any{
			"managedFields": fieldsOf("kubectl-create", "Update", map[string]any{"f:data": map[string]any{"f:token": map[string]any{}}}),
		}), meta: []string{"annotations", "creationTimestamp", "name", "namespace", "uid"}},
		{name: "server-side apply", in: secretMeta(map[string]any{
			"managedFields": fieldsOf("kubectl", "Apply", map[string]any{"f:stringData": map[string]any{"f:token": map[string]any{}}}),
		}), meta: []string{"annotations", "creationTimestamp", "name", "namespace", "uid"}},
		{name: "a token Secret keeps its service account", in: secretMeta(map[string]any{
			"annotations": map[string]any{"kubernetes.io/service-account.name": "builder", "kubernetes.io/service-account.uid": "u-2"},
		}), meta: []string{"annotations", "creationTimestamp", "name", "namespace", "uid"},
			annotations: map[string]string{"kubernetes.io/service-account.name": "builder", "kubernetes.io/service-account.uid": "u-2"}},
		{name: "only the annotations named, not their prefixes", in: secretMeta(map[string]any{
			"annotations": map[string]any{
				"federation.fedhq.io/work":           "a.s-secret",
				"federation.fedhq.io/template-uid":   "u-3",
				"meta.helm.sh/release-name":          "shop",
				"federation.fedhq.io/note":           token,
				"cluster.fedhq.io/token":             token,
				"kubernetes.io/service-account.note": token,
				"openshift.io/token-secret.value":    token,
				"team.example.com/api-key":           token,
				"search.fedhq.io/stale":              token,
				"search.fedhq.io/cluster":            token,
			},
		}), meta: []string{"annotations", "creationTimestamp", "name", "namespace", "uid"},
			annotations: map[string]string{"federation.fedhq.io/work": "a.s-secret", "federation.fedhq.io/template-uid": "u-3", "meta.helm.sh/release-name": "shop"}},
		{name: "every field of metadata", in: secretMeta(map[string]any{
			"generateName": "s-", "generation": int64(1), "labels": map[string]any{"app": "web"},
			"ownerReferences":            []any{map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "name": "builder", "uid": "u-2"}},
			"finalizers":                 []any{"example.com/keep"},
			"deletionTimestamp":          "2026-01-02T00:00:00Z",
			"deletionGracePeriodSeconds": int64(0),
			"selfLink":                   "/api/v1/namespaces/a/secrets/s",
			"aFieldOfLaterKubernetes":    token,
		}), meta: []string{"annotations", "creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "finalizers",
			"generateName", "generation", "labels", "name", "namespace", "ownerReferences", "uid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Converter{Cluster: "member1", Resource: schema.GroupResource{Resource: "secrets"}, APIVersion: "v1", Kind: "Secret", MetadataOnly: true,
				Fields: map[string][]string{"type": {"type"}}}
			// A client that read more than metadata: the converter drops it all the same.
			in := tc.in.DeepCopy()
			in.Object["data"] = map[string]any{"token": tokenData}
			in.Object["stringData"] = map[string]any{"token": token}
			in.Object["type"] = "Opaque"
			o, err := c.Object(in)
			if err != nil {
				t.Fatal(err)
			}
			stored := string(o.Meta) + string(o.Body) + strings.Join(slices.Collect(maps.Values(o.Fields)), " ")
			if strings.Contains(stored, token) || strings.Contains(stored, strings.TrimRight(tokenData, "=")) {
				t.Errorf("the Secret's value reached the cache: %s %s %v", o.Meta, o.Body, o.Fields)
			}
			if string(o.Body) != `{"apiVersion":"v1","kind":"Secret"}` {
				t.Errorf("body %s, want apiVersion and kind only", o.Body)
			}
			if want := map[string]string{"metadata.name": "s", "metadata.namespace": "a"}; !maps.Equal(o.Fields, want) {
				t.Errorf("fields %v, want %v", o.Fields, want)
			}
			var meta map[string]any
			if err := json.Unmarshal(o.Meta, &meta); err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(meta)); !slices.Equal(got, tc.meta) {
				t.Errorf("metadata fields %v, want %v", got, tc.meta)
			}
			want := map[string]string{AnnotationCluster: "member1"}
			maps.Copy(want, tc.annotations)
			got := map[string]string{}
			for k, v := range meta["annotations"].(map[string]any) {
				got[k] = v.(string)
			}
			if !maps.Equal(got, want) {
				t.Errorf("annotations %v, want %v", got, want)
			}
		})
	}
}

// TestConverterConfigMaps: a kind read whole keeps its data and every annotation,
// kubectl's last-applied-configuration included.
func TestConverterConfigMaps(t *testing.T) {
	last := `{"apiVersion":"v1","data":{"color":"blue"},"kind":"ConfigMap"}`
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": "a",
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": last, "note": "kept"}},
		"data": map[string]any{"color": "blue"}}}
	c := &Converter{Cluster: "member1", Resource: schema.GroupResource{Resource: "configmaps"}}
	o, err := c.Object(cm)
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Body) != `{"apiVersion":"v1","data":{"color":"blue"},"kind":"ConfigMap"}` {
		t.Errorf("body %s, want the ConfigMap's data", o.Body)
	}
	var meta map[string]any
	if err := json.Unmarshal(o.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	a := meta["annotations"].(map[string]any)
	if a["kubectl.kubernetes.io/last-applied-configuration"] != last || a["note"] != "kept" || a[AnnotationCluster] != "member1" {
		t.Errorf("annotations %v, want the ConfigMap's and the cluster's", a)
	}
}
