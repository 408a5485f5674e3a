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

package tables

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/ptr"
)

// convertors are the convertors of the native kinds For knows.
var convertors = map[schema.GroupKind]rest.TableConvertor{
	{Group: "apps", Kind: "Deployment"}:                               deployments(),
	{Group: "apps", Kind: "ReplicaSet"}:                               replicaSets(),
	{Group: "apps", Kind: "StatefulSet"}:                              statefulSets(),
	{Group: "apps", Kind: "DaemonSet"}:                                daemonSets(),
	{Group: "batch", Kind: "Job"}:                                     jobs(),
	{Group: "batch", Kind: "CronJob"}:                                 cronJobs(),
	{Kind: "Pod"}:                                                     pods(),
	{Kind: "Service"}:                                                 services(),
	{Kind: "ConfigMap"}:                                               configMaps(),
	{Kind: "Secret"}:                                                  secrets(),
	{Kind: "ServiceAccount"}:                                          serviceAccounts(),
	{Kind: "Namespace"}:                                               namespaces(),
	{Kind: "PersistentVolumeClaim"}:                                   persistentVolumeClaims(),
	{Kind: "Event"}:                                                   events(),
	{Group: "networking.k8s.io", Kind: "Ingress"}:                     ingresses(),
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                createdAtOnly(),
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:         createdAtOnly(),
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:         roleBindings(),
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:  roleBindings(),
	{Group: "policy", Kind: "PodDisruptionBudget"}:                    podDisruptionBudgets(),
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:           horizontalPodAutoscalers(),
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: createdAtOnly(),
}

func deployments() rest.TableConvertor {
	spec, status := appsv1.DeploymentSpec{}.SwaggerDoc(), appsv1.DeploymentStatus{}.SwaggerDoc()
	return newConvertor(typed(func(d *appsv1.Deployment) metav1.TableRow {
		selector := "<invalid>"
		if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
			selector = s.String()
		}
		names, images := containers(d.Spec.Template.Spec)
		return cells(d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, ptr.Deref(d.Spec.Replicas, 1)),
			int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas), age(d.CreationTimestamp),
			names, images, selector)
	}), columns{
		nameColumn,
		column("Ready", "string", "Number of the pod with ready state"),
		column("Up-to-date", "string", status["updatedReplicas"]),
		column("Available", "string", status["availableReplicas"]),
		ageColumn,
	}, containerColumns, columns{selectorColumn(spec["selector"])})
}

func replicaSets() rest.TableConvertor {
	spec, status := appsv1.ReplicaSetSpec{}.SwaggerDoc(), appsv1.ReplicaSetStatus{}.SwaggerDoc()
	return newConvertor(typed(func(r *appsv1.ReplicaSet) metav1.TableRow {
		names, images := containers(r.Spec.Template.Spec)
		return cells(r.Name, int64(ptr.Deref(r.Spec.Replicas, 1)), int64(r.Status.Replicas), int64(r.Status.ReadyReplicas),
			age(r.CreationTimestamp), names, images, metav1.FormatLabelSelector(r.Spec.Selector))
	}), columns{
		nameColumn,
		column("Desired", "integer", spec["replicas"]),
		column("Current", "integer", status["replicas"]),
		column("Ready", "integer", status["readyReplicas"]),
		ageColumn,
	}, containerColumns, columns{selectorColumn(spec["selector"])})
}

func statefulSets() rest.TableConvertor {
	return newConvertor(typed(func(s *appsv1.StatefulSet) metav1.TableRow {
		names, images := containers(s.Spec.Template.Spec)
		return cells(s.Name, fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, ptr.Deref(s.Spec.Replicas, 1)),
			age(s.CreationTimestamp), names, images)
	}), columns{
		nameColumn,
		column("Ready", "string", "Number of the pod with ready state"),
		ageColumn,
	}, containerColumns)
}

