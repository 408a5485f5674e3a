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

// Package registration is the controller of pull mode's bootstrap in the host: it answers
// the CertificateSigningRequests of fed's agents and keeps each pull cluster's agent
// objects in the host.
//
// An agent's certificate (CN AgentUser(cluster), O AgentGroup and RegistrationGroup(id),
// signer kubernetes.io/kube-apiserver-client) is approved when a fed bootstrap token (group
// RegisterGroup) asks for it, creating the pull Cluster if there is none (recording the
// registration id), or registering it again with the key its agent holds (a cluster joined
// in push mode, or held by another agent, is denied), or when the agent itself renews it;
// the host's CSR signer then issues it. Each approval records the approved key on the
// Cluster (AnnotationAgentKey), this controller being its one writer. Before approving, the
// controller makes the agent's Lease, Role and RoleBinding in the host's fed-system; it puts
// back what someone changed or deleted of them, and deletes them when the Cluster goes or
// is no pull cluster. See Decide for the exact rules.
package registration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	certinformers "k8s.io/client-go/informers/certificates/v1"
	coordinationinformers "k8s.io/client-go/informers/coordination/v1"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Informers are the host's informers the controller reads: CSRs (cluster-wide; the
// kube-apiserver-client signer's are enough), and the Leases, Roles and RoleBindings of
// the host's fed-system labelled LabelAgent.
type Informers struct {
	CSRs         certinformers.CertificateSigningRequestInformer
	Leases       coordinationinformers.LeaseInformer
	Roles        rbacinformers.RoleInformer
	RoleBindings rbacinformers.RoleBindingInformer
}

// Controller answers agents' CSRs (one queue, of CSR names) and keeps the agents' host
// objects (another, of cluster names).
type Controller struct {
	fed      versioned.Interface
	host     kubernetes.Interface
	clusters clusterlisters.ClusterLister
	csrs     certlisters.CertificateSigningRequestLister
	leases   coordinationlisters.LeaseNamespaceLister
	roles    rbaclisters.RoleNamespaceLister
	bindings rbaclisters.RoleBindingNamespaceLister
	synced   []cache.InformerSynced

	csrQueue   workqueue.TypedRateLimitingInterface[string]
	agentQueue workqueue.TypedRateLimitingInterface[string]
}

// NewController returns the controller; fed creates pull Clusters, host approves CSRs and
// writes the agents' objects.
func NewController(fed versioned.Interface, host kubernetes.Interface, clusters clusterinformers.ClusterInformer, inf Informers) (*Controller, error) {
	ns := clusterv1alpha1.FedNamespace
	c := &Controller{
		fed:      fed,
		host:     host,
		clusters: clusters.Lister(),
		csrs:     inf.CSRs.Lister(),
		leases:   inf.Leases.Lister().Leases(ns),
		roles:    inf.Roles.Lister().Roles(ns),
		bindings: inf.RoleBindings.Lister().RoleBindings(ns),
		synced: []cache.InformerSynced{clusters.Informer().HasSynced, inf.CSRs.Informer().HasSynced,
			inf.Leases.Informer().HasSynced, inf.Roles.Informer().HasSynced, inf.RoleBindings.Informer().HasSynced},
		csrQueue:   reconciler.NewQueue[string]("registration-csr"),
		agentQueue: reconciler.NewQueue[string]("registration-agent"),
	}
	enqueueCSR := reconciler.EnqueueKey(c.csrQueue)
	if _, err := inf.CSRs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueueCSR,
		UpdateFunc: func(_, cur any) { enqueueCSR(cur) },
	}); err != nil {
		return nil, err
	}
	enqueueCluster := reconciler.EnqueueKey(c.agentQueue)
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueueCluster,
		UpdateFunc: func(old, cur any) {
			o, okOld := old.(*clusterv1alpha1.Cluster)
			n, okNew := cur.(*clusterv1alpha1.Cluster)
			if okOld && okNew && o.Spec.SyncMode == n.Spec.SyncMode && (o.DeletionTimestamp == nil) == (n.DeletionTimestamp == nil) {
				return
			}
			enqueueCluster(cur)
		},
		DeleteFunc: enqueueCluster,
	}); err != nil {
		return nil, err
	}
	// An agent object changed or deleted by someone else is put back; one left by a
	// Cluster deleted while fed was down is found when the informer lists it.
	byLabel := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if m, ok := obj.(metav1.Object); ok {
			if name := m.GetLabels()[clusterv1alpha1.LabelAgent]; name != "" {
				c.agentQueue.Add(name)
			}
		}
	}
	handler := cache.ResourceEventHandlerFuncs{AddFunc: byLabel, UpdateFunc: func(_, cur any) { byLabel(cur) }, DeleteFunc: byLabel}
	for _, i := range []cache.SharedIndexInformer{inf.Leases.Informer(), inf.Roles.Informer(), inf.RoleBindings.Informer()} {
		if _, err := i.AddEventHandler(handler); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run waits for the informers, then answers CSRs with workers and keeps the agents'
// objects with one worker, until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	go reconciler.Run(ctx, c.agentQueue, 1, c.synced, "Keeping the host objects of a pull cluster's agent", c.syncAgent)
	reconciler.Run(ctx, c.csrQueue, workers, c.synced, "Answering a certificate signing request", c.syncCSR)
}

