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

package install

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// names are "Kind/name" of objs, in order.
func names(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s/%s in %v", kind, name, names(objs))
	return nil
}

func has(objs []*unstructured.Unstructured, kind string) bool {
	return slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == kind })
}

func container(t *testing.T, workload *unstructured.Unstructured) map[string]any {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(workload.Object, "spec", "template", "spec", "containers")
	if len(cs) != 1 {
		t.Fatalf("%s has %d containers", workload.GetName(), len(cs))
	}
	return cs[0].(map[string]any)
}

func args(t *testing.T, workload *unstructured.Unstructured) []string {
	t.Helper()
	a, _, _ := unstructured.NestedStringSlice(container(t, workload), "args")
	return a
}

// deployObjects are the objects of artifacts/deploy, which make manifests renders from the
// same chart.
func deployObjects(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "artifacts", "deploy", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("artifacts/deploy: %v (%d files)", err, len(files))
	}
	objs := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			u, err := decode([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if u != nil {
				objs[u.GetKind()+"/"+u.GetName()] = u
			}
		}
	}
	return objs
}

// With the chart's defaults, init renders what artifacts/deploy holds: one source.
func TestRenderIsArtifactsDeploy(t *testing.T) {
	objs, err := Render(Settings{Storage: StorageBadger})
	if err != nil {
		t.Fatal(err)
	}
	want := deployObjects(t)
	if len(objs) != len(want) {
		t.Errorf("rendered %d objects, artifacts/deploy has %d:\n%v", len(objs), len(want), names(objs))
	}
	for _, o := range objs {
		w, ok := want[o.GetKind()+"/"+o.GetName()]
		if !ok {
			t.Errorf("%s/%s is not in artifacts/deploy", o.GetKind(), o.GetName())
			continue
		}
		if d := cmp.Diff(w.Object, o.Object); d != "" {
			t.Errorf("%s/%s differs from artifacts/deploy (-deploy +rendered):\n%s", o.GetKind(), o.GetName(), d)
		}
	}
	// Helm's install order: the Namespace first, the APIServices last.
	n := names(objs)
	if n[0] != "Namespace/fed-system" || !strings.HasPrefix(n[len(n)-1], "APIService/") {
		t.Errorf("order: %v", n)
	}
}