func daemonSets() rest.TableConvertor {
	spec, status := appsv1.DaemonSetSpec{}.SwaggerDoc(), appsv1.DaemonSetStatus{}.SwaggerDoc()
	return newConvertor(typed(func(d *appsv1.DaemonSet) metav1.TableRow {
		names, images := containers(d.Spec.Template.Spec)
		s := d.Status
		return cells(d.Name, int64(s.DesiredNumberScheduled), int64(s.CurrentNumberScheduled), int64(s.NumberReady),
			int64(s.UpdatedNumberScheduled), int64(s.NumberAvailable), labels.FormatLabels(d.Spec.Template.Spec.NodeSelector),
			age(d.CreationTimestamp), names, images, metav1.FormatLabelSelector(d.Spec.Selector))
	}), columns{
		nameColumn,
		column("Desired", "integer", status["desiredNumberScheduled"]),
		column("Current", "integer", status["currentNumberScheduled"]),
		column("Ready", "integer", status["numberReady"]),
		column("Up-to-date", "integer", status["updatedNumberScheduled"]),
		column("Available", "integer", status["numberAvailable"]),
		column("Node Selector", "string", corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]),
		ageColumn,
	}, containerColumns, columns{selectorColumn(spec["selector"])})
}

func jobs() rest.TableConvertor {
	return newConvertor(typed(func(j *batchv1.Job) metav1.TableRow {
		var completions string
		switch {
		case j.Spec.Completions != nil:
			completions = fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
		case j.Spec.Parallelism != nil && *j.Spec.Parallelism > 1:
			completions = fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *j.Spec.Parallelism)
		default:
			completions = fmt.Sprintf("%d/1", j.Status.Succeeded)
		}
		var took string
		switch start, end := j.Status.StartTime, j.Status.CompletionTime; {
		case start == nil:
		case end == nil:
			took = duration.HumanDuration(time.Since(start.Time))
		default:
			took = duration.HumanDuration(end.Sub(start.Time))
		}
		names, images := containers(j.Spec.Template.Spec)
		return cells(j.Name, jobStatus(j), completions, took, age(j.CreationTimestamp),
			names, images, metav1.FormatLabelSelector(j.Spec.Selector))
	}), columns{
		nameColumn,
		column("Status", "string", "Status of the job."),
		column("Completions", "string", "The completion status of the job, as succeeded pods out of wanted ones."),
		column("Duration", "string", "Time required to complete the job."),
		ageColumn,
	}, containerColumns, columns{selectorColumn(batchv1.JobSpec{}.SwaggerDoc()["selector"])})
}

// jobStatus sums up the conditions of j as kubectl does.
func jobStatus(j *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		return slices.ContainsFunc(j.Status.Conditions, func(c batchv1.JobCondition) bool {
			return c.Type == t && c.Status == corev1.ConditionTrue
		})
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	}
	return "Running"
}

func cronJobs() rest.TableConvertor {
	spec, status := batchv1.CronJobSpec{}.SwaggerDoc(), batchv1.CronJobStatus{}.SwaggerDoc()
	return newConvertor(typed(func(c *batchv1.CronJob) metav1.TableRow {
		timeZone, suspend, last := "<none>", "False", "<none>"
		if c.Spec.TimeZone != nil {
			timeZone = *c.Spec.TimeZone
		}
		if c.Spec.Suspend != nil && *c.Spec.Suspend {
			suspend = "True"
		}
		if c.Status.LastScheduleTime != nil {
			last = age(*c.Status.LastScheduleTime)
		}
		job := c.Spec.JobTemplate.Spec
		names, images := containers(job.Template.Spec)
		return cells(c.Name, c.Spec.Schedule, timeZone, suspend, int64(len(c.Status.Active)), last,
			age(c.CreationTimestamp), names, images, metav1.FormatLabelSelector(job.Selector))
	}), columns{
		nameColumn,
		column("Schedule", "string", spec["schedule"]),
		column("Timezone", "string", spec["timeZone"]),
		column("Suspend", "boolean", spec["suspend"]),
		column("Active", "integer", status["active"]),
		column("Last Schedule", "string", status["lastScheduleTime"]),
		ageColumn,
	}, containerColumns, columns{selectorColumn(batchv1.JobSpec{}.SwaggerDoc()["selector"])})
}

