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

package policy

import (
	"fmt"
	"slices"
	"strings"
)

// What a template is, its identity, is its apiVersion, kind, namespace and name: what the
// host authorized its author to write. An override, or anything else fed does to a
// template on its way to a member, may change what the object holds but never which
// object it is; otherwise a ConfigMap its author may write in one namespace could become
// a ClusterRoleBinding, or an object of kube-system.

// identityPaths are the JSON pointers (as reference tokens) of a manifest's identity.
var identityPaths = [][]string{{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"}}

// TouchesIdentity says whether an operation at pointer (a JSON pointer, as overriders
// take) could change a manifest's identity: a pointer to an identity field, into one, or
// to a field holding one (the whole object, metadata). It returns the identity field it
// would change, for the message. A pointer that does not parse is left to the caller.
func TouchesIdentity(pointer string) (string, bool) {
	tokens, err := ParsePointer(pointer)
	if err != nil {
		return "", false
	}
	for _, p := range identityPaths {
		n := min(len(tokens), len(p))
		if slices.Equal(tokens[:n], p[:n]) {
			return "/" + strings.Join(p, "/"), true
		}
	}
	return "", false
}

// Identity is what a manifest is: its apiVersion, kind, namespace and name.
type Identity struct {
	APIVersion, Kind, Namespace, Name string
}

// IdentityOf is obj's identity.
func IdentityOf(obj Object) Identity {
	return Identity{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

func (i Identity) String() string {
	name := i.Name
	if i.Namespace != "" {
		name = i.Namespace + "/" + i.Name
	}
	return fmt.Sprintf("%s %s (%s)", i.Kind, name, i.APIVersion)
}

// SameIdentity returns an error when manifest is not the same object as template: a
// different apiVersion, kind, namespace or name.
func SameIdentity(manifest, template Object) error {
	got, want := IdentityOf(manifest), IdentityOf(template)
	if got == want {
		return nil
	}
	return fmt.Errorf("the manifest would be %s where its template is %s: overrides and resource interpreter customizations may not change a manifest's apiVersion, kind, namespace or name", got, want)
}

// ParsePointer splits a JSON pointer (RFC 6901) into its unescaped reference tokens. ""
// is the whole document.
func ParsePointer(pointer string) ([]string, error) {
	if pointer == "" {
		return nil, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("path %q is not a JSON pointer: it must be empty or start with \"/\"", pointer)
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, tok := range tokens {
		if !strings.Contains(tok, "~") {
			continue
		}
		for j := 0; j < len(tok); j++ {
			if tok[j] == '~' && (j+1 == len(tok) || tok[j+1] != '0' && tok[j+1] != '1') {
				return nil, fmt.Errorf("path %q: \"~\" must be followed by 0 or 1", pointer)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}