func TestRender(t *testing.T) {
	certs := &Certs{Cert: []byte("CERT"), Key: []byte("KEY"), CA: []byte("CA")}
	for _, c := range []struct {
		name  string
		s     Settings
		check func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		{"badger with certificates", Settings{Storage: StorageBadger, Certs: certs}, func(t *testing.T, objs []*unstructured.Unstructured) {
			s := find(t, objs, "Secret", ServingSecret)
			for k, v := range map[string]string{"tls.crt": "CERT", "tls.key": "KEY", "ca.crt": "CA"} {
				if got, _, _ := unstructured.NestedString(s.Object, "data", k); got != base64.StdEncoding.EncodeToString([]byte(v)) {
					t.Errorf("secret data %s = %q", k, got)
				}
			}
			for _, name := range APIServices(objs) {
				if got, _, _ := unstructured.NestedString(find(t, objs, "APIService", name).Object, "spec", "caBundle"); got != base64.StdEncoding.EncodeToString([]byte("CA")) {
					t.Errorf("%s caBundle = %q", name, got)
				}
			}
			if has(objs, "Deployment") || has(objs, "PodDisruptionBudget") {
				t.Errorf("badger renders a Deployment or a PodDisruptionBudget: %v", names(objs))
			}
			if a := args(t, find(t, objs, "StatefulSet", "fed-apiserver")); !slices.Contains(a, "--storage-backend=badger") {
				t.Errorf("args %v", a)
			}
		}},
		{"a CA bundle of its own", Settings{Storage: StorageBadger, Certs: certs, CABundle: []byte("NEW+OLD")}, func(t *testing.T, objs []*unstructured.Unstructured) {
			got, _, _ := unstructured.NestedString(find(t, objs, "APIService", "v1alpha1.cluster.fedhq.io").Object, "spec", "caBundle")
			if got != base64.StdEncoding.EncodeToString([]byte("NEW+OLD")) {
				t.Errorf("caBundle = %q", got)
			}
		}},
		{"etcd3", Settings{Storage: StorageEtcd3, EtcdServers: []string{"https://e0:2379", "https://e1:2379"}, EtcdCertsSecret: "etcd-client", Replicas: 3},
			func(t *testing.T, objs []*unstructured.Unstructured) {
				d := find(t, objs, "Deployment", "fed-apiserver")
				if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 3 {
					t.Errorf("replicas %d", r)
				}
				a := args(t, d)
				for _, w := range []string{"--storage-backend=etcd3", "--etcd-servers=https://e0:2379,https://e1:2379", "--etcd-certfile=/etc/fed-apiserver/etcd/tls.crt"} {
					if !slices.Contains(a, w) {
						t.Errorf("no %s in %v", w, a)
					}
				}
				find(t, objs, "PodDisruptionBudget", "fed-apiserver")
				if has(objs, "StatefulSet") || has(objs, "Secret") {
					t.Errorf("etcd3 without certificates: %v", names(objs))
				}
			}},
		{"image and --set", Settings{Storage: StorageBadger, Image: "registry.example.com:5000/fed/apiserver:v9", Set: []string{"storage.badger.size=20Gi,extraArgs={--v=4}"}},
			func(t *testing.T, objs []*unstructured.Unstructured) {
				s := find(t, objs, "StatefulSet", "fed-apiserver")
				if img := container(t, s)["image"]; img != "registry.example.com:5000/fed/apiserver:v9" {
					t.Errorf("image %v", img)
				}
				claims, _, _ := unstructured.NestedSlice(s.Object, "spec", "volumeClaimTemplates")
				if size, _, _ := unstructured.NestedString(claims[0].(map[string]any), "spec", "resources", "requests", "storage"); size != "20Gi" {
					t.Errorf("volume size %q", size)
				}
				if a := args(t, s); a[len(a)-1] != "--v=4" {
					t.Errorf("args %v", a)
				}
			}},
		{"on the host network, behind an ExternalName Service", Settings{Storage: StorageBadger, Set: []string{
			"hostNetwork=true,securePort=26443,service.port=26443,service.type=ExternalName,service.externalName=localhost",
			"extraEnv[0].name=KUBERNETES_SERVICE_PORT,extraEnv[0].value=21600"}},
			func(t *testing.T, objs []*unstructured.Unstructured) {
				s := find(t, objs, "StatefulSet", "fed-apiserver")
				if hn, _, _ := unstructured.NestedBool(s.Object, "spec", "template", "spec", "hostNetwork"); !hn {
					t.Error("not on the host network")
				}
				env, _ := container(t, s)["env"].([]any)
				if len(env) != 1 || env[0].(map[string]any)["value"] != "21600" {
					t.Errorf("env %v, want KUBERNETES_SERVICE_PORT as the string 21600", env)
				}
				svc := find(t, objs, "Service", "fed-apiserver")
				if typ, _, _ := unstructured.NestedString(svc.Object, "spec", "type"); typ != "ExternalName" {
					t.Errorf("service type %q", typ)
				}
				if _, found, _ := unstructured.NestedMap(svc.Object, "spec", "selector"); found {
					t.Error("an ExternalName Service with a selector")
				}
				if port, _, _ := unstructured.NestedInt64(find(t, objs, "APIService", "v1alpha1.cluster.fedhq.io").Object, "spec", "service", "port"); port != 26443 {
					t.Errorf("APIService port %d", port)
				}
			}},
		{"replicas sharing a node's port", Settings{Storage: StorageEtcd3, EtcdServers: []string{"http://127.0.0.1:2379"}, Set: []string{
			"hostNetwork=true,sharePort=true,securePort=26443"}},
			func(t *testing.T, objs []*unstructured.Unstructured) {
				d := find(t, objs, "Deployment", "fed-apiserver")
				c := container(t, d)
				if _, found := c["ports"]; found {
					t.Errorf("the pod declares ports %v: the scheduler keeps such pods apart", c["ports"])
				}
				if !slices.Contains(args(t, d), "--permit-port-sharing") {
					t.Errorf("args %v", args(t, d))
				}
				if port, _, _ := unstructured.NestedInt64(c, "readinessProbe", "httpGet", "port"); port != 26443 {
					t.Errorf("the readiness probe's port %d", port)
				}
			}},
		{"the release's tag", Settings{Storage: StorageBadger, DefaultTag: "v1.2.3"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if img := container(t, find(t, objs, "StatefulSet", "fed-apiserver"))["image"]; img != "ghcr.io/fedhq/fed-apiserver:v1.2.3" {
				t.Errorf("image %v", img)
			}
		}},
		{"a repository without a tag", Settings{Storage: StorageBadger, Image: "mirror.example.com/fed-apiserver"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if img := container(t, find(t, objs, "StatefulSet", "fed-apiserver"))["image"]; img != "mirror.example.com/fed-apiserver:0.1.0" {
				t.Errorf("image %v", img)
			}
		}},
		{"a digest", Settings{Storage: StorageBadger, Image: "ghcr.io/fedhq/fed-apiserver@sha256:0123abcd"}, func(t *testing.T, objs []*unstructured.Unstructured) {
			if img := container(t, find(t, objs, "StatefulSet", "fed-apiserver"))["image"]; img != "ghcr.io/fedhq/fed-apiserver@sha256:0123abcd" {
				t.Errorf("image %v", img)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.s.Validate(); err != nil {
				t.Fatal(err)
			}
			objs, err := Render(c.s)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, objs)
		})
	}
}

