// Package cluster is the cluster health controller: it probes each member cluster, records
// what it finds in the Cluster's status (version, APIs, nodes, resources, the Ready
// condition) and taints a member that is not ready or does not answer: NoSchedule at once,
// so that nothing new is scheduled onto it, and NoExecute after EvictionTimeout, so that
// its workloads move.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coordinationinformers "k8s.io/client-go/informers/coordination/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/internal/noderoom"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Options tune the controller; zero values take the defaults.
type Options struct {
	// ProbeInterval is how often each member is probed while it is healthy (default
	// DefaultProbeInterval).
	ProbeInterval time.Duration
	// RetryInterval is how soon a member is probed again after a failed probe that did not
	// yet change its condition (default 1s).
	RetryInterval time.Duration
	// ProbeTimeout bounds each request to a member (default 5s).
	ProbeTimeout time.Duration
	// FailureThreshold is how many failed probes in a row make a Ready member not Ready
	// (default 2).
	FailureThreshold int
	// EvictionTimeout is how long a member stays not Ready before it gets a NoExecute
	// taint, which moves the workloads that do not tolerate it elsewhere (default
	// DefaultEvictionTimeout).
	EvictionTimeout time.Duration
	// AgentGracePeriod is how long a pull cluster's agent may leave its Lease unrenewed
	// before the host marks the cluster's Ready condition Unknown (default
	// DefaultAgentGracePeriod). The agent renews it every quarter of that.
	AgentGracePeriod time.Duration
}

// DefaultProbeInterval is how often a healthy member is probed, by default.
const DefaultProbeInterval = 5 * time.Second

// DefaultAgentGracePeriod is how long a pull cluster's agent may be silent, by default: as
// long as a kubelet's node lease lasts.
const DefaultAgentGracePeriod = 40 * time.Second

// DefaultEvictionTimeout is how long a member stays not Ready, by default, before its
// workloads are moved: as long as Kubernetes leaves pods on a node that stopped answering.
const DefaultEvictionTimeout = 5 * time.Minute

func (o *Options) defaults() {
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = DefaultProbeInterval
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = 5 * time.Second
	}
	if o.FailureThreshold <= 0 {
		o.FailureThreshold = 2
	}
	if o.EvictionTimeout <= 0 {
		o.EvictionTimeout = DefaultEvictionTimeout
	}
	if o.AgentGracePeriod <= 0 {
		o.AgentGracePeriod = DefaultAgentGracePeriod
	}
}

// Controller keeps the status and health taints of every Cluster current.
type Controller struct {
	client   versioned.Interface
	clusters clusterlisters.ClusterLister
	synced   []cache.InformerSynced
	members  *clusterclient.Cache
	queue    workqueue.TypedRateLimitingInterface[string]
	opts     Options
	// rooms gets each member's nodes after each successful probe, for the scheduler.
	rooms *noderoom.Store
	// leases are the pull clusters' agents' Leases in the host (the host's controller).
	leases coordinationlisters.LeaseNamespaceLister
	// agent is set in a pull cluster's agent, which probes its own cluster and renews its
	// Lease; the host keeps the taints.
	agent *agentLease

	mu       sync.Mutex
	failures map[string]int // unhealthy probes in a row, per cluster
	renewals map[string]renewal
	// roomsRead is when each pull cluster's nodes were last read through its tunnel.
	roomsRead map[string]time.Time
	// apis are the members' discovery documents, read again only when they change.
	apis *apiDocs
}

// Deps are what the cluster controller works with, in fed-apiserver (NewController) or
// in a pull cluster's agent (NewAgentController).
type Deps struct {
	// Fed writes the Clusters' status and taints.
	Fed      versioned.Interface
	Clusters clusterinformers.ClusterInformer
	// Members gives each member's client configuration.
	Members *clusterclient.Cache
	// Secrets are the host Secrets of the members' credentials (fed-apiserver only).
	Secrets coreinformers.SecretInformer
	// Leases are the agents' Leases in the host's fed namespace, which tell pull clusters'
	// health (fed-apiserver only).
	Leases coordinationinformers.LeaseInformer
	// Rooms is where it keeps each member's nodes, for the scheduler (fed-apiserver only).
	Rooms *noderoom.Store
	// Host renews the agent's Lease, for Cluster, its cluster (the agent only).
	Host    kubernetes.Interface
	Cluster string
	Options Options
}