// syncCSR answers one CSR, if it is an agent's and nobody answered it yet.
func (c *Controller) syncCSR(ctx context.Context, name string) error {
	csr, err := c.csrs.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if decided(csr) || len(csr.Status.Certificate) > 0 {
		return nil
	}
	var lookupErr error
	d := Decide(csr, func(name string) *clusterv1alpha1.Cluster {
		cl, err := c.cluster(ctx, name)
		lookupErr = errors.Join(lookupErr, err)
		return cl
	}, func(id string) *clusterv1alpha1.Cluster {
		cl, err := c.clusterByID(id)
		lookupErr = errors.Join(lookupErr, err)
		return cl
	})
	if lookupErr != nil {
		return lookupErr
	}
	logger := klog.FromContext(ctx).WithValues("csr", name, "cluster", d.Cluster)
	switch d.Verdict {
	case Ignore:
		logger.V(4).Info("Not an agent's request fed answers", "why", d.Message)
		return nil
	case Wait:
		return reconciler.RequeueAfter(time.Second, nil)
	case Deny:
		logger.Info("Denying an agent's certificate", "reason", d.Reason, "message", d.Message)
		return c.answer(ctx, csr, certificatesv1.CertificateDenied, d)
	case Register:
		if err := c.createCluster(ctx, d); err != nil {
			if apierrors.IsInvalid(err) {
				d.Verdict, d.Reason, d.Message = Deny, ReasonInvalidCluster, fmt.Sprintf("fed cannot create the pull cluster %s: %v", d.Cluster, err)
				return c.answer(ctx, csr, certificatesv1.CertificateDenied, d)
			}
			return err
		}
		logger.Info("Created a pull cluster for its agent's registration")
	case Approve:
		if err := c.recordKey(ctx, d); err != nil {
			return err
		}
	}
	if err := c.ensureAgentObjects(ctx, d.Cluster); err != nil {
		return err
	}
	logger.Info("Approving an agent's certificate", "reason", d.Reason)
	return c.answer(ctx, csr, certificatesv1.CertificateApproved, d)
}

// ReasonInvalidCluster denies a registration whose Cluster fed's API refused (an
// annotation's value, say).
const ReasonInvalidCluster = "FedAgentInvalidCluster"

// cluster returns the Cluster of that name, or nil: from the informer, else (a Cluster
// this controller has just created, say) from fed's API.
func (c *Controller) cluster(ctx context.Context, name string) (*clusterv1alpha1.Cluster, error) {
	cl, err := c.clusters.Get(name)
	if err == nil {
		return cl, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	cl, err = c.fed.ClusterV1alpha1().Clusters().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return cl, err
}

// clusterByID returns the Cluster whose spec.id is id (a member's identity), or nil.
func (c *Controller) clusterByID(id string) (*clusterv1alpha1.Cluster, error) {
	if id == "" {
		return nil, nil
	}
	all, err := c.clusters.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, cl := range all {
		if cl.Spec.ID == id {
			return cl, nil
		}
	}
	return nil, nil
}

// createCluster creates the pull Cluster of a registration: no endpoint, no credentials;
// its agent dials fed.
func (c *Controller) createCluster(ctx context.Context, d Decision) error {
	cl := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: d.Cluster, Annotations: map[string]string{
			clusterv1alpha1.AnnotationRegistration: d.Registration, clusterv1alpha1.AnnotationAgentKey: d.Key}},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull, ID: d.ID,
			Provider: d.Provider, Region: d.Region, Zone: d.Zone},
	}
	_, err := c.fed.ClusterV1alpha1().Clusters().Create(ctx, cl, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Another registration of the same name won: look at the CSR again with it.
		return fmt.Errorf("cluster %s was created meanwhile: %w", d.Cluster, err)
	}
	return err
}

// recordKey records on a pull Cluster the key of the certificate about to be approved for
// its agent: the key a registration again must be signed with. The UID in the patch is a
// precondition: a Cluster of the name made since Decide read it keeps its own key.
func (c *Controller) recordKey(ctx context.Context, d Decision) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": d.UID,
		"annotations": map[string]string{clusterv1alpha1.AnnotationAgentKey: d.Key}}})
	if err != nil {
		return err
	}
	_, err = c.fed.ClusterV1alpha1().Clusters().Patch(ctx, d.Cluster, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "fed-registration"})
	if err != nil {
		return fmt.Errorf("recording the key of the agent of %s: %w", d.Cluster, err)
	}
	return nil
}

