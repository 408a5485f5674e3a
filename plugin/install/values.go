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

// Package install installs fed-apiserver into a host cluster and removes it again, as
// `kubectl fed init` and `kubectl fed deinit` do: it renders the Helm chart
// artifacts/charts/fed (embedded in the binary, rendered with Helm's own library, so the
// objects are exactly those helm install and artifacts/deploy make), makes the serving
// certificate, applies the objects with server-side apply, waits for the APIServices and
// deletes what an install made.
package install

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/strvals"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

const (
	// Namespace is where the chart installs fed-apiserver.
	Namespace = clusterv1alpha1.FedNamespace
	// ServingSecret is the chart's Secret of fed-apiserver's serving certificate.
	ServingSecret = "fed-apiserver-serving"
	// FieldManager is the manager of the fields init applies.
	FieldManager = "kubectl-fed"

	// StorageBadger and StorageEtcd3 are the chart's storage modes.
	StorageBadger = "badger"
	StorageEtcd3  = "etcd3"
)

// Settings are what init sets in the chart's values; every other value keeps the chart's
// default (values.yaml) unless Set changes it.
type Settings struct {
	// Storage is badger or etcd3.
	Storage         string
	EtcdServers     []string
	EtcdCertsSecret string
	// Replicas is the number of fed-apiserver replicas; 0 keeps the chart's default (1 on
	// Badger, 2 on etcd3).
	Replicas int
	// Image is REPOSITORY[:TAG] or REPOSITORY@DIGEST; "" keeps the chart's repository.
	Image string
	// DefaultTag is the image tag when Image names none; "" keeps the chart's (its
	// appVersion).
	DefaultTag string
	// Set are Helm --set expressions (key=value,key2=value2) for the other values.
	Set []string
	// Certs are the serving certificate's Secret values (tls.crt, tls.key, tls.ca); nil
	// renders no Secret.
	Certs *Certs
	// CABundle, when set, is what the APIServices trust instead of Certs.CA.
	CABundle []byte
}

// Validate checks the settings: first the flags' combinations the chart would refuse
// less clearly, then by rendering the chart (with a placeholder certificate when there is
// none yet), so that its own refusals come before anything is asked of the host.
func (s Settings) Validate() error {
	switch s.Storage {
	case StorageBadger:
		if len(s.EtcdServers) > 0 || s.EtcdCertsSecret != "" {
			return fmt.Errorf("--etcd-servers and --etcd-certs-secret are for --storage=etcd3; Badger is fed-apiserver's embedded database")
		}
	case StorageEtcd3:
		if len(s.EtcdServers) == 0 {
			return fmt.Errorf("--storage=etcd3 needs --etcd-servers: the client URLs of an existing etcd, e.g. --etcd-servers=https://etcd-0.etcd:2379,https://etcd-1.etcd:2379")
		}
	default:
		return fmt.Errorf("--storage must be %s or %s, not %q", StorageBadger, StorageEtcd3, s.Storage)
	}
	if s.Replicas < 0 {
		return fmt.Errorf("--replicas must not be negative")
	}
	if s.Certs == nil {
		s.Certs = placeholderCerts
	}
	_, err := Render(s)
	return err
}

// placeholderCerts stand for the serving certificate where only the objects matter.
var placeholderCerts = &Certs{Cert: []byte("-"), Key: []byte("-"), CA: []byte("-")}

// ownedValues are the values init sets from its flags or makes itself: --set may not set
// them (or anything under them).
var ownedValues = []struct{ key, why string }{
	{"storage.mode", "use --storage"},
	{"storage.etcd.servers", "use --etcd-servers"},
	{"storage.etcd.certsSecret", "use --etcd-certs-secret"},
	{"replicas", "use --replicas"},
	{"image.repository", "use --image"},
	{"image.tag", "use --image"},
	{"tls", "init makes the serving certificate; to bring your own, create the Secret " + Namespace + "/" + ServingSecret +
		" (tls.crt for fed-apiserver." + Namespace + ".svc, tls.key, ca.crt) before init"},
	{"apiService.caBundle", "init sets it to the CA of the serving certificate"},
	{"namespace.create", "init creates the namespace " + Namespace},
	{"helmLabels", "init's objects are not a Helm release"},
}

