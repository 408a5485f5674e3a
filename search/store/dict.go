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

import "strings"

// dictionary is the S2 dictionary every stored object's JSON is compressed with: what a
// Kubernetes object's JSON repeats whatever the object, as encoding/json writes it (keys
// sorted): metadata, and the defaults and boilerplate the apiserver and the controllers put
// in the common kinds, pods last, as they are the most numerous. A value compressed alone
// has nothing to refer back to but itself (a pod's 2.5 kB of JSON: 1,460 bytes); with
// this, field names and defaults cost a few bytes each (410 bytes). Changing it changes
// the value format: bump valueFormat.
var dictionary = []byte(strings.Join([]string{
	// Events.
	`{"apiVersion":"v1","count":1,"eventTime":null,"firstTimestamp":"","involvedObject":{"apiVersion":"v1","fieldPath":"spec.containers{app}","kind":"Pod","name":"","namespace":"default","resourceVersion":"","uid":""},"kind":"Event","lastTimestamp":"","message":"Successfully assigned default/ to node","reason":"Scheduled","reportingComponent":"default-scheduler","reportingInstance":"","source":{"component":"kubelet","host":""},"type":"Normal"}`,
	`"reason":"Pulled","message":"Container image already present on machine","reason":"Created","message":"Created container","reason":"Started","message":"Started container","reason":"Killing","message":"Stopping container","reason":"BackOff","type":"Warning"`,
	// Nodes.
	`{"apiVersion":"v1","kind":"Node","spec":{"podCIDR":"","podCIDRs":[""],"providerID":"","taints":[{"effect":"NoSchedule","key":"node-role.kubernetes.io/control-plane"}]},"status":{"addresses":[{"address":"","type":"InternalIP"},{"address":"","type":"Hostname"}],"allocatable":{"cpu":"","ephemeral-storage":"","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"","pods":"110"},"capacity":{"cpu":"","ephemeral-storage":"","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"","pods":"110"},"conditions":[{"lastHeartbeatTime":"","lastTransitionTime":"","message":"kubelet has sufficient memory available","reason":"KubeletHasSufficientMemory","status":"False","type":"MemoryPressure"},{"message":"kubelet has no disk pressure","reason":"KubeletHasNoDiskPressure","status":"False","type":"DiskPressure"},{"message":"kubelet has sufficient PID available","reason":"KubeletHasSufficientPID","status":"False","type":"PIDPressure"},{"message":"kubelet is posting ready status","reason":"KubeletReady","status":"True","type":"Ready"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"images":[{"names":[""],"sizeBytes":0}],"nodeInfo":{"architecture":"amd64","bootID":"","containerRuntimeVersion":"containerd://","kernelVersion":"","kubeProxyVersion":"","kubeletVersion":"","machineID":"","operatingSystem":"linux","osImage":"","systemUUID":""}}}`,
	`"labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":"","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"","topology.kubernetes.io/region":"","topology.kubernetes.io/zone":""}`,
	// Services, endpoint slices, config maps, secrets, service accounts.
	`{"apiVersion":"v1","kind":"Service","spec":{"clusterIP":"","clusterIPs":[""],"internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080}],"selector":{"app":""},"sessionAffinity":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}`,
	`{"addressType":"IPv4","apiVersion":"discovery.k8s.io/v1","endpoints":[{"addresses":[""],"conditions":{"ready":true,"serving":true,"terminating":false},"nodeName":"","targetRef":{"kind":"Pod","name":"","namespace":"","uid":""}}],"kind":"EndpointSlice","ports":[{"name":"http","port":8080,"protocol":"TCP"}]}`,
	`"labels":{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":""}`,
	`{"apiVersion":"v1","data":{"ca.crt":"-----BEGIN CERTIFICATE-----\n"},"kind":"ConfigMap"}{"apiVersion":"v1","data":{},"kind":"Secret","type":"Opaque"}"type":"kubernetes.io/service-account-token""type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}{"apiVersion":"v1","kind":"ServiceAccount"}{"apiVersion":"v1","kind":"Namespace","spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}"labels":{"kubernetes.io/metadata.name":""}`,
	// Workloads.
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"progressDeadlineSeconds":600,"replicas":1,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":""}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":""}},"spec":{}}},"status":{"availableReplicas":1,"conditions":[{"lastTransitionTime":"","lastUpdateTime":"","message":"Deployment has minimum availability.","reason":"MinimumReplicasAvailable","status":"True","type":"Available"},{"lastTransitionTime":"","lastUpdateTime":"","message":"ReplicaSet \"\" has successfully progressed.","reason":"NewReplicaSetAvailable","status":"True","type":"Progressing"}],"observedGeneration":1,"readyReplicas":1,"replicas":1,"updatedReplicas":1}}`,
	`"annotations":{"deployment.kubernetes.io/desired-replicas":"1","deployment.kubernetes.io/max-replicas":"2","deployment.kubernetes.io/revision":"1"}{"apiVersion":"apps/v1","kind":"ReplicaSet","spec":{"replicas":1,"selector":{"matchLabels":{"app":"","pod-template-hash":""}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"","pod-template-hash":""}}}},"status":{"availableReplicas":1,"fullyLabeledReplicas":1,"observedGeneration":1,"readyReplicas":1,"replicas":1}}`,
	`{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},"podManagementPolicy":"OrderedReady","serviceName":"","updateStrategy":{"rollingUpdate":{"partition":0},"type":"RollingUpdate"}},"status":{"availableReplicas":1,"collisionCount":0,"currentRevision":"","updateRevision":""}}{"apiVersion":"apps/v1","kind":"DaemonSet","status":{"currentNumberScheduled":1,"desiredNumberScheduled":1,"numberAvailable":1,"numberMisscheduled":0,"numberReady":1,"updatedNumberScheduled":1}}{"apiVersion":"batch/v1","kind":"Job","spec":{"backoffLimit":6,"completionMode":"NonIndexed","completions":1,"manualSelector":false,"parallelism":1,"podReplacementPolicy":"TerminatingOrFailed","suspend":false},"status":{"completionTime":"","ready":0,"succeeded":1,"terminating":0,"uncountedTerminatedPods":{}}}`,
	`"labels":{"app.kubernetes.io/component":"","app.kubernetes.io/instance":"","app.kubernetes.io/managed-by":"Helm","app.kubernetes.io/name":"","app.kubernetes.io/part-of":"","app.kubernetes.io/version":"","helm.sh/chart":""}"finalizers":["kubernetes.io/pvc-protection"]"generation":1,"controller-revision-hash":"","statefulset.kubernetes.io/pod-name":"","batch.kubernetes.io/controller-uid":"","batch.kubernetes.io/job-name":"","controller-uid":"","job-name":""`,
	// Pods: metadata, then the rest, as a Deployment's pod on a kubelet has them.
	`{"annotations":{"kubectl.kubernetes.io/restartedAt":"","search.fedhq.io/cluster":""},"creationTimestamp":"2026-01-01T00:00:00Z","generateName":"","labels":{"app":"","app.kubernetes.io/name":"","pod-template-hash":""},"name":"","namespace":"default","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"","uid":"00000000-0000-4000-8000-000000000000"}],"uid":"00000000-0000-4000-8000-000000000000"}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"affinity":{},"containers":[{"args":[""],"command":[""],"env":[{"name":"","value":""},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"image":"","imagePullPolicy":"IfNotPresent","livenessProbe":{"failureThreshold":3,"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":10,"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"name":"","ports":[{"containerPort":8080,"name":"http","protocol":"TCP"}],"readinessProbe":{"failureThreshold":3,"httpGet":{"path":"/readyz","port":8080,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"resources":{"limits":{"cpu":"","memory":""},"requests":{"cpu":"100m","memory":"128Mi"}},"securityContext":{"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,"runAsNonRoot":true},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access","readOnly":true}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"nodeName":"","nodeSelector":{"kubernetes.io/os":"linux"},"preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":30,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"name":"kube-api-access","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}}]},`,
	`"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"","status":"True","type":"PodReadyToStartContainers"},{"lastProbeTime":null,"lastTransitionTime":"","status":"True","type":"Initialized"},{"lastProbeTime":null,"lastTransitionTime":"","status":"True","type":"Ready"},{"lastProbeTime":null,"lastTransitionTime":"","status":"True","type":"ContainersReady"},{"lastProbeTime":null,"lastTransitionTime":"","status":"True","type":"PodScheduled"}],"containerStatuses":[{"containerID":"containerd://","image":"","imageID":"@sha256:","lastState":{},"name":"","ready":true,"restartCount":0,"started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}}],"hostIP":"10.0.0.1","hostIPs":[{"ip":""}],"phase":"Running","podIP":"10.0.0.1","podIPs":[{"ip":""}],"qosClass":"Burstable","startTime":"2026-01-01T00:00:00Z"}}`,
}, ""))

