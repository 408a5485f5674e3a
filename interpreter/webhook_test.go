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

package interpreter

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter/lua"
	"github.com/fedhq/fed/interpreter/webhook"
)

type configs []*federationv1alpha1.ResourceInterpreterWebhookConfiguration

func (c configs) List() ([]*federationv1alpha1.ResourceInterpreterWebhookConfiguration, error) {
	return append([]*federationv1alpha1.ResourceInterpreterWebhookConfiguration(nil), c...), nil
}

// TestWebhookOperations runs each operation through a webhook served over HTTPS: what it
// answers is what the interpreter returns, and a webhook that answers unsuccessful, or
// for another request, is an error that names it.
func TestWebhookOperations(t *testing.T) {
	answers := map[string]map[string]any{
		"Retain":              {"patch": `[{"op":"add","path":"/spec/kept","value":"member's"}]`},
		"InterpretStatus":     {"rawStatus": map[string]any{"phase": "Running"}},
		"InterpretHealth":     {"healthy": false},
		"InterpretDependency": {"dependencies": []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap", "name": "conf"}}},
		"InterpretComponent":  {"components": []map[string]any{{"name": "leader", "replicas": 1}, {"name": "worker", "replicas": 3}}},
		"ReviseReplica":       {"patch": `[{"op":"replace","path":"/spec/size","value":2}]`},
	}
	var wrongUID bool
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ctx webhook.Context
		if err := json.NewDecoder(r.Body).Decode(&ctx); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := map[string]any{"uid": ctx.Request.UID, "successful": true}
		a, ok := answers[string(ctx.Request.Operation)]
		if !ok {
			resp["successful"], resp["status"] = false, map[string]any{"message": "no such operation here", "code": 400}
		}
		for k, v := range a {
			if k == "patch" {
				resp["patch"], resp["patchType"] = []byte(v.(string)), "JSONPatch"
				continue
			}
			resp[k] = v
		}
		if ctx.Request.Operation == "Retain" && ctx.Request.ObservedObject == nil || !strings.Contains(string(ctx.Request.Object.Raw), `"kind":"Book"`) {
			resp["successful"] = false // the objects are sent
		}
		if wrongUID {
			resp["uid"] = "another"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "federation.fedhq.io/v1alpha1", "kind": "ResourceInterpreterContext", "response": resp})
	}))
	defer srv.Close()
	url := srv.URL
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	i := New(nil, lua.DefaultLimits).WithWebhooks(configs{{ObjectMeta: metav1.ObjectMeta{Name: "books"},
		Webhooks: []federationv1alpha1.ResourceInterpreterWebhook{{Name: "books.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []federationv1alpha1.InterpreterRuleWithOperations{{Operations: []federationv1alpha1.InterpreterOperation{"*"},
				APIGroups: []string{"example.com"}, APIVersions: []string{"*"}, Kinds: []string{"Book"}}},
			InterpreterContextVersions: []string{"v1alpha1"}}}}})
	book := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Book",
			"metadata": map[string]any{"name": "b", "namespace": "ns"}, "spec": map[string]any{"size": int64(4)}}}
	}

	if got, err := i.Retain(book(), book()); err != nil || got.Object["spec"].(map[string]any)["kept"] != "member's" {
		t.Errorf("Retain = %v, %v; want the webhook's patch applied", got, err)
	}
	if got, err := i.ReviseReplica(book(), 2); err != nil || got.Object["spec"].(map[string]any)["size"] != int64(2) {
		t.Errorf("ReviseReplica = %v, %v; want size 2", got, err)
	}
	if got, err := i.ReflectStatus(book()); err != nil || string(got.Raw) != `{"phase":"Running"}` {
		t.Errorf("ReflectStatus = %v, %v", got, err)
	}
	if got, err := i.Health(book()); err != nil || got != federationv1alpha1.ResourceUnhealthy {
		t.Errorf("Health = %v, %v; want Unhealthy", got, err)
	}
	if got, err := i.Dependencies(book()); err != nil || len(got) != 1 || got[0].Namespace != "ns" || got[0].Name != "conf" {
		t.Errorf("Dependencies = %v, %v; want ns/conf", got, err)
	}
	if got, err := i.Components(book()); err != nil || len(got) != 2 || got[1].Replicas != 3 {
		t.Errorf("Components = %v, %v", got, err)
	}
	// InterpretReplica is not answered here: the webhook says so, and that is an error.
	if _, _, err := i.Replicas(book()); err == nil || !FromWebhook(err) ||
		!strings.Contains(err.Error(), "interpreter webhook books/books.example.com, InterpretReplica: answered: no such operation here (code 400)") {
		t.Errorf("Replicas: %v", err)
	}
	wrongUID = true
	if _, err := i.Health(book()); err == nil || !strings.Contains(err.Error(), `answered request "another"`) {
		t.Errorf("an answer to another request: %v", err)
	}
	// Another kind: built-in knowledge, no webhook asked.
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}}}
	if got, err := i.Health(cm); err != nil || got != federationv1alpha1.ResourceHealthy {
		t.Errorf("Health of a ConfigMap = %v, %v", got, err)
	}
	// The webhook down.
	srv.Close()
	wrongUID = false
	if _, err := i.Health(book()); err == nil || !FromWebhook(err) {
		t.Errorf("a webhook down: %v, want a webhook's error", err)
	}
}
