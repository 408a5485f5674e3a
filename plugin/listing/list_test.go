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

package listing

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fedhq/fed/internal/golden"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/tools/cache"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/tables"
)

var (
	deployMapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}
	podMapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Scope:            meta.RESTScopeNamespace,
	}
)

// The columns of a member's Deployments; the fleet's lack the wide ones.
var deployColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Ready", Type: "string"},
	{Name: "Up-to-date", Type: "integer"},
	{Name: "Available", Type: "integer"},
	{Name: "Age", Type: "string"},
	{Name: "Containers", Type: "string", Priority: 1},
	{Name: "Images", Type: "string", Priority: 1},
	{Name: "Selector", Type: "string", Priority: 1},
}

var podColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Ready", Type: "string"},
	{Name: "Status", Type: "string"},
	{Name: "Restarts", Type: "string"},
	{Name: "Age", Type: "string"},
	{Name: "IP", Type: "string", Priority: 1},
	{Name: "Node", Type: "string", Priority: 1},
}

// metaObject is the PartialObjectMetadata of a Table row.
func metaObject(ns, name string, labels map[string]string) runtime.Object {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("meta.k8s.io/v1")
	u.SetKind("PartialObjectMetadata")
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

func row(obj runtime.Object, cells ...any) metav1.TableRow {
	return metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}}
}

func tableResult(cluster string, mapping *meta.RESTMapping, cols []metav1.TableColumnDefinition, rows ...metav1.TableRow) sourceResult {
	return sourceResult{
		Source: source{Cluster: cluster},
		Infos:  []*resource.Info{{Mapping: mapping, Object: &metav1.Table{ColumnDefinitions: cols, Rows: rows}}},
	}
}

var managed = map[string]string{"app": "web", federationv1alpha1.LabelManaged: "true"}

// deployResults are the fleet's template web and the Deployments of member1 (managed by
// fed) and member2 (made by hand), plus api of member2 only.
func deployResults() []sourceResult {
	return []sourceResult{
		tableResult("", deployMapping, deployColumns[:5],
			row(metaObject("shop", "web", map[string]string{"app": "web"}), "web", "0/4", int64(0), int64(0), "12m")),
		tableResult("member1", deployMapping, deployColumns,
			row(metaObject("shop", "web", managed), "web", "2/2", int64(2), int64(2), "11m", "nginx", "nginx:1.27", "app=web")),
		tableResult("member2", deployMapping, deployColumns,
			row(metaObject("shop", "api", map[string]string{"app": "api"}), "api", "1/1", int64(1), int64(1), "3d", "api", "example.com/api:v2", "app=api"),
			row(metaObject("shop", "web", map[string]string{"app": "web"}), "web", "1/2", int64(2), int64(1), "45s", "nginx", "nginx:1.27", "app=web")),
		{Source: source{Cluster: "member3"}, Err: os.ErrDeadlineExceeded}, // a failed member is left out
	}
}

func podResults() []sourceResult {
	return []sourceResult{
		tableResult("member1", podMapping, podColumns,
			row(metaObject("shop", "web-6d4b-x2x9", managed), "web-6d4b-x2x9", "1/1", "Running", "0", "11m", "10.0.0.4", "member1-node-0"),
			row(metaObject("shop", "web-6d4b-a7kq", managed), "web-6d4b-a7kq", "1/1", "Running", "0", "11m", "10.0.0.5", "member1-node-0")),
		tableResult("member2", podMapping, podColumns,
			row(metaObject("shop", "web-9f8c-pp2m", map[string]string{"app": "web"}), "web-9f8c-pp2m", "0/1", "Pending", "0", "45s", "<none>", "<none>")),
		tableResult("member3", podMapping, podColumns),
	}
}

func newTestOptions(output string, mutate func(*kubectlget.PrintFlags, *Options)) *Options {
	o := &Options{PrintFlags: kubectlget.NewGetPrintFlags(), Namespace: "shop", Args: []string{"deployments"}}
	*o.PrintFlags.OutputFormat = output
	if mutate != nil {
		mutate(o.PrintFlags, o)
	}
	return o
}

