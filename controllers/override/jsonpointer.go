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

package override

// The overriders change decoded JSON documents (the content of an unstructured object, or a
// document held in a string field) in place, addressed by JSON pointers (RFC 6901) with the
// add, remove and replace operations of JSON patch (RFC 6902). This is a small walker over
// map[string]interface{} and []interface{} rather than a JSON-patch library: the content
// stays decoded (no marshal round trip per operation, integers stay int64), and errors can
// name the pointer that failed.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// arrayIndex parses tok as an index into an array of length n. With forInsert the index may
// be n, and "-" means n.
func arrayIndex(tok string, n int, forInsert bool) (int, error) {
	if tok == "-" && forInsert {
		return n, nil
	}
	if tok == "" || len(tok) > 1 && tok[0] == '0' || strings.TrimLeft(tok, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not an array index", tok)
	}
	i, err := strconv.Atoi(tok)
	limit := n - 1
	if forInsert {
		limit = n
	}
	if err != nil || i > limit {
		return 0, fmt.Errorf("index %s is out of range for an array of %d", tok, n)
	}
	return i, nil
}

// getPointer returns the value at pointer and whether it exists.
func getPointer(doc interface{}, pointer string) (interface{}, bool, error) {
	tokens, err := policy.ParsePointer(pointer)
	if err != nil {
		return nil, false, err
	}
	node := doc
	for _, tok := range tokens {
		switch n := node.(type) {
		case map[string]interface{}:
			child, ok := n[tok]
			if !ok {
				return nil, false, nil
			}
			node = child
		case []interface{}:
			i, err := arrayIndex(tok, len(n), false)
			if err != nil {
				return nil, false, nil
			}
			node = n[i]
		default:
			return nil, false, nil
		}
	}
	return node, true, nil
}

// patchPointer performs one JSON-patch operation (add, remove or replace) at pointer and
// returns the new document. Maps of doc are changed in place; the caller owns doc. value is
// used for add and replace and must not be shared with other documents.
func patchPointer(doc interface{}, op federationv1alpha1.OverriderOperator, pointer string, value interface{}) (interface{}, error) {
	switch op {
	case federationv1alpha1.OverriderOpAdd, federationv1alpha1.OverriderOpRemove, federationv1alpha1.OverriderOpReplace:
	default:
		return nil, fmt.Errorf("operator %q is not add, remove or replace", op)
	}
	tokens, err := policy.ParsePointer(pointer)
	if err != nil {
		return nil, err
	}
	if len(tokens) == 0 {
		if op == federationv1alpha1.OverriderOpRemove {
			return nil, fmt.Errorf("path %q: cannot remove the whole document", pointer)
		}
		return value, nil
	}
	out, err := patchNode(doc, tokens, op, value)
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", pointer, err)
	}
	return out, nil
}

// patchNode applies op at tokens below node and returns node's new value.
func patchNode(node interface{}, tokens []string, op federationv1alpha1.OverriderOperator, value interface{}) (interface{}, error) {
	tok, last := tokens[0], len(tokens) == 1
	switch n := node.(type) {
	case map[string]interface{}:
		child, exists := n[tok]
		if !last {
			if !exists {
				return nil, fmt.Errorf("%q does not exist", tok)
			}
			newChild, err := patchNode(child, tokens[1:], op, value)
			if err != nil {
				return nil, err
			}
			n[tok] = newChild
			return n, nil
		}
		switch op {
		case federationv1alpha1.OverriderOpAdd:
			n[tok] = value
		case federationv1alpha1.OverriderOpReplace:
			if !exists {
				return nil, fmt.Errorf("%q does not exist, so it cannot be replaced", tok)
			}
			n[tok] = value
		case federationv1alpha1.OverriderOpRemove:
			if !exists {
				return nil, fmt.Errorf("%q does not exist, so it cannot be removed", tok)
			}
			delete(n, tok)
		}
		return n, nil
	case []interface{}:
		if !last {
			i, err := arrayIndex(tok, len(n), false)
			if err != nil {
				return nil, err
			}
			newChild, err := patchNode(n[i], tokens[1:], op, value)
			if err != nil {
				return nil, err
			}
			n[i] = newChild
			return n, nil
		}
		i, err := arrayIndex(tok, len(n), op == federationv1alpha1.OverriderOpAdd)
		if err != nil {
			return nil, err
		}
		switch op {
		case federationv1alpha1.OverriderOpAdd:
			out := make([]interface{}, 0, len(n)+1)
			out = append(out, n[:i]...)
			out = append(out, value)
			return append(out, n[i:]...), nil
		case federationv1alpha1.OverriderOpReplace:
			n[i] = value
			return n, nil
		default:
			out := make([]interface{}, 0, len(n)-1)
			out = append(out, n[:i]...)
			return append(out, n[i+1:]...), nil
		}
	case nil:
		return nil, fmt.Errorf("parent of %q is null", tok)
	default:
		return nil, fmt.Errorf("parent of %q is a %T, not an object or array", tok, node)
	}
}
