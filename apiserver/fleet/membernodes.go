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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/warning"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	sigsjson "sigs.k8s.io/json"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apiserver/scheme"
)

// Members are the member clusters, for what the fleet shows of them rather than stores:
// their nodes.
type Members interface {
	// Ready are the names of the Ready members, sorted.
	Ready() []string
	// Config reaches a member with fed's credentials.
	Config(cluster string) (*rest.Config, error)
}

// nodesResource is the one kind the fleet shows from the members instead of storing
// templates of it: a Node template would mean nothing, and kubectl top nodes reads the
// nodes' capacity from the same server as their metrics.
var nodesResource = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// memberViewVerbs are the verbs of the nodes in the fleet.
var memberViewVerbs = []string{"get", "list"}

// serveMemberNodes answers get and list of nodes with the nodes of every Ready member,
// each labelled cluster.fedhq.io/cluster (a Table gets a CLUSTER column after NAME). The
// request was authorized by the host's rules on nodes; the members are asked with fed's
// credentials.
func (f *Fleet) serveMemberNodes(w http.ResponseWriter, req *http.Request, info *request.RequestInfo) {
	gr := nodesResource.GroupResource()
	fail := func(err error) {
		responsewriters.ErrorNegotiated(err, scheme.Codecs, nodesResource.GroupVersion(), w, req)
	}
	if f.cfg.Members == nil {
		fail(apierrors.NewServiceUnavailable("the fleet's nodes are its members': fed's controllers are not running"))
		return
	}
	notAllowed := func(msg string) {
		err := apierrors.NewMethodNotSupported(gr, info.Verb)
		err.ErrStatus.Message = msg
		fail(err)
	}
	switch info.Verb {
	case "get", "list":
	case "watch":
		notAllowed("the fleet's nodes are read from its members when asked and cannot be watched here: watch them in a member, " +
			"or through the fleet proxy (kubectl fed kubeconfig --proxy) with nodes in a ResourceRegistry")
		return
	default:
		notAllowed(fmt.Sprintf("the fleet's nodes are its members' own and cannot be %s here: change a node in its member "+
			"(kubectl --kubeconfig MEMBER ..., or the host's clusters/CLUSTER/proxy)", pastTense(info.Verb)))
		return
	}
	if info.Subresource != "" {
		fail(apierrors.NewNotFound(schema.GroupResource{Resource: "nodes/" + info.Subresource}, info.Name))
		return
	}
	table := strings.Contains(req.Header.Get("Accept"), "as=Table")
	// A selector on the cluster label picks the members asked; the rest goes to them.
	clusterReqs, memberSelector, err := splitClusterSelector(req.URL.Query().Get("labelSelector"))
	if err != nil {
		fail(apierrors.NewBadRequest(err.Error()))
		return
	}
	var clusters []string
	for _, c := range f.cfg.Members.Ready() {
		if clusterReqs.Matches(labels.Set{clusterv1alpha1.LabelCluster: c}) {
			clusters = append(clusters, c)
		}
	}
	answers := make([][]byte, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = f.memberNodes(req.Context(), c, req, info, table, memberSelector)
		}()
	}
	wg.Wait()

	var items []unstructured.Unstructured
	var t *metav1.Table
	failed := 0
	for i, c := range clusters {
		err := errs[i]
		if apierrors.IsNotFound(err) && info.Verb == "get" {
			continue
		}
		if err == nil {
			err = mergeNodes(answers[i], c, table, &items, &t)
		}
		if err != nil {
			failed++
			warning.AddWarning(req.Context(), "", fmt.Sprintf("cluster %s: its nodes could not be read: %v", c, err))
		}
	}
	if len(clusters) > 0 && failed == len(clusters) {
		fail(apierrors.NewServiceUnavailable(fmt.Sprintf("no member cluster answered for its nodes: %v", errors.Join(errs...))))
		return
	}
	switch {
	case info.Verb == "get" && table && (t == nil || len(t.Rows) == 0),
		info.Verb == "get" && !table && len(items) == 0:
		fail(apierrors.NewNotFound(gr, info.Name))
	case table:
		if t == nil {
			t = &metav1.Table{}
		}
		t.APIVersion, t.Kind = metav1.SchemeGroupVersion.String(), "Table"
		t.ResourceVersion, t.Continue = "", ""
		if info.Verb == "get" && len(t.Rows) > 1 {
			t.Rows = t.Rows[:1]
		}
		writeObjectJSON(w, t)
	case info.Verb == "get":
		if len(items) > 1 {
			warning.AddWarning(req.Context(), "", fmt.Sprintf("node %q is in several clusters: showing %s's", info.Name,
				items[0].GetLabels()[clusterv1alpha1.LabelCluster]))
		}
		writeObjectJSON(w, items[0].Object)
	default:
		list := map[string]any{"apiVersion": "v1", "kind": "NodeList", "metadata": map[string]any{}, "items": []any{}}
		objs := make([]any, len(items))
		for i := range items {
			objs[i] = items[i].Object
		}
		list["items"] = objs
		writeObjectJSON(w, list)
	}
}

