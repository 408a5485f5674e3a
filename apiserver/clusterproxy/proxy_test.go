package clusterproxy

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
)

func TestImpersonationDropsTheImplicitGroup(t *testing.T) {
	u := &user.DefaultInfo{Name: "alice", UID: "42", Groups: []string{"dev", user.AllAuthenticated}, Extra: map[string][]string{"scopes": {"a"}}}
	got := impersonation(u)
	if got.UserName != "alice" || got.UID != "42" || !reflect.DeepEqual(got.Groups, []string{"dev"}) || !reflect.DeepEqual(got.Extra, u.Extra) {
		t.Errorf("impersonation(%+v) = %+v", u, got)
	}
}

func TestCallerCredentialsAreNotForwarded(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods?watch=1", nil)
	for _, h := range []string{"Authorization", "Impersonate-User", "Impersonate-Group", "X-Remote-User", "X-Remote-Group", "X-Remote-Extra-Scopes"} {
		req.Header.Set(h, "x")
	}
	req.Header.Set("Accept", "application/json")
	out := withoutCallerCredentials(req)
	if len(out.Header) != 1 || out.Header.Get("Accept") != "application/json" {
		t.Errorf("forwarded headers %v, want only Accept", out.Header)
	}
	if req.Header.Get("Authorization") == "" {
		t.Error("the incoming request was modified")
	}
	if out.URL.RawQuery != "watch=1" {
		t.Errorf("query %q lost", out.URL.RawQuery)
	}
}