// parseSet parses Helm --set expressions into values, refusing the values init owns.
func parseSet(exprs []string) (map[string]any, error) {
	vals := map[string]any{}
	for _, e := range exprs {
		one, err := strvals.Parse(e)
		if err != nil {
			return nil, fmt.Errorf("--set %s: %w", e, err)
		}
		for _, key := range leafKeys(one, "") {
			for _, o := range ownedValues {
				if key == o.key || strings.HasPrefix(key, o.key+".") || strings.HasPrefix(o.key, key+".") {
					return nil, fmt.Errorf("--set %s: init sets %s itself: %s", e, o.key, o.why)
				}
			}
		}
		if err := strvals.ParseInto(e, vals); err != nil {
			return nil, fmt.Errorf("--set %s: %w", e, err)
		}
	}
	return vals, nil
}

// leafKeys are the dotted paths of the values under m.
func leafKeys(m map[string]any, prefix string) []string {
	var keys []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			keys = append(keys, leafKeys(sub, prefix+k+".")...)
			continue
		}
		keys = append(keys, prefix+k)
	}
	slices.Sort(keys)
	return keys
}

// Values are the chart values of s: --set first, then init's own.
func (s Settings) Values() (map[string]any, error) {
	vals, err := parseSet(s.Set)
	if err != nil {
		return nil, err
	}
	set := func(path string, v any) {
		m := vals
		keys := strings.Split(path, ".")
		for _, k := range keys[:len(keys)-1] {
			sub, ok := m[k].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[k] = sub
			}
			m = sub
		}
		m[keys[len(keys)-1]] = v
	}
	set("namespace.create", true)
	set("helmLabels", false)
	set("storage.mode", s.Storage)
	if s.Storage == StorageEtcd3 {
		servers := make([]any, len(s.EtcdServers))
		for i, u := range s.EtcdServers {
			servers[i] = u
		}
		set("storage.etcd.servers", servers)
		set("storage.etcd.certsSecret", s.EtcdCertsSecret)
	}
	if s.Replicas > 0 {
		set("replicas", int64(s.Replicas))
	}
	repo, tag := SplitImage(s.Image)
	if repo != "" {
		set("image.repository", repo)
	}
	if tag == "" {
		tag = s.DefaultTag
	}
	if tag != "" {
		set("image.tag", tag)
	}
	if c := s.Certs; c != nil {
		set("tls.crt", string(c.Cert))
		set("tls.key", string(c.Key))
		set("tls.ca", string(c.CA))
	}
	if len(s.CABundle) > 0 {
		set("apiService.caBundle", base64Std(s.CABundle))
	}
	return vals, nil
}

// SplitImage splits REPOSITORY[:TAG] at the tag's colon (one after the last slash, so a
// registry's port stays in the repository). REPOSITORY@sha256:DIGEST splits as
// "REPOSITORY@sha256" and the digest, which the chart's "repository:tag" joins back.
func SplitImage(image string) (repository, tag string) {
	slash := strings.LastIndex(image, "/")
	if i := strings.LastIndex(image, ":"); i > slash {
		return image[:i], image[i+1:]
	}
	return image, ""
}

// releaseVersion is a version kubectl-fed is released as (make release VERSION=…): its
// image carries the same tag. Builds between releases (v1.2.3-4-gabcdef, -dirty, dev)
// are not.
var releaseVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?$`)

// ImageTagFor is the fed-apiserver image tag that goes with kubectl-fed version v: v itself
// for a release, else "" (the chart's appVersion).
func ImageTagFor(v string) string {
	if releaseVersion.MatchString(v) {
		return v
	}
	return ""
}
