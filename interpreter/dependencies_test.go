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
	"testing"

	"github.com/google/go-cmp/cmp"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestDependencies(t *testing.T) {
	ref := func(kind, name string) federationv1alpha1.ObjectReference {
		return federationv1alpha1.ObjectReference{APIVersion: "v1", Kind: kind, Namespace: "shop", Name: name}
	}
	cases := []struct {
		name string
		yaml string
		want []federationv1alpha1.ObjectReference
	}{
		{
			name: "deployment using every kind of reference",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: web
      imagePullSecrets: [{name: registry}]
      initContainers:
      - name: migrate
        image: example.com/migrate:1
        envFrom: [{secretRef: {name: db-creds}}]
      containers:
      - name: app
        image: example.com/web:1
        env:
        - {name: MODE, valueFrom: {configMapKeyRef: {name: settings, key: mode}}}
        - {name: TOKEN, valueFrom: {secretKeyRef: {name: api-token, key: token, optional: true}}}
        - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        - {name: PLAIN, value: x}
        envFrom: [{configMapRef: {name: features}}, {prefix: DB_, secretRef: {name: db-creds}}]
      - name: sidecar
        image: example.com/proxy:1
        env: [{name: MODE, valueFrom: {configMapKeyRef: {name: settings, key: proxy}}}]
      volumes:
      - {name: config, configMap: {name: settings}}
      - {name: tls, secret: {secretName: web-tls}}
      - {name: data, persistentVolumeClaim: {claimName: web-data}}
      - name: bundle
        projected:
          sources:
          - configMap: {name: ca-bundle}
          - secret: {name: client-cert}
          - serviceAccountToken: {path: token}
          - downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}
      - {name: vault, csi: {driver: secrets-store.csi.k8s.io, nodePublishSecretRef: {name: vault-creds}}}
      - {name: scratch, emptyDir: {}}
`,
			want: []federationv1alpha1.ObjectReference{
				ref("ConfigMap", "ca-bundle"),
				ref("ConfigMap", "features"),
				ref("ConfigMap", "settings"),
				ref("PersistentVolumeClaim", "web-data"),
				ref("Secret", "api-token"),
				ref("Secret", "client-cert"),
				ref("Secret", "db-creds"),
				ref("Secret", "registry"),
				ref("Secret", "vault-creds"),
				ref("Secret", "web-tls"),
				ref("ServiceAccount", "web"),
			},
		},
		{
			name: "statefulset claim templates are not dependencies",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  serviceName: db
  template:
    spec:
      containers: [{name: db, image: postgres:17, envFrom: [{secretRef: {name: db-creds}}]}]
      volumes: [{name: backup, persistentVolumeClaim: {claimName: db-backup}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
`,
			want: []federationv1alpha1.ObjectReference{
				ref("PersistentVolumeClaim", "db-backup"),
				ref("Secret", "db-creds"),
			},
		},
		{
			name: "daemonset with the default service account",
			yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: shop}
spec:
  template:
    spec:
      serviceAccountName: default
      containers: [{name: agent, image: agent:1}]
      volumes: [{name: conf, configMap: {name: agent-conf}}]
`,
			want: []federationv1alpha1.ObjectReference{ref("ConfigMap", "agent-conf")},
		},
		{
			name: "replicaset with the deprecated serviceAccount field",
			yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, namespace: shop}
spec:
  template:
    spec:
      serviceAccount: legacy
      containers: [{name: app, image: app:1}]
`,
			want: []federationv1alpha1.ObjectReference{ref("ServiceAccount", "legacy")},
		},
		{
			name: "job",
			yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: shop}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: report, image: report:1, env: [{name: DSN, valueFrom: {secretKeyRef: {name: db-creds, key: dsn}}}]}]
`,
			want: []federationv1alpha1.ObjectReference{ref("Secret", "db-creds")},
		},
		{
			name: "cronjob",
			yaml: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: backup
          restartPolicy: OnFailure
          containers: [{name: backup, image: backup:1}]
          volumes: [{name: target, persistentVolumeClaim: {claimName: backups}}]
`,
			want: []federationv1alpha1.ObjectReference{
				ref("PersistentVolumeClaim", "backups"),
				ref("ServiceAccount", "backup"),
			},
		},
		{
			name: "pod with in-tree volume secrets and an ephemeral container",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop}
spec:
  containers: [{name: app, image: app:1}]
  ephemeralContainers: [{name: debug, image: busybox, envFrom: [{configMapRef: {name: debug-env}}]}]
  volumes:
  - {name: share, azureFile: {secretName: azure-creds, shareName: share}}
  - {name: ceph, cephfs: {monitors: [10.0.0.1], secretRef: {name: ceph-creds}}}
  - {name: rbd, rbd: {monitors: [10.0.0.1], image: img, secretRef: {name: rbd-creds}}}
  - {name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}}
`,
			want: []federationv1alpha1.ObjectReference{
				ref("ConfigMap", "debug-env"),
				ref("Secret", "azure-creds"),
				ref("Secret", "ceph-creds"),
				ref("Secret", "rbd-creds"),
			},
		},
		{
			name: "workload that references nothing",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {template: {spec: {containers: [{name: app, image: app:1}]}}}
`,
		},
		{
			name: "empty names are ignored",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop}
spec:
  containers: [{name: app, image: app:1, envFrom: [{configMapRef: {}}]}]
  imagePullSecrets: [{}]
  volumes: [{name: v, secret: {}}]
`,
		},
		{
			name: "not a workload",
			yaml: `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {selector: {app: web}}
`,
		},
		{
			name: "workload without a pod template",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: 1}
`,
		},
		{
			name: "pod template of the wrong type",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {template: "spec: containers"}
`,
		},
		{
			name: "containers of the wrong type",
			yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: shop}
spec: {template: {spec: {containers: {name: report}, volumes: [{name: v, configMap: {name: c}}]}}}
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Dependencies(fromYAML(t, c.yaml))
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Dependencies() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nil template", func(t *testing.T) {
		if got := Dependencies(nil); got != nil {
			t.Errorf("Dependencies(nil) = %v, want nil", got)
		}
	})
}
