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

// Package credentials renews the tokens fed holds for its push members. kubectl fed join
// stores a token of fed's service account in each member, from the member's TokenRequest
// API, with its expiry (AnnotationTokenExpiration) in the host Secret the Cluster names. For
// each such Secret, once less than a third of the token's lifetime is left, the controller
// asks the member for a new token of the same lifetime, with the current token, and writes it
// to the Secret; fed's member clients read the Secret's token at each request, so they use
// the new one at once. A failure is retried with backoff, logged and shown on the Cluster
// (condition TokenCurrent). A Secret without the annotation (a token of an older join, a
// kubeconfig a user wrote) is left alone.
package credentials

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Reasons of the TokenCurrent condition.
const (
	ReasonRenewalScheduled  = "RenewalScheduled"
	ReasonRenewalFailed     = "RenewalFailed"
	ReasonExpired           = "Expired"
	ReasonInvalidExpiration = "InvalidExpiration"
)

const (
	// requestTimeout bounds the TokenRequest to a member.
	requestTimeout = 30 * time.Second
	// lookAgain is the longest wait before a Secret is looked at again, so that a clock
	// that jumps is noticed within it.
	lookAgain = time.Hour
)

// Controller renews the members' tokens.
type Controller struct {
	fed      versioned.Interface
	host     kubernetes.Interface
	clusters clusterlisters.ClusterLister
	secrets  corelisters.SecretLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	now      func() time.Time
}

// NewController returns the controller of the Clusters' tokens: it reads the Clusters and the
// host Secrets of fed's namespace from the informers, writes Secrets with host and the
// Clusters' condition with fed.
func NewController(fed versioned.Interface, host kubernetes.Interface, clusters clusterinformers.ClusterInformer,
	secrets coreinformers.SecretInformer) (*Controller, error) {
	c := &Controller{
		fed:      fed,
		host:     host,
		clusters: clusters.Lister(),
		secrets:  secrets.Lister(),
		synced:   []cache.InformerSynced{clusters.Informer().HasSynced, secrets.Informer().HasSynced},
		queue:    reconciler.NewQueue[string]("credentials"),
		now:      time.Now,
	}
	// A Cluster's secretRef is in its spec.
	if _, err := clusters.Informer().AddEventHandler(reconciler.SpecChanges(reconciler.EnqueueKey(c.queue))); err != nil {
		return nil, err
	}
	_, err := secrets.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueSecret,
		UpdateFunc: func(old, cur any) {
			o, okOld := old.(*corev1.Secret)
			n, okNew := cur.(*corev1.Secret)
			if okOld && okNew && o.ResourceVersion == n.ResourceVersion {
				return // a resync
			}
			c.enqueueSecret(cur)
		},
	})
	return c, err
}

// enqueueSecret queues the Clusters whose secretRef names a Secret.
func (c *Controller) enqueueSecret(obj any) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return
	}
	clusters, err := c.clusters.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, cl := range clusters {
		if ref := cl.Spec.SecretRef; ref != nil && ref.Namespace == s.Namespace && ref.Name == s.Name {
			c.queue.Add(cl.Name)
		}
	}
}

// Run waits for the informers, then looks after the tokens with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Renewing a member's token", c.sync)
}

