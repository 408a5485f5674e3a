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

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// requestCounts is an apiserver's apiserver_request_total, summed by verb, resource and
// subresource ("PATCH works/status"), as its /metrics says now.
type requestCounts map[string]float64

// scrapeMetrics reads the /metrics of the server cs talks to.
func scrapeMetrics(ctx context.Context, cs kubernetes.Interface) (map[string]*dto.MetricFamily, error) {
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(body))
}

// countRequests reads the apiserver_request_total of the server cs talks to.
func countRequests(ctx context.Context, cs kubernetes.Interface) (requestCounts, error) {
	families, err := scrapeMetrics(ctx, cs)
	if err != nil {
		return nil, err
	}
	counts := requestCounts{}
	family, ok := families["apiserver_request_total"]
	if !ok {
		return counts, nil
	}
	for _, m := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["resource"] == "" { // /metrics, /readyz and the like
			continue
		}
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		if strings.HasPrefix(labels["code"], "409") {
			key += " (409)"
		}
		counts[key] += m.GetCounter().GetValue()
	}
	return counts, nil
}

// since is what was counted after before, divided by per; the lines are sorted by count,
// largest first, those under 0.05 left out.
func (c requestCounts) since(before requestCounts, per float64) []string {
	type line struct {
		key string
		n   float64
	}
	var lines []line
	for k, n := range c {
		if d := (n - before[k]) / per; d >= 0.05 {
			lines = append(lines, line{k, d})
		}
	}
	slices.SortFunc(lines, func(a, b line) int {
		if a.n != b.n {
			if a.n > b.n {
				return -1
			}
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%6.2f %s", l.n, l.key)
	}
	return out
}

// writesSince is how many write requests (anything but GET, LIST, WATCH and CONNECT) were
// counted after before.
func (c requestCounts) writesSince(before requestCounts) float64 {
	var n float64
	for k, v := range c {
		switch verb, _, _ := strings.Cut(k, " "); verb {
		case "GET", "LIST", "WATCH", "CONNECT":
		default:
			n += v - before[k]
		}
	}
	return n
}

// readGauge reads one unlabelled gauge of the server cs talks to from its /metrics, e.g.
// go_memstats_heap_inuse_bytes.
func readGauge(ctx context.Context, cs kubernetes.Interface, name string) (float64, error) {
	families, err := scrapeMetrics(ctx, cs)
	if err != nil {
		return 0, err
	}
	family, ok := families[name]
	if !ok || len(family.GetMetric()) == 0 {
		return 0, fmt.Errorf("/metrics has no %s", name)
	}
	return family.GetMetric()[0].GetGauge().GetValue(), nil
}