func TestGetGolden(t *testing.T) {
	both := func() []sourceResult { return append(deployResults(), podResults()...) }
	cases := []struct {
		name    string
		output  string
		results func() []sourceResult
		mutate  func(*kubectlget.PrintFlags, *Options)
	}{
		{name: "deploy", results: deployResults},
		{name: "deploy-wide", output: "wide", results: deployResults},
		{name: "deploy-all-namespaces-labels", results: deployResults, mutate: func(pf *kubectlget.PrintFlags, o *Options) {
			o.AllNamespaces = true
			*pf.HumanReadableFlags.ShowLabels = true
		}},
		{name: "deploy-no-headers", results: deployResults, mutate: func(pf *kubectlget.PrintFlags, _ *Options) { *pf.NoHeaders = true }},
		{name: "deploy-templates-only", results: func() []sourceResult { return deployResults()[:1] }},
		{name: "pods", results: podResults, mutate: func(pf *kubectlget.PrintFlags, _ *Options) {
			*pf.HumanReadableFlags.ColumnLabels = []string{"app"}
		}},
		{name: "pods-wide", output: "wide", results: podResults},
		{name: "deploy-and-pods", results: both},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := newTestOptions(c.output, c.mutate)
			parts, err := tableParts(c.results())
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := tables.Print(&out, tables.Merge(parts), o.PrintFlags, o.AllNamespaces); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "get-"+c.name+".txt", out.Bytes())
		})
	}
}

func fullObject(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetCreationTimestamp(metav1.Unix(1700000000, 0))
	return u
}

func objectResults() []sourceResult {
	item := func(cluster string, objs ...*unstructured.Unstructured) sourceResult {
		r := sourceResult{Source: source{Cluster: cluster}}
		for _, o := range objs {
			r.Infos = append(r.Infos, &resource.Info{Mapping: deployMapping, Object: o})
		}
		return r
	}
	return []sourceResult{
		item("", fullObject("apps/v1", "Deployment", "shop", "web")),
		item("member2", fullObject("apps/v1", "Deployment", "shop", "web"), fullObject("apps/v1", "Deployment", "shop", "api")),
		item("member1", fullObject("apps/v1", "Deployment", "shop", "web")),
	}
}

func TestGetObjectsGolden(t *testing.T) {
	for _, output := range []string{"yaml", "name", "custom-columns=NAME:.metadata.name,CLUSTER:.metadata.annotations.cluster\\.fedhq\\.io/cluster"} {
		name := strings.SplitN(output, "=", 2)[0]
		t.Run(name, func(t *testing.T) {
			o := newTestOptions(output, nil)
			if strings.HasPrefix(output, "custom-columns=") {
				*o.PrintFlags.OutputFormat = "custom-columns"
				o.PrintFlags.TemplateFlags.TemplateArgument = ptr.To(strings.TrimPrefix(output, "custom-columns="))
			}
			var out bytes.Buffer
			if _, err := o.printObjects(&out, objectResults()); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "get-objects-"+name+".txt", out.Bytes())
		})
	}
}

// TestGetYAMLRoundTrip reads the List of -o yaml back: each item has its cluster.
func TestGetYAMLRoundTrip(t *testing.T) {
	o := newTestOptions("yaml", nil)
	var out bytes.Buffer
	if _, err := o.printObjects(&out, objectResults()); err != nil {
		t.Fatal(err)
	}
	var list unstructured.UnstructuredList
	j, err := yaml.YAMLToJSON(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := list.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, item := range list.Items {
		got = append(got, cache.NewObjectName(item.GetNamespace(), item.GetName()).String()+"@"+item.GetAnnotations()[fleet.AnnotationCluster])
	}
	want := []string{"shop/api@member2", "shop/web@", "shop/web@member2", "shop/web@member1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items %v, want %v", got, want)
	}
}

func TestGetSingleObject(t *testing.T) {
	o := newTestOptions("name", nil)
	o.Args = []string{"deploy", "api"}
	var out bytes.Buffer
	if _, err := o.printObjects(&out, objectResults()[1:2]); err != nil {
		t.Fatal(err)
	}
	// Two objects: a List, printed as names.
	if got := out.String(); got != "deployment.apps/api\ndeployment.apps/web\n" {
		t.Errorf("got %q", got)
	}
}

func TestSplitArgs(t *testing.T) {
	isTemplate := func(typ string) (bool, error) { return typ != "pods" && typ != "po" && typ != "nodes", nil }
	cases := []struct {
		args          []string
		tmpl, members []string
	}{
		{[]string{"deploy"}, []string{"deploy"}, nil},
		{[]string{"pods"}, nil, []string{"pods"}},
		{[]string{"deploy,pods,svc", "a", "b"}, []string{"deploy,svc", "a", "b"}, []string{"pods", "a", "b"}},
		{[]string{"deploy/a", "po/b"}, []string{"deploy/a"}, []string{"po/b"}},
	}
	for _, c := range cases {
		tmpl, members, err := splitArgs(c.args, isTemplate)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tmpl, c.tmpl) || !reflect.DeepEqual(members, c.members) {
			t.Errorf("splitArgs(%v) = %v, %v; want %v, %v", c.args, tmpl, members, c.tmpl, c.members)
		}
	}
}