func pods() rest.TableConvertor {
	return newConvertor(typed(printPod), columns{
		nameColumn,
		column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
		column("Status", "string", "The aggregate status of the containers in this pod."),
		column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
		ageColumn,
		wide(column("IP", "string", corev1.PodStatus{}.SwaggerDoc()["podIP"])),
		wide(column("Node", "string", corev1.PodSpec{}.SwaggerDoc()["nodeName"])),
		wide(column("Nominated Node", "string", corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"])),
		wide(column("Readiness Gates", "string", corev1.PodSpec{}.SwaggerDoc()["readinessGates"])),
	})
}

// restarts counts the restarts of containers and remembers the last one.
type restarts struct {
	count int32
	last  metav1.Time
}

func (r *restarts) add(s corev1.ContainerStatus) {
	r.count += s.RestartCount
	if t := s.LastTerminationState.Terminated; t != nil && r.last.Before(&t.FinishedAt) {
		r.last = t.FinishedAt
	}
}

func (r restarts) String() string {
	if r.count != 0 && !r.last.IsZero() {
		return fmt.Sprintf("%d (%s ago)", r.count, age(r.last))
	}
	return fmt.Sprint(r.count)
}

// terminated returns the reason a container terminated for.
func terminated(t *corev1.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	}
	return fmt.Sprintf("ExitCode:%d", t.ExitCode)
}

// printPod sums up the state of a pod and its containers as kubectl does: the
// status is the pod's phase or reason unless an init container has not
// completed yet or a container waits or terminated.
func printPod(p *corev1.Pod) metav1.TableRow {
	sidecars := map[string]bool{}
	total, ready := len(p.Spec.Containers), 0
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			total++
		}
	}
	condition := func(t corev1.PodConditionType) bool {
		return slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == t && c.Status == corev1.ConditionTrue
		})
	}
	status := cmp.Or(p.Status.Reason, string(p.Status.Phase), string(corev1.PodPending))
	if slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated
	}) {
		status = corev1.PodReasonSchedulingGated
	}

	var all, sidecarRestarts restarts
	// The first init container that has not completed, if any, sets the status.
	initializing := false
	for i, s := range p.Status.InitContainerStatuses {
		all.add(s)
		if sidecars[s.Name] {
			sidecarRestarts.add(s)
		}
		switch t, w := s.State.Terminated, s.State.Waiting; {
		case t != nil && t.ExitCode == 0:
			continue
		case sidecars[s.Name] && s.Started != nil && *s.Started:
			if s.Ready {
				ready++
			}
			continue
		case t != nil:
			status = "Init:" + terminated(t)
		case w != nil && w.Reason != "" && w.Reason != "PodInitializing":
			status = "Init:" + w.Reason
		default:
			status = fmt.Sprintf("Init:%d/%d", i, len(p.Spec.InitContainers))
		}
		initializing = true
		break
	}
	restarted := all
	if !initializing || condition(corev1.PodInitialized) {
		restarted = sidecarRestarts
		running := false
		for _, s := range slices.Backward(p.Status.ContainerStatuses) {
			restarted.add(s)
			switch {
			case s.State.Waiting != nil && s.State.Waiting.Reason != "":
				status = s.State.Waiting.Reason
			case s.State.Terminated != nil:
				status = terminated(s.State.Terminated)
			case s.Ready && s.State.Running != nil:
				running = true
				ready++
			}
		}
		if status == "Completed" && running {
			status = "NotReady"
			if condition(corev1.PodReady) {
				status = "Running"
			}
		}
	}
	terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	switch {
	case p.DeletionTimestamp != nil && p.Status.Reason == "NodeLost":
		status = "Unknown"
	case p.DeletionTimestamp != nil && !terminal:
		status = "Terminating"
	}

	ip := p.Status.PodIP
	if len(p.Status.PodIPs) > 0 {
		ip = p.Status.PodIPs[0].IP
	}
	gates := "<none>"
	if len(p.Spec.ReadinessGates) > 0 {
		n := 0
		for _, g := range p.Spec.ReadinessGates {
			if condition(g.ConditionType) {
				n++
			}
		}
		gates = fmt.Sprintf("%d/%d", n, len(p.Spec.ReadinessGates))
	}
	row := cells(p.Name, fmt.Sprintf("%d/%d", ready, total), status, restarted.String(), age(p.CreationTimestamp),
		orNone(ip), orNone(p.Spec.NodeName), orNone(p.Status.NominatedNodeName), gates)
	if terminal {
		row.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue,
			Reason: string(p.Status.Phase), Message: "The pod has terminated."}}
	}
	return row
}

