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

package promote

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/completing"
	"github.com/fedhq/fed/plugin/fleet"
	"github.com/fedhq/fed/plugin/portable"
)

// promoteFieldManager owns the fields kubectl fed promote writes.
const promoteFieldManager = "kubectl-fed"

// AnnotationPromotedFrom names, on a template and its policy made by kubectl fed promote,
// the member cluster the object was promoted from.
const AnnotationPromotedFrom = "federation.fedhq.io/promoted-from"

// PromoteOptions are the inputs of `kubectl fed promote`.
type PromoteOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags

	// Clusters is -C: exactly one member, where the object runs.
	Clusters []string
	// Args are KIND NAME or KIND/NAME.
	Args []string
}

// NewCmdPromote is `kubectl fed promote KIND NAME -C CLUSTER`.
func NewCmdPromote(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PromoteOptions{IOStreams: streams, ConfigFlags: configFlags}
	cmd := &cobra.Command{
		Use:                   "promote (KIND NAME | KIND/NAME) [-n NAMESPACE] -C CLUSTER",
		DisableFlagsInUseLine: true,
		Short:                 "Adopt an object that runs in a member cluster into the fleet",
		Long: `Adopt an object that already runs in a member cluster into the fleet, without touching it.

The object is read from the member through the host's cluster proxy. Its template is
created in the fleet without what the member's servers set (uid, resourceVersion,
creationTimestamp, generation, managedFields, ownerReferences, finalizers, status; a
Service's cluster IPs; a Job's generated selector and controller labels), together with its
namespace if the fleet lacks it. Then a PropagationPolicy (a ClusterPropagationPolicy for a
cluster-scoped kind) named NAME-KIND is created that selects exactly this object, places it
on that member only and resolves conflicts with Overwrite: fed takes the running object
over instead of creating it anew. Nothing is written to the member cluster.

It fails if the object is not in the member, or if the fleet already has its template or
the policy.`,
		Example: `  # Adopt the Deployment nginx of namespace web, running in member1
  kubectl fed promote deployment nginx -n web -C member1

  # A cluster-scoped object: a ClusterPropagationPolicy is created
  kubectl fed promote clusterrole/view-logs -C member2`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return cmdline.UsageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringSliceVarP(&o.Clusters, "clusters", "C", nil, "The member cluster where the object runs (exactly one).")
	_ = cmd.RegisterFlagCompletionFunc("clusters", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completing.ClusterNames(configFlags, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// Complete takes the object's arguments.
func (o *PromoteOptions) Complete(_ *cobra.Command, args []string) error {
	o.Args = args
	return nil
}

// Validate needs one cluster and one object.
func (o *PromoteOptions) Validate() error {
	switch {
	case len(o.Clusters) == 0:
		return errors.New("the member cluster where the object runs must be given with -C CLUSTER")
	case len(o.Clusters) > 1:
		return fmt.Errorf("an object is promoted from exactly one member cluster, not %d (-C %s)", len(o.Clusters), strings.Join(o.Clusters, ","))
	case o.Clusters[0] == "":
		return errors.New("-C needs a cluster name")
	}
	switch len(o.Args) {
	case 1:
		if !strings.Contains(o.Args[0], "/") {
			return fmt.Errorf("a name must be given: KIND NAME or KIND/NAME, not %q alone", o.Args[0])
		}
	case 2:
		if strings.Contains(o.Args[0], "/") || strings.Contains(o.Args[1], "/") {
			return errors.New("KIND NAME or KIND/NAME, not both")
		}
	default:
		return errors.New("exactly one object must be given: KIND NAME or KIND/NAME")
	}
	return nil
}

// Run reads the object in the member and creates its template and policy in the fleet.
func (o *PromoteOptions) Run(ctx context.Context) error {
	cluster := o.Clusters[0]
	fed, err := fleet.FedClient(o.ConfigFlags)
	if err != nil {
		return err
	}
	if _, err := fed.ClusterV1alpha1().Clusters().Get(ctx, cluster, metav1.GetOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("no member cluster %q (kubectl get clusters lists them)", cluster)
		}
		return err
	}
	namespace, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}

	// The object, as the member has it.
	infos, err := resource.NewBuilder(fleet.NewMemberGetter(o.ConfigFlags, func() string { return cluster })).
		Unstructured().
		NamespaceParam(namespace).DefaultNamespace().
		ResourceTypeOrNameArgs(false, o.Args...).
		SingleResourceType().
		Flatten().
		Do().Infos()
	if err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%w in member cluster %s", err, cluster)
		}
		return fmt.Errorf("member cluster %s: %w", cluster, err)
	}
	if len(infos) != 1 {
		return fmt.Errorf("%d objects match %s; promote one at a time", len(infos), strings.Join(o.Args, " "))
	}
	info := infos[0]
	obj, ok := info.Object.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("unexpected object %T", info.Object)
	}
	gvk := info.Mapping.GroupVersionKind
	namespaced := info.Mapping.Scope.Name() == meta.RESTScopeNameNamespace
	if !namespaced {
		namespace = ""
	}
	ref := resourceRef(gvk, obj.GetName())
	if owner := metav1.GetControllerOf(obj); owner != nil {
		fmt.Fprintf(o.ErrOut, "Warning: %s is controlled by %s/%s in %s; fed will manage it, its controller may fight it\n", ref, strings.ToLower(owner.Kind), owner.Name, cluster)
	}
	template := promotedTemplate(obj, gvk, cluster)
	policyName := promotePolicyName(obj.GetName(), gvk.Kind)

	// The fleet: its mapping of the kind, no template and no policy yet.
	fleetGetter := fleet.NewFleetGetter(o.ConfigFlags)
	fleetCfg, err := fleetGetter.ToRESTConfig()
	if err != nil {
		return err
	}
	mapper, err := fleetGetter.ToRESTMapper()
	if err != nil {
		return err
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return fmt.Errorf("the fleet does not serve %s; create its CustomResourceDefinition in the fleet first (kubectl fed apply -f)", gvk)
		}
		return err
	}
	dyn, err := dynamic.NewForConfig(fleetCfg)
	if err != nil {
		return err
	}
	fleetFed, err := versioned.NewForConfig(fleetCfg)
	if err != nil {
		return err
	}
	fleetKube, err := kubernetes.NewForConfig(fleetCfg)
	if err != nil {
		return err
	}
	templates := dyn.Resource(mapping.Resource).Namespace(namespace)
	alreadyPromoted := func() error {
		get := "kubectl fed get " + strings.ToLower(gvk.Kind) + " " + obj.GetName()
		if namespaced {
			get += " -n " + namespace
		}
		return fmt.Errorf("the fleet already has the template %s%s (see it with %s); nothing was changed", ref, inNamespace(namespace), get)
	}
	if _, err := templates.Get(ctx, obj.GetName(), metav1.GetOptions{}); err == nil {
		return alreadyPromoted()
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	policyRef := "propagationpolicy." + federationv1alpha1.GroupName + "/" + policyName
	policy := promotePolicySpec(gvk, obj.GetName(), cluster)
	policyMeta := metav1.ObjectMeta{Name: policyName, Namespace: namespace, Annotations: map[string]string{AnnotationPromotedFrom: cluster}}
	var createPolicy func() error
	if namespaced {
		pps := fleetFed.FederationV1alpha1().PropagationPolicies(namespace)
		_, err = pps.Get(ctx, policyName, metav1.GetOptions{})
		createPolicy = func() error {
			_, err := pps.Create(ctx, &federationv1alpha1.PropagationPolicy{ObjectMeta: policyMeta, Spec: policy}, metav1.CreateOptions{FieldManager: promoteFieldManager})
			return err
		}
	} else {
		policyRef = "clusterpropagationpolicy." + federationv1alpha1.GroupName + "/" + policyName
		cpps := fleetFed.FederationV1alpha1().ClusterPropagationPolicies()
		_, err = cpps.Get(ctx, policyName, metav1.GetOptions{})
		createPolicy = func() error {
			_, err := cpps.Create(ctx, &federationv1alpha1.ClusterPropagationPolicy{ObjectMeta: policyMeta, Spec: policy}, metav1.CreateOptions{FieldManager: promoteFieldManager})
			return err
		}
	}
	if err == nil {
		return fmt.Errorf("the fleet already has %s%s; delete it or promote under another policy by hand; nothing was changed", policyRef, inNamespace(namespace))
	} else if !apierrors.IsNotFound(err) {
		return err
	}

	// Writes, all in the fleet: namespace, template, policy.
	if namespaced {
		created, err := ensureFleetNamespace(ctx, fleetKube, namespace)
		if err != nil {
			return fmt.Errorf("the namespace %s in the fleet: %w", namespace, err)
		}
		if created {
			fmt.Fprintf(o.Out, "namespace/%s created in the fleet\n", namespace)
		}
	}
	if _, err := templates.Create(ctx, template, metav1.CreateOptions{FieldManager: promoteFieldManager}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return alreadyPromoted()
		}
		return fmt.Errorf("creating the template %s in the fleet: %w", ref, err)
	}
	if err := createPolicy(); err != nil {
		// Without its policy the template would wait for another one; take it back.
		delErr := templates.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		if delErr != nil && !apierrors.IsNotFound(delErr) {
			return fmt.Errorf("creating %s: %w (and the template %s created before could not be deleted: %v)", policyRef, err, ref, delErr)
		}
		return fmt.Errorf("creating %s: %w (the template %s was deleted again)", policyRef, err, ref)
	}
	fmt.Fprintf(o.Out, "%s promoted from %s (template and %s created)\n", ref, cluster, policyRef)
	return nil
}

