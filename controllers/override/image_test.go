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

import (
	"strings"
	"testing"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestParseImage(t *testing.T) {
	cases := []struct {
		ref     string
		want    image
		wantErr string
	}{
		{ref: "nginx", want: image{repository: "nginx"}},
		{ref: "myapp:1.0.0", want: image{repository: "myapp", tag: "1.0.0"}},
		{ref: "test-repo/myapp:1.0.0", want: image{repository: "test-repo/myapp", tag: "1.0.0"}},
		{ref: "registry.k8s.io/pause:3.9", want: image{registry: "registry.k8s.io", repository: "pause", tag: "3.9"}},
		{ref: "localhost/app", want: image{registry: "localhost", repository: "app"}},
		{ref: "localhost:5000/team/app:v2", want: image{registry: "localhost:5000", repository: "team/app", tag: "v2"}},
		{ref: "my-registry:5000/app", want: image{registry: "my-registry:5000", repository: "app"}},
		{ref: "[::1]:5000/app:1", want: image{registry: "[::1]:5000", repository: "app", tag: "1"}},
		{ref: "Registry/app", want: image{registry: "Registry", repository: "app"}},
		{
			ref:  "docker.io/library/busybox@sha256:" + strings.Repeat("ab", 32),
			want: image{registry: "docker.io", repository: "library/busybox", digest: "sha256:" + strings.Repeat("ab", 32)},
		},
		{
			ref:  "busybox:1.36@sha256:" + strings.Repeat("0", 64),
			want: image{repository: "busybox", tag: "1.36", digest: "sha256:" + strings.Repeat("0", 64)},
		},
		{ref: "", wantErr: "empty"},
		{ref: "UPPER", wantErr: "repository"},
		{ref: "nginx:", wantErr: "tag"},
		{ref: "nginx:bad tag", wantErr: "tag"},
		{ref: "nginx@sha256:short", wantErr: "digest"},
		{ref: "registry.io/", wantErr: "no repository"},
		{ref: "bad_host.io:port/app", wantErr: "registry"},
		{ref: "a//b", wantErr: "repository"},
	}
	for _, tc := range cases {
		t.Run(tc.ref, func(t *testing.T) {
			got, err := parseImage(tc.ref)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("parseImage = %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.ref {
				t.Errorf("String = %q, want %q", got.String(), tc.ref)
			}
		})
	}
}

func TestOverrideImage(t *testing.T) {
	digest := "sha256:" + strings.Repeat("1f", 32)
	cases := []struct {
		name      string
		ref       string
		component federationv1alpha1.ImageComponent
		operator  federationv1alpha1.OverriderOperator
		value     string
		want      string
		wantErr   string
	}{
		{name: "seed 002: registry add to an image without one", ref: "myapp:1.0.0", component: "Registry", operator: "add", value: "test-repo", want: "test-repo/myapp:1.0.0"},
		{name: "registry add before a repository path", ref: "test-repo/myapp:1.0.0", component: "Registry", operator: "add", value: "registry.k8s.io", want: "registry.k8s.io/test-repo/myapp:1.0.0"},
		{name: "registry add appends to an existing registry", ref: "fictional.registry.us/busybox", component: "Registry", operator: "add", value: ".cn", want: "fictional.registry.us.cn/busybox"},
		{name: "seed 000: registry replace", ref: "nginx", component: "Registry", operator: "replace", value: "registry-1.example.com", want: "registry-1.example.com/nginx"},
		{name: "registry replace keeps port-less digest", ref: "registry.k8s.io/pause@" + digest, component: "Registry", operator: "replace", value: "mirror.local:5000", want: "mirror.local:5000/pause@" + digest},
		{name: "registry replace with a port", ref: "localhost:5000/app:1", component: "Registry", operator: "replace", value: "registry-2.example.com:443", want: "registry-2.example.com:443/app:1"},
		{name: "registry remove", ref: "registry.k8s.io/pause:3.9", component: "Registry", operator: "remove", want: "pause:3.9"},
		{name: "registry remove without registry", ref: "pause:3.9", component: "Registry", operator: "remove", want: "pause:3.9"},
		{name: "repository add appends", ref: "registry.k8s.io/pause:3.9", component: "Repository", operator: "add", value: "-arm64", want: "registry.k8s.io/pause-arm64:3.9"},
		{name: "repository replace", ref: "registry.k8s.io/pause:3.9", component: "Repository", operator: "replace", value: "library/busybox", want: "registry.k8s.io/library/busybox:3.9"},
		{name: "repository remove is an error", ref: "registry.k8s.io/pause:3.9", component: "Repository", operator: "remove", wantErr: "cannot be removed"},
		{name: "tag add to an untagged image", ref: "nginx", component: "Tag", operator: "add", value: "1.25", want: "nginx:1.25"},
		{name: "tag add appends", ref: "nginx:1.25", component: "Tag", operator: "add", value: "-alpine", want: "nginx:1.25-alpine"},
		{name: "seed 000: tag replace", ref: "registry-1.example.com/nginx:1.25", component: "Tag", operator: "replace", value: "v1.0.0-cluster1", want: "registry-1.example.com/nginx:v1.0.0-cluster1"},
		{name: "tag replace with a digest", ref: "nginx:1.25", component: "Tag", operator: "replace", value: digest, want: "nginx@" + digest},
		{name: "tag replace of a digest", ref: "nginx:1.25@" + digest, component: "Tag", operator: "replace", value: "1.26", want: "nginx:1.26"},
		{name: "tag remove", ref: "localhost:5000/nginx:1.25", component: "Tag", operator: "remove", want: "localhost:5000/nginx"},
		{name: "tag remove digest", ref: "nginx@" + digest, component: "Tag", operator: "remove", want: "nginx"},
		{name: "invalid image", ref: "Not An Image", component: "Tag", operator: "remove", wantErr: "not valid"},
		{name: "invalid result", ref: "nginx", component: "Registry", operator: "replace", value: "not a host!", wantErr: "invalid reference"},
		{name: "invalid tag value", ref: "nginx", component: "Tag", operator: "replace", value: "a b", wantErr: "invalid reference"},
		{name: "unknown component", ref: "nginx", component: "Digest", operator: "replace", value: "x", wantErr: "component"},
		{name: "unknown operator", ref: "nginx", component: "Tag", operator: "addIfAbsent", value: "x", wantErr: "operator"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := overrideImage(tc.ref, federationv1alpha1.ImageOverrider{Component: tc.component, Operator: tc.operator, Value: tc.value})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("overrideImage = %q, want %q", got, tc.want)
			}
		})
	}
}

