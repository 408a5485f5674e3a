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

package metricsadapter

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	custommetrics "k8s.io/metrics/pkg/apis/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/apis/external_metrics"
)

// customFetch answers custom and external keys: member3 serves neither group, member4
// fails; the others answer with one value, and record the paths they were asked.
type customFetch struct{ paths map[string]string }

func (f *customFetch) fetch(_ context.Context, key cacheKey) (*answer, error) {
	switch key.cluster {
	case "member3":
		return nil, &NotServedError{Group: CustomGroup}
	case "member4":
		return nil, errors.New("connection refused")
	}
	f.paths[key.cluster] = key.path
	if key.kind == external {
		return &answer{external: []externalmetrics.ExternalMetricValue{{MetricName: "queue", MetricLabels: map[string]string{"q": "jobs"}, Value: resource.MustParse("7")}}}, nil
	}
	v := custommetrics.MetricValue{Value: resource.MustParse("300m")}
	v.DescribedObject.Name = "web-" + key.cluster
	return &answer{custom: []custommetrics.MetricValue{v}}, nil
}

func TestCustomMetrics(t *testing.T) {
	f := &customFetch{paths: map[string]string{}}
	a := New(members{ready: []string{"member1", "member2", "member3"}}, Options{})
	a.fetch = f.fetch
	sel := labels.SelectorFromSet(labels.Set{"app": "web"})
	metricSel, err := labels.Parse("verb=GET," + LabelCluster + " in (member1,member3)")
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.CustomMetrics(context.Background(), CustomQuery{Resource: schema.GroupResource{Resource: "pods"}, Namespace: "ns", Name: "*",
		Metric: "http_requests", Selector: sel, MetricSelector: metricSel})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Cluster != "member1" {
		t.Fatalf("items %+v, want member1's only (the selector names member1 and member3, which serves none)", res.Items)
	}
	if want := "/namespaces/ns/pods/*/http_requests?labelSelector=app%3Dweb&metricLabelSelector=verb%3DGET"; f.paths["member1"] != want {
		t.Errorf("member1 asked %q, want %q (the cluster requirement is not passed on)", f.paths["member1"], want)
	}
	if _, asked := f.paths["member2"]; asked {
		t.Error("member2 was asked, though the selector leaves it out")
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "member3 does not serve custom.metrics.k8s.io") }) {
		t.Errorf("warnings %q do not name member3", res.Warnings)
	}

	// Only members that serve none: NotServedError; every serving member failing: AllFailedError.
	only3 := New(members{ready: []string{"member3"}}, Options{})
	only3.fetch = f.fetch
	_, err = only3.CustomMetrics(context.Background(), CustomQuery{Resource: schema.GroupResource{Resource: "pods"}, Name: "x", Metric: "m"})
	var notServed *NotServedError
	if !errors.As(err, &notServed) {
		t.Errorf("err %v, want NotServedError", err)
	}
	failing := New(members{ready: []string{"member3", "member4"}}, Options{})
	failing.fetch = f.fetch
	_, err = failing.CustomMetrics(context.Background(), CustomQuery{Resource: schema.GroupResource{Resource: "pods"}, Name: "x", Metric: "m"})
	var all *AllFailedError
	if !errors.As(err, &all) {
		t.Errorf("err %v, want AllFailedError", err)
	}
}

func TestCustomPath(t *testing.T) {
	for _, tc := range []struct {
		q    CustomQuery
		want string
	}{
		{CustomQuery{Resource: schema.GroupResource{Resource: "pods"}, Namespace: "ns", Name: "p", Metric: "m"}, "/namespaces/ns/pods/p/m"},
		{CustomQuery{Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}, Namespace: "ns", Metric: "m"}, "/namespaces/ns/deployments.apps/*/m"},
		{CustomQuery{Resource: schema.GroupResource{Resource: "nodes"}, Name: "n", Metric: "m"}, "/nodes/n/m"},
		{CustomQuery{Resource: schema.GroupResource{Resource: "namespaces"}, Name: "ns", Metric: "m"}, "/namespaces/ns/metrics/m"},
	} {
		if got := customPath(tc.q); got != tc.want {
			t.Errorf("customPath(%+v) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestExternalMetrics(t *testing.T) {
	f := &customFetch{paths: map[string]string{}}
	a := New(members{ready: []string{"member2", "member1"}}, Options{})
	a.fetch = f.fetch
	res, err := a.ExternalMetrics(context.Background(), ExternalQuery{Namespace: "ns", Metric: "queue", MetricSelector: labels.SelectorFromSet(labels.Set{"q": "jobs"})})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range res.Items {
		got = append(got, v.Cluster+"="+v.MetricLabels[LabelCluster]+"/"+v.MetricLabels["q"])
	}
	if want := []string{"member1=member1/jobs", "member2=member2/jobs"}; !slices.Equal(got, want) {
		t.Errorf("items %v, want %v (labelled with their member, in order of name)", got, want)
	}
	if want := "/namespaces/ns/queue?labelSelector=q%3Djobs"; f.paths["member1"] != want {
		t.Errorf("member1 asked %q, want %q", f.paths["member1"], want)
	}
}