func services() rest.TableConvertor {
	spec := corev1.ServiceSpec{}.SwaggerDoc()
	return newConvertor(typed(func(s *corev1.Service) metav1.TableRow {
		clusterIP := s.Spec.ClusterIP
		if len(s.Spec.ClusterIPs) > 0 {
			clusterIP = s.Spec.ClusterIPs[0]
		}
		ports := make([]string, len(s.Spec.Ports))
		for i, p := range s.Spec.Ports {
			protocol := cmp.Or(string(p.Protocol), string(corev1.ProtocolTCP))
			if p.NodePort > 0 {
				ports[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, protocol)
			} else {
				ports[i] = fmt.Sprintf("%d/%s", p.Port, protocol)
			}
		}
		return cells(s.Name, cmp.Or(string(s.Spec.Type), string(corev1.ServiceTypeClusterIP)), orNone(clusterIP),
			externalIP(s), orNone(strings.Join(ports, ",")), age(s.CreationTimestamp), labels.FormatLabels(s.Spec.Selector))
	}), columns{
		nameColumn,
		column("Type", "string", spec["type"]),
		column("Cluster-IP", "string", spec["clusterIP"]),
		column("External-IP", "string", spec["externalIPs"]),
		column("Port(s)", "string", spec["ports"]),
		ageColumn,
		selectorColumn(spec["selector"]),
	})
}

// externalIP returns the addresses a service is reached at from outside
// the cluster.
func externalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, "":
		return orNone(strings.Join(s.Spec.ExternalIPs, ","))
	case corev1.ServiceTypeLoadBalancer:
		var ips []string
		for _, in := range s.Status.LoadBalancer.Ingress {
			ips = append(ips, cmp.Or(in.IP, in.Hostname))
		}
		ips = append(ips, s.Spec.ExternalIPs...)
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

// configMaps and secrets read their data from the template: FromUnstructured
// cannot decode base64 into []byte, and only the keys count.
func configMaps() rest.TableConvertor {
	return newConvertor(untyped(func(u *unstructured.Unstructured) (metav1.TableRow, error) {
		return cells(u.GetName(), int64(len(keys(u, "data"))+len(keys(u, "binaryData"))), age(u.GetCreationTimestamp())), nil
	}), columns{nameColumn, column("Data", "string", corev1.ConfigMap{}.SwaggerDoc()["data"]), ageColumn})
}

func secrets() rest.TableConvertor {
	doc := corev1.Secret{}.SwaggerDoc()
	return newConvertor(untyped(func(u *unstructured.Unstructured) (metav1.TableRow, error) {
		typ, _, _ := unstructured.NestedString(u.Object, "type")
		// The apiserver merges stringData into data.
		data := keys(u, "data")
		for _, k := range keys(u, "stringData") {
			if !slices.Contains(data, k) {
				data = append(data, k)
			}
		}
		return cells(u.GetName(), cmp.Or(typ, string(corev1.SecretTypeOpaque)), int64(len(data)), age(u.GetCreationTimestamp())), nil
	}), columns{nameColumn, column("Type", "string", doc["type"]), column("Data", "string", doc["data"]), ageColumn})
}

// keys returns the keys of the map at field of u.
func keys(u *unstructured.Unstructured, field string) []string {
	m, _ := u.Object[field].(map[string]any)
	return slices.Collect(maps.Keys(m))
}

func serviceAccounts() rest.TableConvertor {
	return newConvertor(typed(func(s *corev1.ServiceAccount) metav1.TableRow {
		return cells(s.Name, int64(len(s.Secrets)), age(s.CreationTimestamp))
	}), columns{nameColumn, column("Secrets", "string", corev1.ServiceAccount{}.SwaggerDoc()["secrets"]), ageColumn})
}

