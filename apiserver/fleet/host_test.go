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
	"net/netip"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func TestFleetClusterIPs(t *testing.T) {
	svc := func(uid string, spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service", "spec": spec}}
		u.SetUID(types.UID(uid))
		return u
	}
	dry := func(ips ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"clusterIP": ips[0], "clusterIPs": ips}}}
	}
	ipsOf := func(u *unstructured.Unstructured) []string {
		ips, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "clusterIPs")
		return ips
	}
	fleet4, fleet6 := netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("2001:db8::/32")

	a, b := svc("uid-a", map[string]any{}), svc("uid-b", map[string]any{})
	fleetClusterIPs(a, dry("10.96.0.0"))
	fleetClusterIPs(b, dry("10.96.0.0"))
	ipA, ipB := ipsOf(a), ipsOf(b)
	if len(ipA) != 1 || !fleet4.Contains(netip.MustParseAddr(ipA[0])) || ipA[0] == ipB[0] {
		t.Errorf("two Services got %q and %q, want two addresses of 240.0.0.0/4", ipA, ipB)
	}
	if ip, _, _ := unstructured.NestedString(a.Object, "spec", "clusterIP"); ip != ipA[0] {
		t.Errorf("clusterIP %q, want the first of clusterIPs %q", ip, ipA)
	}
	again := svc("uid-a", map[string]any{})
	fleetClusterIPs(again, dry("10.96.0.0"))
	if !reflect.DeepEqual(ipsOf(again), ipA) {
		t.Errorf("the same UID got %q, then %q", ipA, ipsOf(again))
	}

	dual := svc("uid-d", map[string]any{})
	fleetClusterIPs(dual, dry("10.96.0.0", "fd00::"))
	if ips := ipsOf(dual); len(ips) != 2 || !fleet4.Contains(netip.MustParseAddr(ips[0])) || !fleet6.Contains(netip.MustParseAddr(ips[1])) {
		t.Errorf("a dual-stack Service got %q", ips)
	}
	headless := svc("uid-h", map[string]any{})
	fleetClusterIPs(headless, dry("None"))
	if ips := ipsOf(headless); !reflect.DeepEqual(ips, []string{"None"}) {
		t.Errorf("a headless Service got %q", ips)
	}
	set := svc("uid-s", map[string]any{"clusterIP": "None"})
	fleetClusterIPs(set, dry("None"))
	if _, found, _ := unstructured.NestedFieldNoCopy(set.Object, "spec", "clusterIPs"); found {
		t.Error("a Service that says its cluster IP got others")
	}
	external := svc("uid-e", map[string]any{"type": "ExternalName", "externalName": "example.com"})
	fleetClusterIPs(external, nil)
	if _, found, _ := unstructured.NestedFieldNoCopy(external.Object, "spec", "clusterIP"); found {
		t.Error("an ExternalName Service got a cluster IP")
	}
	unvalidated := svc("uid-u", map[string]any{})
	fleetClusterIPs(unvalidated, nil)
	if ips := ipsOf(unvalidated); len(ips) != 1 || !fleet4.Contains(netip.MustParseAddr(ips[0])) {
		t.Errorf("a Service the host could not validate got %q", ips)
	}
}
