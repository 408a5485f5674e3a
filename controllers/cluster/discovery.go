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

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// apiDocs keeps what each member's aggregated discovery said, with the ETag of each
// answer, so that a probe asks with If-None-Match and an unchanged document comes back as a
// 304 without a body, which fed does not decode again. Probed every 5 s, the discovery
// documents were a quarter of fed-apiserver's idle CPU over 1,000 clusters.
type apiDocs struct {
	mu   sync.Mutex
	docs map[string]*memberDocs // cluster → its documents
}

// memberDocs are one member's documents. A member's probes run one at a time (the
// workqueue hands its key to one worker at a time), so its documents need no lock of their
// own.
type memberDocs struct {
	host   string              // the endpoint they came from; another endpoint reads afresh
	byPath map[string]document // /api's and /apis's
}

// document is what one discovery document said, and its ETag.
type document struct {
	etag string
	apis []clusterv1alpha1.APIEnablement
}

// discoveryPaths are the two documents of aggregated discovery: the core group's and the
// others'.
var discoveryPaths = []string{"/api", "/apis"}

func newAPIDocs() *apiDocs { return &apiDocs{docs: map[string]*memberDocs{}} }

// forget drops a member's documents (the Cluster is gone).
func (a *apiDocs) forget(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.docs, name)
}

// member returns a member's documents as read from host, none if they came from another.
func (a *apiDocs) member(name, host string) *memberDocs {
	a.mu.Lock()
	defer a.mu.Unlock()
	d := a.docs[name]
	if d == nil || d.host != host {
		d = &memberDocs{host: host}
		a.docs[name] = d
	}
	return d
}

// enablements reads a member's APIs from its aggregated discovery, each document asked for
// with the ETag of its last answer. A member that does not answer with aggregated discovery
// (older than Kubernetes 1.27, or in front of a proxy that drops the content type) is read
// with client-go's discovery, every time. Group versions whose aggregated API server is
// unavailable are left out, as client-go's discovery leaves them.
func (a *apiDocs) enablements(ctx context.Context, name string, cs kubernetes.Interface) ([]clusterv1alpha1.APIEnablement, error) {
	rc, ok := cs.Discovery().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil || rc.Client == nil {
		return legacyEnablements(cs)
	}
	d := a.member(name, rc.Get().URL().Host)
	read := make(map[string]document, len(discoveryPaths))
	var out []clusterv1alpha1.APIEnablement
	for _, path := range discoveryPaths {
		doc, aggregated, err := readDocument(ctx, rc, path, d.byPath[path])
		if err != nil {
			return nil, err
		}
		if !aggregated {
			return legacyEnablements(cs)
		}
		read[path] = doc
		out = append(out, doc.apis...)
	}
	d.byPath = read
	return sortEnablements(out), nil
}

// readDocument GETs one aggregated discovery document, with If-None-Match when last has an
// ETag, and returns last again when the member answers that it is unchanged (304).
// aggregated is false when the member answered with another format.
func readDocument(ctx context.Context, rc *rest.RESTClient, path string, last document) (doc document, aggregated bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rc.Get().AbsPath(path).URL().String(), nil)
	if err != nil {
		return document{}, false, err
	}
	req.Header.Set("Accept", discovery.AcceptV2+","+runtimeJSON)
	if last.etag != "" {
		req.Header.Set("If-None-Match", last.etag)
	}
	resp, err := rc.Client.Do(req)
	if err != nil {
		return document{}, false, fmt.Errorf("discovering APIs: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode == http.StatusNotModified && last.etag != "" {
		_, _ = io.Copy(io.Discard, resp.Body)
		return last, true, nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return document{}, false, fmt.Errorf("discovering APIs: %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return document{}, false, fmt.Errorf("discovering APIs: %s: HTTP %d: %s", path, resp.StatusCode, truncate(body))
	}
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || params["g"] != apidiscoveryv2.SchemeGroupVersion.Group || params["v"] != apidiscoveryv2.SchemeGroupVersion.Version {
		return document{}, false, nil
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(body, &list); err != nil {
		return document{}, false, fmt.Errorf("discovering APIs: %s: %w", path, err)
	}
	_, lists, _ := discovery.SplitGroupsAndResources(list) // the failed group versions are left out
	return document{etag: resp.Header.Get("ETag"), apis: apiEnablements(slices.Collect(maps.Values(lists)))}, true, nil
}

// runtimeJSON is the plain JSON a member without aggregated discovery answers with.
const runtimeJSON = "application/json;q=0.9"

// legacyEnablements reads a member's APIs with client-go's discovery, a request per group
// version.
func legacyEnablements(cs kubernetes.Interface) ([]clusterv1alpha1.APIEnablement, error) {
	_, lists, err := cs.Discovery().ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovering APIs: %w", err)
	}
	return apiEnablements(lists), nil
}

// truncate keeps an error body short.
func truncate(b []byte) string {
	if len(b) > 256 {
		return string(b[:256]) + "…"
	}
	return string(b)
}