func namespaces() rest.TableConvertor {
	return newConvertor(typed(func(n *corev1.Namespace) metav1.TableRow {
		return cells(n.Name, cmp.Or(string(n.Status.Phase), string(corev1.NamespaceActive)), age(n.CreationTimestamp))
	}), columns{nameColumn, column("Status", "string", "The status of the namespace"), ageColumn})
}

func persistentVolumeClaims() rest.TableConvertor {
	spec, status := corev1.PersistentVolumeClaimSpec{}.SwaggerDoc(), corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
	return newConvertor(typed(func(c *corev1.PersistentVolumeClaim) metav1.TableRow {
		phase := cmp.Or(string(c.Status.Phase), string(corev1.ClaimPending))
		if c.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		var capacity, modes string
		if c.Spec.VolumeName != "" {
			q := c.Status.Capacity[corev1.ResourceStorage]
			capacity, modes = q.String(), accessModes(c.Status.AccessModes)
		}
		class := c.Annotations[corev1.BetaStorageClassAnnotation]
		if c.Spec.StorageClassName != nil {
			class = *c.Spec.StorageClassName
		}
		attributes, mode := "<unset>", "<unset>"
		if c.Spec.VolumeAttributesClassName != nil {
			attributes = *c.Spec.VolumeAttributesClassName
		}
		if c.Spec.VolumeMode != nil {
			mode = string(*c.Spec.VolumeMode)
		}
		return cells(c.Name, phase, c.Spec.VolumeName, capacity, modes, class, attributes, age(c.CreationTimestamp), mode)
	}), columns{
		nameColumn,
		column("Status", "string", status["phase"]),
		column("Volume", "string", spec["volumeName"]),
		column("Capacity", "string", status["capacity"]),
		column("Access Modes", "string", status["accessModes"]),
		column("StorageClass", "string", spec["storageClassName"]),
		column("VolumeAttributesClass", "string", spec["volumeAttributesClassName"]),
		ageColumn,
		wide(column("VolumeMode", "string", spec["volumeMode"])),
	})
}

// accessModes abbreviates access modes as kubectl does: RWO, ROX, RWX, RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var short []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"},
		{corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			short = append(short, m.short)
		}
	}
	return strings.Join(short, ",")
}

func events() rest.TableConvertor {
	doc := corev1.Event{}.SwaggerDoc()
	return newConvertor(typed(func(e *corev1.Event) metav1.TableRow {
		first := age(e.FirstTimestamp)
		if e.FirstTimestamp.IsZero() {
			first = age(metav1.Time(e.EventTime))
		}
		last, count := first, e.Count
		if !e.LastTimestamp.IsZero() {
			last = age(e.LastTimestamp)
		}
		if e.Series != nil {
			last, count = age(metav1.Time(e.Series.LastObservedTime)), e.Series.Count
		} else if count == 0 {
			count = 1
		}
		object := strings.ToLower(e.InvolvedObject.Kind)
		if e.InvolvedObject.Name != "" {
			object += "/" + e.InvolvedObject.Name
		}
		source := cmp.Or(e.Source.Component, e.ReportingController)
		if host := cmp.Or(e.Source.Host, e.ReportingInstance); host != "" {
			source += ", " + host
		}
		return cells(last, e.Type, e.Reason, object, e.InvolvedObject.FieldPath, source,
			strings.TrimSpace(e.Message), first, int64(count), e.Name)
	}), columns{
		column("Last Seen", "string", doc["lastTimestamp"]),
		column("Type", "string", doc["type"]),
		column("Reason", "string", doc["reason"]),
		column("Object", "string", doc["involvedObject"]),
		wide(column("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"])),
		wide(column("Source", "string", doc["source"])),
		column("Message", "string", doc["message"]),
		wide(column("First Seen", "string", doc["firstTimestamp"])),
		wide(column("Count", "string", doc["count"])),
		wide(nameColumn),
	})
}

