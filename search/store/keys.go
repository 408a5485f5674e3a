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

package store

import (
	"bytes"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Keys. Every cached object is one key,
//
//	o/<group>/<resource>/<cluster>/<namespace>/<name>
//
// so that a kind, a kind in one cluster, and (one seek per cluster) a kind in one namespace
// are prefix scans, and a list comes out grouped by cluster, then ordered by namespace and
// name. Each source (a cluster's kind, in one namespace or all) keeps the member
// resourceVersion it has reached under
//
//	s/<cluster>/<group>/<resource>/<namespace>
//
// Names, namespaces, clusters, groups and resources never contain a "/".
const (
	objectPrefix     = "o/"
	checkpointPrefix = "s/"
)

// Source is what one informer of a member fills: a kind of one cluster, in one namespace or
// (Namespace "") in all of them.
type Source struct {
	Cluster   string
	Resource  schema.GroupResource
	Namespace string
}

func (s Source) String() string {
	r := s.Resource.String() + " of cluster " + s.Cluster
	if s.Namespace != "" {
		r += " in namespace " + s.Namespace
	}
	return r
}

// kindPrefix is the prefix of every object of a kind.
func kindPrefix(gr schema.GroupResource) []byte {
	return []byte(objectPrefix + gr.Group + "/" + gr.Resource + "/")
}

// clusterPrefix is the prefix of a kind's objects in one cluster.
func clusterPrefix(gr schema.GroupResource, cluster string) []byte {
	return append(kindPrefix(gr), cluster+"/"...)
}

// prefix is the prefix of the source's objects.
func (s Source) prefix() []byte {
	p := clusterPrefix(s.Resource, s.Cluster)
	if s.Namespace != "" {
		p = append(p, s.Namespace+"/"...)
	}
	return p
}

func (s Source) checkpointKey() []byte {
	return []byte(checkpointPrefix + s.Cluster + "/" + s.Resource.Group + "/" + s.Resource.Resource + "/" + s.Namespace)
}

// objectKey is the key of one object.
func objectKey(gr schema.GroupResource, cluster, namespace, name string) []byte {
	return append(clusterPrefix(gr, cluster), namespace+"/"+name...)
}

// keyParts is what an object key names past its kind.
type keyParts struct {
	cluster, namespace, name string
}

// parseKey splits an object key of the kind whose prefix is kp.
func parseKey(kp, key []byte) (keyParts, error) {
	rest, ok := bytes.CutPrefix(key, kp)
	if !ok {
		return keyParts{}, fmt.Errorf("key %q is not under %q", key, kp)
	}
	parts := strings.SplitN(string(rest), "/", 3)
	if len(parts) != 3 {
		return keyParts{}, fmt.Errorf("malformed key %q", key)
	}
	return keyParts{cluster: parts[0], namespace: parts[1], name: parts[2]}, nil
}

// after is the smallest key greater than every key that starts with prefix p (p ends with
// "/", which sorts below every byte a name may hold, so 0xff past it is after them all).
func after(p []byte) []byte {
	return append(bytes.Clone(p), 0xff)
}