// NewController returns fed-apiserver's controller of the Clusters: it probes each member
// with the configuration of Members (from the host Secrets), keeps the nodes of each member
// in Rooms, and tells pull clusters' health from their agents' Leases.
func NewController(d Deps) (*Controller, error) {
	c, err := newController(d.Fed, d.Clusters, d.Members, d.Rooms, d.Options)
	if err != nil {
		return nil, err
	}
	c.synced = append(c.synced, d.Secrets.Informer().HasSynced, d.Leases.Informer().HasSynced)
	c.leases = d.Leases.Lister().Leases(clusterv1alpha1.FedNamespace)
	if err := c.watchSecrets(d.Secrets.Informer()); err != nil {
		return nil, err
	}
	return c, nil
}

// NewAgentController returns the controller of a pull cluster's agent: it probes its own
// cluster (the one member of Members) and writes the Cluster's status, as the host's does
// for a push cluster, and renews the agent's Lease in the host, so that the host knows the
// agent runs. Taints stay the host's.
func NewAgentController(d Deps) (*Controller, error) {
	c, err := newController(d.Fed, d.Clusters, d.Members, noderoom.NewStore(), d.Options)
	if err != nil {
		return nil, err
	}
	c.agent = &agentLease{client: d.Host, cluster: d.Cluster}
	return c, nil
}

func newController(client versioned.Interface, clusters clusterinformers.ClusterInformer, members *clusterclient.Cache,
	rooms *noderoom.Store, opts Options) (*Controller, error) {
	opts.defaults()
	c := &Controller{
		client:    client,
		clusters:  clusters.Lister(),
		synced:    []cache.InformerSynced{clusters.Informer().HasSynced},
		members:   members,
		queue:     reconciler.NewQueue[string]("cluster"),
		opts:      opts,
		rooms:     rooms,
		failures:  map[string]int{},
		renewals:  map[string]renewal{},
		roomsRead: map[string]time.Time{},
		apis:      newAPIDocs(),
	}
	_, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue,
		UpdateFunc: func(oldObj, newObj any) {
			// The controller's own status writes need no probe: only a changed spec
			// (endpoint, credentials reference) does. Resyncs come with the same object.
			oldC, okOld := oldObj.(*clusterv1alpha1.Cluster)
			newC, okNew := newObj.(*clusterv1alpha1.Cluster)
			if okOld && okNew && apiequality.Semantic.DeepEqual(oldC.Spec, newC.Spec) {
				return
			}
			c.enqueue(newObj)
		},
		DeleteFunc: c.enqueue,
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// watchSecrets probes the Clusters whose secretRef names a Secret as soon as it is
// created or changes, so that new or rotated credentials take effect without waiting for
// the next probe.
func (c *Controller) watchSecrets(secrets cache.SharedInformer) error {
	handle := func(obj any) {
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
	_, err := secrets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: handle,
		UpdateFunc: func(oldObj, newObj any) {
			oldS, okOld := oldObj.(*corev1.Secret)
			newS, okNew := newObj.(*corev1.Secret)
			if okOld && okNew && oldS.ResourceVersion == newS.ResourceVersion {
				return // a resync
			}
			handle(newObj)
		},
	})
	return err
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// Run waits for the informers of Clusters and Secrets, then probes members with workers
// until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Probing a cluster", c.sync)
}

// sync probes one member and has it probed again when it is due.
func (c *Controller) sync(ctx context.Context, name string) error {
	next, err := c.reconcile(ctx, name)
	switch {
	case apierrors.IsConflict(err):
		// Cluster status writes bring no event this controller acts on: probe again soon
		// rather than wait for one.
		return reconciler.RequeueAfter(c.opts.RetryInterval, err)
	case err != nil:
		return err
	case next > 0:
		return reconciler.RequeueAfter(next, nil)
	}
	return nil
}