func ingresses() rest.TableConvertor {
	return newConvertor(typed(func(i *networkingv1.Ingress) metav1.TableRow {
		class := "<none>"
		if i.Spec.IngressClassName != nil {
			class = *i.Spec.IngressClassName
		}
		// The first three hosts, and how many rules follow.
		var hosts []string
		more := false
		for _, r := range i.Spec.Rules {
			if len(hosts) == 3 {
				more = true
				break
			}
			if r.Host != "" {
				hosts = append(hosts, r.Host)
			}
		}
		host := cmp.Or(strings.Join(hosts, ","), "*")
		if more {
			host = fmt.Sprintf("%s + %d more...", host, len(i.Spec.Rules)-3)
		}
		var addresses []string
		for _, in := range i.Status.LoadBalancer.Ingress {
			addresses = append(addresses, cmp.Or(in.IP, in.Hostname))
		}
		ports := "80"
		if len(i.Spec.TLS) > 0 {
			ports = "80, 443"
		}
		return cells(i.Name, class, host, strings.Join(addresses, ","), ports,
			age(i.CreationTimestamp))
	}), columns{
		nameColumn,
		column("Class", "string", "The name of the IngressClass resource that should be used by the Ingress"),
		column("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
		column("Address", "string", "Address is a list containing ingress points for the load-balancer"),
		column("Ports", "string", "Ports of TLS configurations that open"),
		ageColumn,
	})
}

// createdAtOnly prints Name and Created At, as kube-apiserver does for the
// kinds it has no printer of.
func createdAtOnly() rest.TableConvertor {
	return newConvertor(typed(func(m *metav1.PartialObjectMetadata) metav1.TableRow {
		return cells(m.Name, m.CreationTimestamp.UTC().Format(time.RFC3339))
	}), columns{nameColumn, createdAtColumn})
}

// roleBindings prints RoleBindings and ClusterRoleBindings, which have the
// same fields.
func roleBindings() rest.TableConvertor {
	return newConvertor(typed(func(b *rbacv1.ClusterRoleBinding) metav1.TableRow {
		var users, groups, serviceAccounts []string
		for _, s := range b.Subjects {
			switch s.Kind {
			case rbacv1.UserKind:
				users = append(users, s.Name)
			case rbacv1.GroupKind:
				groups = append(groups, s.Name)
			case rbacv1.ServiceAccountKind:
				serviceAccounts = append(serviceAccounts, s.Namespace+"/"+s.Name)
			}
		}
		return cells(b.Name, b.RoleRef.Kind+"/"+b.RoleRef.Name, age(b.CreationTimestamp),
			strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(serviceAccounts, ", "))
	}), columns{
		nameColumn,
		column("Role", "string", rbacv1.RoleBinding{}.SwaggerDoc()["roleRef"]),
		ageColumn,
		wide(column("Users", "string", "Users in the binding")),
		wide(column("Groups", "string", "Groups in the binding")),
		wide(column("ServiceAccounts", "string", "ServiceAccounts in the binding")),
	})
}

func podDisruptionBudgets() rest.TableConvertor {
	spec := policyv1.PodDisruptionBudgetSpec{}.SwaggerDoc()
	return newConvertor(typed(func(p *policyv1.PodDisruptionBudget) metav1.TableRow {
		minAvailable, maxUnavailable := "N/A", "N/A"
		if p.Spec.MinAvailable != nil {
			minAvailable = p.Spec.MinAvailable.String()
		}
		if p.Spec.MaxUnavailable != nil {
			maxUnavailable = p.Spec.MaxUnavailable.String()
		}
		return cells(p.Name, minAvailable, maxUnavailable, int64(p.Status.DisruptionsAllowed), age(p.CreationTimestamp))
	}), columns{
		nameColumn,
		column("Min Available", "string", spec["minAvailable"]),
		column("Max Unavailable", "string", spec["maxUnavailable"]),
		column("Allowed Disruptions", "integer", policyv1.PodDisruptionBudgetStatus{}.SwaggerDoc()["disruptionsAllowed"]),
		ageColumn,
	})
}

func horizontalPodAutoscalers() rest.TableConvertor {
	spec := autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()
	return newConvertor(untyped(printHorizontalPodAutoscaler), columns{
		nameColumn,
		column("Reference", "string", spec["scaleTargetRef"]),
		column("Targets", "string", spec["metrics"]),
		column("MinPods", "string", spec["minReplicas"]),
		column("MaxPods", "string", spec["maxReplicas"]),
		column("Replicas", "string", autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()["currentReplicas"]),
		ageColumn,
	})
}

// printHorizontalPodAutoscaler prints an autoscaling/v2 HPA, or an
// autoscaling/v1 one, whose only metric is its CPU target. Both target 80% CPU
// when they have no target.
func printHorizontalPodAutoscaler(u *unstructured.Unstructured) (metav1.TableRow, error) {
	var h autoscalingv2.HorizontalPodAutoscaler
	if err := decode(u, &h); err != nil {
		return metav1.TableRow{}, err
	}
	metrics, current := h.Spec.Metrics, h.Status.CurrentMetrics
	if len(metrics) == 0 {
		target := int32(80)
		if t, ok, _ := unstructured.NestedInt64(u.Object, "spec", "targetCPUUtilizationPercentage"); ok {
			target = int32(t)
		}
		metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(target)}}}}
		if c, ok, _ := unstructured.NestedInt64(u.Object, "status", "currentCPUUtilizationPercentage"); ok {
			current = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
					Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(int32(c))}}}}
		}
	}
	return cells(h.Name, h.Spec.ScaleTargetRef.Kind+"/"+h.Spec.ScaleTargetRef.Name, formatMetrics(metrics, current),
		fmt.Sprint(ptr.Deref(h.Spec.MinReplicas, 1)), int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas),
		age(h.CreationTimestamp)), nil
}