// Refusals say what is wrong in the user's terms: the flags', or the chart's own message.
func TestRenderRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Settings
		want string
	}{
		{"unknown storage", Settings{Storage: "sqlite"}, `--storage must be badger or etcd3, not "sqlite"`},
		{"etcd3 without servers", Settings{Storage: StorageEtcd3}, "--storage=etcd3 needs --etcd-servers"},
		{"etcd servers for badger", Settings{Storage: StorageBadger, EtcdServers: []string{"https://e:2379"}}, "--etcd-servers and --etcd-certs-secret are for --storage=etcd3"},
		{"badger with 2 replicas", Settings{Storage: StorageBadger, Replicas: 2}, "refuses these settings: storage.mode=badger runs one replica"},
		{"a value the schema refuses", Settings{Storage: StorageBadger, Set: []string{"image.pullPolicy=Sometimes"}}, "values.schema.json: - at '/image/pullPolicy'"},
		{"a misspelt value", Settings{Storage: StorageBadger, Set: []string{"storage.badger.sise=5Gi"}}, "at '/storage/badger': additional properties 'sise' not allowed"},
		{"a misspelt table", Settings{Storage: StorageBadger, Set: []string{"storag.mode=etcd3"}}, "additional properties 'storag' not allowed"},
		{"--set of a flag's value", Settings{Storage: StorageBadger, Set: []string{"storage.mode=etcd3"}}, "--set storage.mode=etcd3: init sets storage.mode itself: use --storage"},
		{"--set of the certificate", Settings{Storage: StorageBadger, Set: []string{"tls.existingSecret=mine"}}, "init sets tls itself: init makes the serving certificate"},
		{"--set of a whole table", Settings{Storage: StorageBadger, Set: []string{"image=x"}}, "init sets image.repository itself"},
		{"--set that does not parse", Settings{Storage: StorageBadger, Set: []string{"storage.badger.size"}}, "--set storage.badger.size: key "},
		{"an ExternalName without its name", Settings{Storage: StorageBadger, Set: []string{"service.type=ExternalName"}}, "service.type=ExternalName needs service.externalName"},
		{"a shared port off the host network", Settings{Storage: StorageBadger, Set: []string{"sharePort=true"}}, "sharePort shares a node's port among replicas: it needs hostNetwork=true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.Validate()
			if err == nil {
				_, err = Render(c.s)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestSplitImage(t *testing.T) {
	for _, c := range []struct{ image, repo, tag string }{
		{"", "", ""},
		{"fed", "fed", ""},
		{"fed:v1", "fed", "v1"},
		{"localhost:5000/fed", "localhost:5000/fed", ""},
		{"localhost:5000/fed:v1", "localhost:5000/fed", "v1"},
		{"ghcr.io/fedhq/fed-apiserver@sha256:abc", "ghcr.io/fedhq/fed-apiserver@sha256", "abc"},
	} {
		repo, tag := SplitImage(c.image)
		if repo != c.repo || tag != c.tag {
			t.Errorf("SplitImage(%q) = %q, %q; want %q, %q", c.image, repo, tag, c.repo, c.tag)
		}
	}
}

func TestImageTagFor(t *testing.T) {
	for v, want := range map[string]string{
		"v0.1.0": "v0.1.0", "v1.2.3-rc.1": "v1.2.3-rc.1", "dev": "", "": "", "v0.0.0-dev": "",
		"v0.1.0-3-gabcdef0": "", "v0.1.0-dirty": "",
	} {
		if got := ImageTagFor(v); got != want {
			t.Errorf("ImageTagFor(%q) = %q, want %q", v, got, want)
		}
	}
}

// deinit's list: every object either storage mode makes, the namespace kept, the
// APIServices first.
func TestInstalledObjects(t *testing.T) {
	objs, err := InstalledObjects()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"StatefulSet", "Deployment", "PodDisruptionBudget", "Secret", "Service", "ServiceAccount", "ClusterRole", "RoleBinding"} {
		if !has(objs, k) {
			t.Errorf("no %s in %v", k, names(objs))
		}
	}
	if has(objs, "Namespace") {
		t.Errorf("the namespace is in %v", names(objs))
	}
	n := names(objs)
	if len(APIServices(objs)) != 3 || !strings.HasPrefix(n[0], "APIService/") || !strings.HasPrefix(n[2], "APIService/") {
		t.Errorf("order: %v", n)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		k := o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
		if seen[k] {
			t.Errorf("%s twice", k)
		}
		seen[k] = true
	}
}