const workloadImages = `
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          initContainers:
          - {name: init, image: "busybox:1.36"}
          containers:
          - {name: main, image: "registry.k8s.io/backup:2.0"}
          - {name: sidecar, image: "localhost:5000/agent"}
`

func TestImageOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:     "every container and init container of a CronJob",
		template: workloadImages,
		overriders: `
imageOverrider:
- {component: Registry, operator: replace, value: "mirror.example.com"}
`,
		want: strings.NewReplacer(`"busybox:1.36"`, `"mirror.example.com/busybox:1.36"`,
			`"registry.k8s.io/backup:2.0"`, `"mirror.example.com/backup:2.0"`,
			`"localhost:5000/agent"`, `"mirror.example.com/agent"`).Replace(workloadImages),
	}, {
		name:     "only the image at predicate.path",
		template: workloadImages,
		overriders: `
imageOverrider:
- predicate: {path: /spec/jobTemplate/spec/template/spec/containers/1/image}
  component: Tag
  operator: add
  value: "v3"
`,
		want: strings.Replace(workloadImages, `"localhost:5000/agent"`, `"localhost:5000/agent:v3"`, 1),
	}, {
		name:       "predicate.path that does not exist",
		template:   workloadImages,
		overriders: "imageOverrider:\n- {predicate: {path: /spec/image}, component: Tag, operator: add, value: v3}",
		wantErr:    `path "/spec/image" does not exist`,
	}, {
		name:       "predicate.path that is not a string",
		template:   workloadImages,
		overriders: "imageOverrider:\n- {predicate: {path: /spec/jobTemplate}, component: Tag, operator: add, value: v3}",
		wantErr:    "not an image string",
	}, {
		name:       "kinds without a pod template are left alone",
		template:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {image: nginx}",
		overriders: "imageOverrider:\n- {component: Tag, operator: replace, value: v3}",
		want:       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {image: nginx}",
	}, {
		name:       "a Pod",
		template:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: nginx}]}",
		overriders: "imageOverrider:\n- {component: Tag, operator: replace, value: v3}",
		want:       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: 'nginx:v3'}]}",
	}, {
		name:       "an image that is not a string",
		template:   "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: a, image: 5}]}}}",
		overriders: "imageOverrider:\n- {component: Tag, operator: replace, value: v3}",
		wantErr:    "/spec/template/spec/containers/0/image is a int64, not a string",
	}})
}