// splitClusterSelector splits a label selector into its requirements on the cluster label
// and the others (as a selector string for the members).
func splitClusterSelector(s string) (labels.Selector, string, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, "", err
	}
	reqs, _ := sel.Requirements()
	clusterSel, rest := labels.NewSelector(), labels.NewSelector()
	for _, r := range reqs {
		if r.Key() == clusterv1alpha1.LabelCluster {
			clusterSel = clusterSel.Add(r)
		} else {
			rest = rest.Add(r)
		}
	}
	return clusterSel, rest.String(), nil
}

// pastTense is a write verb as it reads after "cannot be".
func pastTense(verb string) string {
	switch verb {
	case "create":
		return "created"
	case "update", "patch":
		return "changed"
	case "delete", "deletecollection":
		return "deleted"
	}
	return verb + "ed"
}

// memberNodes asks a member for its nodes as the request asks the fleet (a Table or a
// list; one node or all), without paging.
func (f *Fleet) memberNodes(ctx context.Context, cluster string, req *http.Request, info *request.RequestInfo, table bool, selector string) ([]byte, error) {
	cfg, err := f.cfg.Members.Config(cluster)
	if err != nil {
		return nil, err
	}
	cfg.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	client, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	r := client.Get().AbsPath("/api/v1/nodes")
	if info.Verb == "get" {
		r = r.Name(info.Name)
	}
	if selector != "" {
		r = r.Param("labelSelector", selector)
	}
	q := req.URL.Query()
	for _, p := range []string{"fieldSelector", "resourceVersion", "includeObject"} {
		if v := q.Get(p); v != "" {
			r = r.Param(p, v)
		}
	}
	accept := "application/json"
	if table {
		accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
	}
	res := r.SetHeader("Accept", accept).Do(ctx)
	if err := res.Error(); err != nil {
		return nil, err
	}
	return res.Raw()
}

// mergeNodes adds a member's answer to the items (or to the Table), labelled with its
// cluster.
func mergeNodes(data []byte, cluster string, table bool, items *[]unstructured.Unstructured, t **metav1.Table) error {
	if table {
		var part metav1.Table
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &part); err != nil {
			return err
		}
		if *t == nil {
			*t = &metav1.Table{ColumnDefinitions: withClusterColumn(part.ColumnDefinitions)}
		}
		for _, row := range part.Rows {
			if len(row.Cells) > 0 {
				row.Cells = append([]any{row.Cells[0], cluster}, row.Cells[1:]...)
			}
			row.Object = labelRowObject(row.Object, cluster)
			(*t).Rows = append((*t).Rows, row)
		}
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return err
	}
	add := func(obj unstructured.Unstructured) {
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterv1alpha1.LabelCluster] = cluster
		obj.SetLabels(labels)
		*items = append(*items, obj)
	}
	if u.IsList() {
		list, err := u.ToList()
		if err != nil {
			return err
		}
		for _, item := range list.Items {
			add(item)
		}
		return nil
	}
	add(*u)
	return nil
}

// withClusterColumn puts a Cluster column after the first (NAME).
func withClusterColumn(cols []metav1.TableColumnDefinition) []metav1.TableColumnDefinition {
	cluster := metav1.TableColumnDefinition{Name: "Cluster", Type: "string", Description: "The member cluster the node is in."}
	if len(cols) == 0 {
		return []metav1.TableColumnDefinition{cluster}
	}
	return append([]metav1.TableColumnDefinition{cols[0], cluster}, cols[1:]...)
}

// labelRowObject labels a Table row's object (its metadata, as the member sent it) with the
// cluster, so that -L and --show-labels show it.
func labelRowObject(obj runtime.RawExtension, cluster string) runtime.RawExtension {
	if len(obj.Raw) == 0 {
		return obj
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(obj.Raw); err != nil {
		return obj
	}
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[clusterv1alpha1.LabelCluster] = cluster
	u.SetLabels(labels)
	if data, err := u.MarshalJSON(); err == nil {
		obj.Raw = data
	}
	return obj
}

// writeObjectJSON writes obj as JSON with status 200.
func writeObjectJSON(w http.ResponseWriter, obj any) {
	data, err := json.Marshal(obj)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}