// commonStrings are label and field names and values that the labels and fields of a
// stored value name by their index instead of spelling them out. Append only (an index
// must keep its string), and bump valueFormat when changing it.
var commonStrings = []string{
	"", "metadata.name", "metadata.namespace",
	// Field selectors of the kinds that have them (apis/native).
	"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
	"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName",
	"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
	"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
	"reason", "reportingComponent", "source", "type",
	"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "reportingController",
	"spec.unschedulable", "status.replicas", "status.successful", "spec.signerName",
	// Their common values.
	"Always", "OnFailure", "Never", "default-scheduler", "default", "true", "false",
	"Running", "Pending", "Succeeded", "Failed", "Unknown", "Active", "Terminating",
	"Normal", "Warning", "Pod", "v1", "kubelet", "Opaque",
	// Common label names.
	"app", "pod-template-hash", "controller-revision-hash", "pod-template-generation",
	"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component",
	"app.kubernetes.io/part-of", "app.kubernetes.io/managed-by", "app.kubernetes.io/version",
	"helm.sh/chart", "k8s-app", "tier", "component", "release", "version", "name",
	"kubernetes.io/metadata.name", "statefulset.kubernetes.io/pod-name",
	"batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name",
}

var commonIndex = func() map[string]int {
	m := make(map[string]int, len(commonStrings))
	for i, s := range commonStrings {
		m[s] = i
	}
	return m
}()