// HPATargets prints an HPA's metrics as kubectl get hpa's TARGETS column does, for
// fed's FederatedHPAs.
func HPATargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	return formatMetrics(specs, statuses)
}

// formatMetrics prints the first two metrics of an HPA as current/target,
// "<unknown>" for no current value.
func formatMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	var list []string
	for i, m := range specs {
		var s autoscalingv2.MetricStatus
		if i < len(statuses) {
			s = statuses[i]
		}
		var prefix string
		var target *autoscalingv2.MetricTarget
		var current *autoscalingv2.MetricValueStatus
		switch {
		case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
			prefix, target = m.Resource.Name.String()+": ", &m.Resource.Target
			if s.Resource != nil {
				current = &s.Resource.Current
			}
		case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
			prefix, target = m.ContainerResource.Name.String()+": ", &m.ContainerResource.Target
			if s.ContainerResource != nil {
				current = &s.ContainerResource.Current
			}
		case m.Type == autoscalingv2.PodsMetricSourceType && m.Pods != nil:
			target = &m.Pods.Target
			if s.Pods != nil {
				current = &s.Pods.Current
			}
		case m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil:
			target = &m.Object.Target
			if s.Object != nil {
				current = &s.Object.Current
			}
		case m.Type == autoscalingv2.ExternalMetricSourceType && m.External != nil:
			target = &m.External.Target
			if s.External != nil {
				current = &s.External.Current
			}
		}
		if target == nil {
			list = append(list, "<unknown type>")
			continue
		}
		average := m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
		list = append(list, prefix+formatMetric(*target, current, average))
	}
	switch {
	case len(list) == 0:
		return "<none>"
	case len(list) > 2:
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:2], ", "), len(list)-2)
	}
	return strings.Join(list, ", ")
}

// formatMetric prints current/target of one metric of an HPA, with " (avg)"
// after an average value when average.
func formatMetric(target autoscalingv2.MetricTarget, current *autoscalingv2.MetricValueStatus, average bool) string {
	if current == nil {
		current = &autoscalingv2.MetricValueStatus{}
	}
	now := "<unknown>"
	switch {
	case target.AverageValue != nil:
		if current.AverageValue != nil {
			now = current.AverageValue.String()
		}
		if average {
			return now + "/" + target.AverageValue.String() + " (avg)"
		}
		return now + "/" + target.AverageValue.String()
	case target.Value != nil:
		if current.Value != nil {
			now = current.Value.String()
		}
		return now + "/" + target.Value.String()
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	if current.AverageUtilization != nil {
		now = fmt.Sprintf("%d%%", *current.AverageUtilization)
	}
	return now + "/" + want
}