// resourceRef is kubectl's "deployment.apps/nginx".
func resourceRef(gvk schema.GroupVersionKind, name string) string {
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + name
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// promotePolicyName is NAME-KIND, e.g. nginx-deployment.
func promotePolicyName(name, kind string) string {
	return name + "-" + strings.ToLower(kind)
}

// promotePolicySpec selects exactly the object and keeps it on cluster, taking over the
// object already there.
func promotePolicySpec(gvk schema.GroupVersionKind, name, cluster string) federationv1alpha1.PropagationSpec {
	return federationv1alpha1.PropagationSpec{
		ResourceSelectors: []federationv1alpha1.ResourceSelector{{
			APIVersion: gvk.GroupVersion().String(),
			Kind:       gvk.Kind,
			Name:       name,
		}},
		Placement: federationv1alpha1.Placement{
			ClusterAffinity: &federationv1alpha1.ClusterAffinity{ClusterNames: []string{cluster}},
		},
		ConflictResolution: federationv1alpha1.ConflictOverwrite,
	}
}

// ensureFleetNamespace creates the namespace in the fleet unless it exists.
func ensureFleetNamespace(ctx context.Context, client kubernetes.Interface, name string) (bool, error) {
	if _, err := client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{}); err == nil {
		return false, nil
	} else if !apierrors.IsNotFound(err) {
		return false, err
	}
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{FieldManager: promoteFieldManager})
	if apierrors.IsAlreadyExists(err) {
		return false, nil
	}
	return err == nil, err
}