// sync renews the token of a Cluster when it is due, and says when to look again.
func (c *Controller) sync(ctx context.Context, name string) error {
	cluster, err := c.clusters.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ref := cluster.Spec.SecretRef
	if cluster.DeletionTimestamp != nil || cluster.Spec.SyncMode == clusterv1alpha1.Pull || ref == nil {
		return nil
	}
	secret, err := c.secrets.Secrets(ref.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return nil // its creation queues the Cluster again
	}
	if err != nil {
		return err
	}
	recorded, ok := secret.Annotations[clusterv1alpha1.AnnotationTokenExpiration]
	token := secret.Data[clusterv1alpha1.SecretTokenKey]
	if !ok || len(token) == 0 || len(secret.Data[clusterv1alpha1.SecretKubeconfigKey]) > 0 {
		return nil // not a token fed renews
	}
	expires, err := time.Parse(time.RFC3339, recorded)
	if err != nil {
		return c.setCondition(ctx, cluster, metav1.ConditionFalse, ReasonInvalidExpiration, fmt.Sprintf(
			"the annotation %s of Secret %s/%s is not an RFC 3339 time (%q): fed does not know when to renew the token",
			clusterv1alpha1.AnnotationTokenExpiration, ref.Namespace, ref.Name, recorded))
	}
	times := timesOf(token, expires)
	now := c.now()
	if !times.due(now) {
		at := times.renewAt()
		if err := c.setCondition(ctx, cluster, metav1.ConditionTrue, ReasonRenewalScheduled, fmt.Sprintf(
			"the token expires at %s; fed renews it from %s", stamp(expires), stamp(at))); err != nil {
			return err
		}
		return reconciler.RequeueAfter(min(at.Sub(now), lookAgain), nil)
	}

	tr, err := c.request(ctx, cluster, secret, times.ttl())
	if err != nil {
		reason, message := ReasonRenewalFailed, fmt.Sprintf("the token expires at %s and fed could not renew it: %v", stamp(expires), err)
		if !now.Before(expires) {
			reason, message = ReasonExpired, fmt.Sprintf("the token expired at %s and fed could not renew it (%v); join the cluster again", stamp(expires), err)
		}
		if cerr := c.setCondition(ctx, cluster, metav1.ConditionFalse, reason, message); cerr != nil {
			klog.FromContext(ctx).Error(cerr, "Reporting a failed token renewal", "cluster", name)
		}
		return fmt.Errorf("renewing the token of cluster %s, which expires at %s: %w", name, stamp(expires), err)
	}
	updated := secret.DeepCopy()
	updated.Data[clusterv1alpha1.SecretTokenKey] = []byte(tr.Status.Token)
	updated.Annotations[clusterv1alpha1.AnnotationTokenExpiration] = stamp(tr.Status.ExpirationTimestamp.Time)
	// The informer's resourceVersion: a Secret written meanwhile (a join again) wins, and
	// its update queues the Cluster again. The token asked for is then not used; it expires.
	if _, err := c.host.CoreV1().Secrets(secret.Namespace).Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the renewed token of cluster %s to Secret %s/%s: %w", name, secret.Namespace, secret.Name, err)
	}
	klog.FromContext(ctx).Info("Renewed a member's token", "cluster", name, "expired", stamp(expires),
		"expires", stamp(tr.Status.ExpirationTimestamp.Time))
	// The Secret's update queues the Cluster again, which records the new expiry.
	return nil
}

// request asks the member for a new token of fed's service account, as fed (with the token
// in secret).
func (c *Controller) request(ctx context.Context, cluster *clusterv1alpha1.Cluster, secret *corev1.Secret, ttl time.Duration) (*authenticationv1.TokenRequest, error) {
	cfg, err := clusterclient.BuildConfig(cluster, secret)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = requestTimeout
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	seconds := int64(ttl / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(clusterv1alpha1.FedNamespace).CreateToken(ctx, clusterv1alpha1.MemberServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	if tr.Status.Token == "" || tr.Status.ExpirationTimestamp.IsZero() {
		return nil, fmt.Errorf("the member answered the TokenRequest without a token or its expiry")
	}
	return tr, nil
}

// setCondition sets the Cluster's TokenCurrent condition, unless it already says so.
func (c *Controller) setCondition(ctx context.Context, cluster *clusterv1alpha1.Cluster, status metav1.ConditionStatus, reason, message string) error {
	want := metav1.Condition{Type: clusterv1alpha1.ClusterConditionTokenCurrent, Status: status, Reason: reason, Message: message}
	same := func(cl *clusterv1alpha1.Cluster) bool {
		got := meta.FindStatusCondition(cl.Status.Conditions, want.Type)
		return got != nil && got.Status == want.Status && got.Reason == want.Reason && got.Message == want.Message
	}
	if same(cluster) {
		return nil
	}
	clusters := c.fed.ClusterV1alpha1().Clusters()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		// The cluster controller writes the status too: the latest, not the informer's.
		cl, err := clusters.Get(ctx, cluster.Name, metav1.GetOptions{})
		if err != nil || same(cl) {
			return err
		}
		meta.SetStatusCondition(&cl.Status.Conditions, want)
		_, err = clusters.UpdateStatus(ctx, cl, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing the %s condition of cluster %s: %w", want.Type, cluster.Name, err)
	}
	return nil
}

// stamp is how times are written: RFC 3339 in UTC, as the annotation.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