// reconcile probes one member and writes what it found. It returns when to probe again
// (zero: not at all, the Cluster is gone).
func (c *Controller) reconcile(ctx context.Context, name string) (time.Duration, error) {
	cluster, err := c.clusters.Get(name)
	if apierrors.IsNotFound(err) {
		c.mu.Lock()
		delete(c.failures, name)
		delete(c.renewals, name)
		delete(c.roomsRead, name)
		c.apis.forget(name)
		c.mu.Unlock()
		c.members.Forget(name)
		c.rooms.Delete(name)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if cluster.DeletionTimestamp != nil {
		return 0, nil
	}
	if cluster.Spec.SyncMode == clusterv1alpha1.Pull && c.agent == nil {
		// A pull cluster's agent probes it and writes its status; the host hears the
		// agent through its Lease, and keeps the taints.
		return c.watchAgent(ctx, cluster)
	}

	obs, credentialsErr := c.probe(ctx, name)
	if c.agent != nil {
		if err := c.agent.renew(ctx, c.opts.AgentGracePeriod); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Renewing the agent's Lease", "cluster", name)
		}
	}
	if obs.health == healthy {
		c.rooms.Set(name, obs.nodes, obs.nodesRead)
	}
	c.mu.Lock()
	failures := 0
	switch {
	case obs.health == healthy:
		delete(c.failures, name)
	case credentialsErr:
		// Missing credentials will not come back on their own: no grace probe.
		failures = c.opts.FailureThreshold
		c.failures[name] = failures
	default:
		c.failures[name]++
		failures = c.failures[name]
	}
	c.mu.Unlock()

	now := metav1.Now()
	cluster, err = c.writeStatus(ctx, cluster, retry.DefaultRetry, func(s clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus {
		return nextStatus(s, obs, failures, c.opts.FailureThreshold, now)
	})
	if apierrors.IsNotFound(err) {
		return 0, nil // deleted meanwhile; its delete event cleans up
	}
	if err != nil {
		return 0, err
	}
	recheck := min(c.opts.ProbeInterval, c.opts.AgentGracePeriod/4) // the agent renews its Lease this often
	if c.agent == nil {
		if recheck, err = c.keepTaints(ctx, cluster); err != nil || recheck == 0 {
			return 0, err
		}
	}
	if obs.health != healthy && failures < c.opts.FailureThreshold {
		return c.opts.RetryInterval, nil
	}
	if recheck > 0 && recheck < c.opts.ProbeInterval {
		return recheck, nil
	}
	return c.opts.ProbeInterval, nil
}

// tryOnce is a backoff of a single try.
var tryOnce = wait.Backoff{Steps: 1}

// writeStatus writes the status next makes of a Cluster's, unless it is the same, and
// returns the Cluster as written. The credentials controller writes a condition of the same
// status (TokenCurrent, at once on a join): on a conflict, next makes the status again from
// the latest Cluster, without probing the member again, as long as backoff allows.
func (c *Controller) writeStatus(ctx context.Context, cluster *clusterv1alpha1.Cluster, backoff wait.Backoff,
	next func(clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus) (*clusterv1alpha1.Cluster, error) {
	clusters := c.client.ClusterV1alpha1().Clusters()
	retrying := false
	err := retry.RetryOnConflict(backoff, func() error {
		if retrying { // after a conflict
			latest, err := clusters.Get(ctx, cluster.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cluster = latest
		}
		retrying = true
		status := next(cluster.Status)
		if apiequality.Semantic.DeepEqual(status, cluster.Status) {
			return nil
		}
		updated := cluster.DeepCopy()
		updated.Status = status
		written, err := clusters.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
		if err == nil {
			cluster = written
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("updating the status of cluster %s: %w", cluster.Name, err)
	}
	return cluster, err
}

// keepTaints gives a Cluster the health taints its Ready condition calls for. It returns
// how soon a NoExecute taint is due (ProbeInterval when none is), zero when the Cluster
// is gone.
func (c *Controller) keepTaints(ctx context.Context, cluster *clusterv1alpha1.Cluster) (time.Duration, error) {
	ready := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	taints, changed, recheck := desiredTaints(cluster.Spec.Taints, ready, time.Now(), c.opts.EvictionTimeout)
	if changed {
		updated := cluster.DeepCopy()
		updated.Spec.Taints = taints
		_, err := c.client.ClusterV1alpha1().Clusters().Update(ctx, updated, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("updating the taints of cluster %s: %w", cluster.Name, err)
		}
	}
	if recheck <= 0 {
		recheck = c.opts.ProbeInterval
	}
	return recheck, nil
}

// probe asks the member whether it is ready and, if so, reads its version, APIs, nodes and
// pods. credentialsErr says fed could not even build a client for it.
func (c *Controller) probe(ctx context.Context, name string) (obs observation, credentialsErr bool) {
	cs, cfg, err := c.probeClient(name)
	if err != nil {
		return observation{health: unreachable, message: err.Error()}, true
	}
	ctx, cancel := context.WithTimeout(ctx, 3*c.opts.ProbeTimeout)
	defer cancel()

	var code int
	res := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
	if code == 0 {
		return observation{health: unreachable, message: fmt.Sprintf("%s/readyz: %v", cfg.Host, res.Error())}, false
	}
	if err := res.Error(); err != nil {
		return observation{health: notReady, message: fmt.Sprintf("%s/readyz: HTTP %d: %v", cfg.Host, code, err)}, false
	}
	obs, err = observe(ctx, cs, func() ([]clusterv1alpha1.APIEnablement, error) { return c.apis.enablements(ctx, name, cs) })
	if err != nil {
		h := unreachable
		if errors.As(err, new(apierrors.APIStatus)) { // it answered, with an error
			h = notReady
		}
		return observation{health: h, message: err.Error()}, false
	}
	return obs, false
}

// observe reads what the status records of a ready member; apis reads its APIs.
func observe(ctx context.Context, cs kubernetes.Interface, apis func() ([]clusterv1alpha1.APIEnablement, error)) (observation, error) {
	version, err := cs.Discovery().ServerVersion()
	if err != nil {
		return observation{}, fmt.Errorf("reading the server version: %w", err)
	}
	enablements, err := apis()
	if err != nil {
		return observation{}, err
	}
	read := time.Now()
	nodes, pods, err := nodesAndPods(ctx, cs)
	if err != nil {
		return observation{}, err
	}
	nodeSummary, allocatable := summarizeNodes(nodes)
	allocated, allocating := summarizePods(pods)
	return observation{
		health:            healthy,
		kubernetesVersion: version.GitVersion,
		apiEnablements:    enablements,
		nodeSummary:       nodeSummary,
		resourceSummary:   &clusterv1alpha1.ResourceSummary{Allocatable: allocatable, Allocated: allocated, Allocating: allocating},
		nodes:             nodeRoom(nodes, pods),
		nodesRead:         read,
	}, nil
}

// probeClient is a client of a member for probes: the probe's timeout, no client-side
// throttling (a few requests every few seconds).
func (c *Controller) probeClient(name string) (kubernetes.Interface, *rest.Config, error) {
	cfg, err := c.members.Config(name)
	if err != nil {
		return nil, nil, err
	}
	cfg.Timeout = c.opts.ProbeTimeout
	cfg.QPS, cfg.Burst = -1, 0
	cs, err := kubernetes.NewForConfig(cfg)
	return cs, cfg, err
}

// nodesAndPods lists a member's nodes and its pods that hold resources (neither succeeded
// nor failed), from its apiserver's watch cache (resourceVersion 0): cheap for the member.
func nodesAndPods(ctx context.Context, cs kubernetes.Interface) ([]corev1.Node, []corev1.Pod, error) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, nil, fmt.Errorf("listing nodes: %w", err)
	}
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		ResourceVersion: "0",
		FieldSelector: fields.AndSelectors(
			fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
			fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
		).String(),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing pods: %w", err)
	}
	return nodes.Items, pods.Items, nil
}

// agentRoom keeps the scheduler's picture of a pull cluster's nodes, read through its
// agent's tunnel as a push member's probe reads them. A failed read keeps the last picture
// for up to grace, as a push member's stands until failed probes make it not Ready; without
// one (the tunnel is not open to this process, or the member has not answered for that
// long) the scheduler counts the resource summary the agent reports.
func (c *Controller) agentRoom(ctx context.Context, name string, grace time.Duration) {
	read := time.Now()
	nodes, pods, err := func() ([]corev1.Node, []corev1.Pod, error) {
		cs, _, err := c.probeClient(name)
		if err != nil {
			return nil, nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, 2*c.opts.ProbeTimeout)
		defer cancel()
		return nodesAndPods(ctx, cs)
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		klog.FromContext(ctx).V(2).Info("No new picture of a pull cluster's nodes through its tunnel", "cluster", name, "err", err)
		if time.Since(c.roomsRead[name]) > grace {
			c.rooms.Delete(name)
		}
		return
	}
	c.roomsRead[name] = time.Now()
	c.rooms.Set(name, nodeRoom(nodes, pods), read)
}

// watchAgent is the host's part for a pull cluster: while its agent renews its Lease, the
// agent's status stands; once the Lease has not been renewed for its duration (the
// agent's --lease-duration, AgentGracePeriod if it has none), the Ready condition becomes
// Unknown, as a node's does when its kubelet stops renewing its lease. As the node
// lifecycle controller does, the host times renewals with its own clock, from when it saw
// the renewTime change, so that the agent's clock does not count. The taints follow the
// condition either way. A pull cluster without a Lease was not registered through fed (its
// agent's Lease comes with its approval): its status is left as it is.
func (c *Controller) watchAgent(ctx context.Context, cluster *clusterv1alpha1.Cluster) (time.Duration, error) {
	name := cluster.Name
	lease, err := c.leases.Get(clusterv1alpha1.AgentLease(name))
	if apierrors.IsNotFound(err) {
		recheck, err := c.keepTaints(ctx, cluster)
		return recheck, err
	}
	if err != nil {
		return 0, err
	}
	grace := c.opts.AgentGracePeriod
	if d := lease.Spec.LeaseDurationSeconds; d != nil && *d > 0 {
		grace = time.Duration(*d) * time.Second
	}
	now := time.Now()
	renewed := ""
	if lease.Spec.RenewTime != nil {
		renewed = lease.Spec.RenewTime.UTC().Format(time.RFC3339Nano)
	}
	c.mu.Lock()
	seen, ok := c.renewals[name]
	if !ok || seen.renewTime != renewed {
		// Renewed since the last look (or first seen since this process started: the
		// agent gets a whole period from now).
		seen = renewal{renewTime: renewed, seenAt: now}
		c.renewals[name] = seen
	}
	c.mu.Unlock()
	next := c.opts.ProbeInterval
	if due := seen.seenAt.Add(grace); now.Before(due) {
		next = min(next, due.Sub(now)+time.Second)
		if renewed != "" {
			c.agentRoom(ctx, name, grace)
		}
	} else {
		c.rooms.Delete(name)
		msg := fmt.Sprintf("the agent of cluster %s has never renewed its Lease %s/%s in the host: is fed-agent running there?", name,
			clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentLease(name))
		if renewed != "" {
			msg = fmt.Sprintf("the agent of cluster %s has not renewed its Lease %s/%s in the host for %s (its renewTime: %s): is fed-agent running there, and can it reach the host?",
				name, clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentLease(name), now.Sub(seen.seenAt).Round(time.Second), renewed)
		}
		obs := observation{health: unreachable, message: msg}
		now := metav1.Now()
		// Written once: a conflict here most likely is the agent's own status write, back
		// with a renewed Lease; the Lease is looked at again after RetryInterval.
		cluster, err = c.writeStatus(ctx, cluster, tryOnce, func(s clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus {
			return nextStatus(s, obs, c.opts.FailureThreshold, c.opts.FailureThreshold, now)
		})
		if apierrors.IsNotFound(err) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
	}
	recheck, err := c.keepTaints(ctx, cluster)
	if err != nil || recheck == 0 {
		return 0, err
	}
	return min(next, recheck), nil
}

// renewal is when the host saw a pull cluster's Lease renewed, by its own clock.
type renewal struct {
	renewTime string
	seenAt    time.Time
}

// agentLease is the Lease a pull cluster's agent renews in the host's fed namespace. fed's
// registration controller creates it; the agent may only read and update it.
type agentLease struct {
	client  kubernetes.Interface
	cluster string
}

// renew updates the Lease when a quarter of grace has passed since its last renewal.
func (a *agentLease) renew(ctx context.Context, grace time.Duration) error {
	leases := a.client.CoordinationV1().Leases(clusterv1alpha1.FedNamespace)
	name := clusterv1alpha1.AgentLease(a.cluster)
	lease, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("the agent's Lease %s/%s is not in the host: register the cluster again (kubectl fed register)",
			clusterv1alpha1.FedNamespace, name)
	}
	if err != nil {
		return fmt.Errorf("reading the agent's Lease %s/%s in the host: %w", clusterv1alpha1.FedNamespace, name, err)
	}
	now := time.Now()
	if r := lease.Spec.RenewTime; r != nil && now.Sub(r.Time) < grace/4 && now.After(r.Time) {
		return nil
	}
	holder, seconds := clusterv1alpha1.AgentUser(a.cluster), int32(grace/time.Second)
	lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = &holder, &seconds
	lease.Spec.RenewTime = &metav1.MicroTime{Time: now}
	if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("renewing the agent's Lease %s/%s in the host: %w", clusterv1alpha1.FedNamespace, name, err)
	}
	return nil
}