// answer approves or denies a CSR.
func (c *Controller) answer(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType, d Decision) error {
	csr = csr.DeepCopy()
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: t, Status: corev1.ConditionTrue, Reason: d.Reason, Message: d.Message, LastUpdateTime: metav1.Now(),
	})
	_, err := c.host.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// syncAgent puts back the agent objects of a pull cluster when some of them are missing or
// changed, and deletes those of a cluster that is gone or not (any more) a pull cluster. A
// pull cluster none of whose objects exist is left alone: its agent never registered
// through fed (a Cluster made by hand, or a simulated one), and the approval of its
// certificate makes them.
func (c *Controller) syncAgent(ctx context.Context, name string) error {
	cl, err := c.clusters.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err != nil || cl.DeletionTimestamp != nil || cl.Spec.SyncMode != clusterv1alpha1.Pull {
		return c.removeAgentObjects(ctx, name)
	}
	if len(validation.IsDNS1123Label(name)) > 0 || !c.hasAgentObjects(name) {
		return nil
	}
	return c.ensureAgentObjects(ctx, name)
}

// hasAgentObjects says whether the informers have any of a cluster's agent objects.
func (c *Controller) hasAgentObjects(cluster string) bool {
	name := clusterv1alpha1.AgentLease(cluster)
	_, errLease := c.leases.Get(name)
	_, errRole := c.roles.Get(name)
	_, errBinding := c.bindings.Get(name)
	return errLease == nil || errRole == nil || errBinding == nil
}

// ensureAgentObjects creates the agent's Lease, Role and RoleBinding, or puts back what
// someone changed in the Role and the RoleBinding.
func (c *Controller) ensureAgentObjects(ctx context.Context, cluster string) error {
	ns := clusterv1alpha1.FedNamespace
	if _, err := c.leases.Get(clusterv1alpha1.AgentLease(cluster)); apierrors.IsNotFound(err) {
		_, err := c.host.CoordinationV1().Leases(ns).Create(ctx, agentLease(cluster), metav1.CreateOptions{})
		if ignoreAlreadyExists(err) != nil {
			return fmt.Errorf("creating the Lease of the agent of %s: %w", cluster, err)
		}
	}
	wantRole := agentRole(cluster)
	roles := c.host.RbacV1().Roles(ns)
	switch got, err := c.roles.Get(wantRole.Name); {
	case apierrors.IsNotFound(err):
		_, err = roles.Create(ctx, wantRole, metav1.CreateOptions{})
		if ignoreAlreadyExists(err) != nil {
			return fmt.Errorf("creating the Role of the agent of %s: %w", cluster, err)
		}
	case err != nil:
		return err
	case !apiequality.Semantic.DeepEqual(got.Rules, wantRole.Rules):
		update := got.DeepCopy()
		update.Rules = wantRole.Rules
		if _, err := roles.Update(ctx, update, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("updating the Role of the agent of %s: %w", cluster, err)
		}
	}
	wantBinding := agentRoleBinding(cluster)
	bindings := c.host.RbacV1().RoleBindings(ns)
	got, err := c.bindings.Get(wantBinding.Name)
	switch {
	case err == nil && got.RoleRef != wantBinding.RoleRef:
		// roleRef cannot change: make the binding again.
		if err := bindings.Delete(ctx, got.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		fallthrough
	case apierrors.IsNotFound(err):
		_, err = bindings.Create(ctx, wantBinding, metav1.CreateOptions{})
		if ignoreAlreadyExists(err) != nil {
			return fmt.Errorf("creating the RoleBinding of the agent of %s: %w", cluster, err)
		}
	case err != nil:
		return err
	case !apiequality.Semantic.DeepEqual(got.Subjects, wantBinding.Subjects):
		update := got.DeepCopy()
		update.Subjects = wantBinding.Subjects
		if _, err := bindings.Update(ctx, update, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("updating the RoleBinding of the agent of %s: %w", cluster, err)
		}
	}
	return nil
}

// removeAgentObjects deletes the agent objects of a cluster that the informers have.
func (c *Controller) removeAgentObjects(ctx context.Context, cluster string) error {
	ns, name := clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentLease(cluster)
	deleted := false
	del := func(found error, remove func(context.Context, string, metav1.DeleteOptions) error) error {
		if found != nil {
			return nil // not there (or not labelled fed's)
		}
		deleted = true
		if err := remove(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the host objects of the agent of %s: %w", cluster, err)
		}
		return nil
	}
	_, errBinding := c.bindings.Get(name)
	_, errRole := c.roles.Get(name)
	_, errLease := c.leases.Get(name)
	for _, err := range []error{
		del(errBinding, c.host.RbacV1().RoleBindings(ns).Delete),
		del(errRole, c.host.RbacV1().Roles(ns).Delete),
		del(errLease, c.host.CoordinationV1().Leases(ns).Delete),
	} {
		if err != nil {
			return err
		}
	}
	if deleted {
		klog.FromContext(ctx).Info("Deleted the host objects of a pull cluster's agent", "cluster", cluster)
	}
	return nil
}

func ignoreAlreadyExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