// Labels that controllers put on the objects they make; a template must not carry them.
var (
	jobControllerLabels = []string{"controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"}
	podControllerLabels = []string{"pod-template-hash", "controller-revision-hash", "statefulset.kubernetes.io/pod-name",
		"apps.kubernetes.io/pod-index", "batch.kubernetes.io/job-completion-index"}
)

// promotedTemplate is a copy of obj, read from a member, without what the member's servers
// and controllers set, annotated with the cluster it comes from.
func promotedTemplate(obj *unstructured.Unstructured, gvk schema.GroupVersionKind, cluster string) *unstructured.Unstructured {
	t := obj.DeepCopy()
	controlled := metav1.GetControllerOf(obj) != nil
	portable.Strip(t)
	annotations := t.GetAnnotations()
	delete(annotations, "deployment.kubernetes.io/revision")
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AnnotationPromotedFrom] = cluster
	t.SetAnnotations(annotations)

	switch gvk.GroupKind() {
	case schema.GroupKind{Kind: "Service"}:
		if ip, _, _ := unstructured.NestedString(t.Object, "spec", "clusterIP"); ip != corev1.ClusterIPNone {
			unstructured.RemoveNestedField(t.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(t.Object, "spec", "clusterIPs")
		}
	case schema.GroupKind{Group: "batch", Kind: "Job"}:
		if manual, _, _ := unstructured.NestedBool(t.Object, "spec", "manualSelector"); !manual {
			unstructured.RemoveNestedField(t.Object, "spec", "selector")
			removeLabels(t.Object, jobControllerLabels, "metadata", "labels")
			removeLabels(t.Object, jobControllerLabels, "spec", "template", "metadata", "labels")
		}
	case schema.GroupKind{Kind: "Pod"}:
		if controlled {
			removeLabels(t.Object, append(append([]string(nil), podControllerLabels...), jobControllerLabels...), "metadata", "labels")
		}
	}
	return t
}

// removeLabels deletes keys from the string map at path, and the map if it ends up empty.
func removeLabels(obj map[string]any, keys []string, path ...string) {
	labels, found, err := unstructured.NestedStringMap(obj, path...)
	if !found || err != nil {
		return
	}
	for _, k := range keys {
		delete(labels, k)
	}
	if len(labels) == 0 {
		unstructured.RemoveNestedField(obj, path...)
		return
	}
	_ = unstructured.SetNestedStringMap(obj, labels, path...)
}
