// Package controllers starts fed's embedded controllers: it builds the informers and the
// member client cache they share and runs each controller until the context ends.
package controllers

import (
	"context"
	"fmt"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	kubeinformers "k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/applicationfailover"
	"github.com/fedhq/fed/controllers/binding"
	"github.com/fedhq/fed/controllers/bindingstatus"
	clustercontroller "github.com/fedhq/fed/controllers/cluster"
	"github.com/fedhq/fed/controllers/clustertaint"
	"github.com/fedhq/fed/controllers/credentials"
	"github.com/fedhq/fed/controllers/cronfederatedhpa"
	"github.com/fedhq/fed/controllers/descheduler"
	"github.com/fedhq/fed/controllers/detector"
	"github.com/fedhq/fed/controllers/execution"
	"github.com/fedhq/fed/controllers/federatedhpa"
	"github.com/fedhq/fed/controllers/gracefuleviction"
	"github.com/fedhq/fed/controllers/hpamarker"
	"github.com/fedhq/fed/controllers/internal/applied"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/fleet"
	"github.com/fedhq/fed/controllers/internal/membernamespaces"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/noderoom"
	internalquota "github.com/fedhq/fed/controllers/internal/quota"
	"github.com/fedhq/fed/controllers/internal/scaletargets"
	"github.com/fedhq/fed/controllers/internal/templates"
	"github.com/fedhq/fed/controllers/internal/trim"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/controllers/mcs"
	"github.com/fedhq/fed/controllers/namespace"
	"github.com/fedhq/fed/controllers/quota"
	"github.com/fedhq/fed/controllers/rebalancer"
	"github.com/fedhq/fed/controllers/registration"
	"github.com/fedhq/fed/controllers/remedy"
	"github.com/fedhq/fed/controllers/scheduler"
	"github.com/fedhq/fed/controllers/searchcache"
	"github.com/fedhq/fed/controllers/workloadrebalancer"
	"github.com/fedhq/fed/controllers/workstatus"
	"github.com/fedhq/fed/internal/hostvalidation"
	"github.com/fedhq/fed/interpreter"
	"github.com/fedhq/fed/interpreter/lua"
	"github.com/fedhq/fed/interpreter/webhook"
	"github.com/fedhq/fed/search/store"
)

// DefaultHPASyncPeriod is how often each FederatedHPA is reconciled by default.
const DefaultHPASyncPeriod = federatedhpa.DefaultSyncPeriod

// Failover tunes how workloads leave failed clusters and unschedulable replicas move.
type Failover struct {
	// StatusUpdateFrequency is how often each push member is probed, and its Cluster's
	// status written, while it is healthy: how soon its failure is seen.
	StatusUpdateFrequency time.Duration
	// EvictionTimeout is how long a member stays not Ready before it gets a NoExecute
	// taint.
	EvictionTimeout time.Duration
	// DeschedulingInterval is how often the descheduler looks at every binding.
	DeschedulingInterval time.Duration
	// UnschedulableThreshold is how long a pod must have been unschedulable to count.
	UnschedulableThreshold time.Duration
	// EvictionRate is how many bindings a second NoExecute taints may evict, across the
	// fleet; 0 does not limit them.
	EvictionRate float64
}

// DefaultFailover is the defaults of Failover.
func DefaultFailover() Failover {
	return Failover{StatusUpdateFrequency: clustercontroller.DefaultProbeInterval, EvictionTimeout: clustercontroller.DefaultEvictionTimeout,
		DeschedulingInterval: descheduler.DefaultInterval, UnschedulableThreshold: descheduler.DefaultThreshold}
}

// Config is what the controllers need to run.
type Config struct {
	// Fed reaches fed's own API (in fed-apiserver, its loopback configuration).
	Fed *rest.Config
	// Host reaches the host cluster, where member credentials are kept in fed-system.
	Host *rest.Config
	// ClusterWorkers is how many clusters are probed at once (default 4).
	ClusterWorkers int
	// Cluster tunes the cluster health controller.
	Cluster clustercontroller.Options
	// SearchCache, when set, is filled with the members' objects the ResourceRegistries
	// name.
	SearchCache *store.Store
	// Metrics, when set, reads the fleet's pod metrics for the FederatedHPAs (the
	// metricsadapter fed-apiserver also serves); without it no FederatedHPA is acted on.
	Metrics federatedhpa.Metrics
	// HPASyncPeriod is how often each FederatedHPA is reconciled (15 s if 0).
	HPASyncPeriod time.Duration
	// Failover tunes failover and the descheduler; zero values take the defaults.
	Failover Failover
	// Tunnels, when set, reach pull clusters through their agents (search, metrics and the
	// fleet proxy use them; a pull cluster's Works are its agent's).
	Tunnels clusterclient.Tunnels
	// LeaderElection, when set, runs the controllers (but the search cache's, which each
	// replica has of its own) only while this replica holds its Lease.
	LeaderElection *LeaderElection
}

// Members is what the controllers share with the rest of the server once they run: the
// members' client configurations and the fleet's Clusters, for the fleet proxy.
type Members struct {
	Configs  *clusterclient.Cache
	Clusters clusterlisters.ClusterLister
	// CheckTemplate refuses an update of a template whose requests would grow, where it
	// runs, over its namespace's FederatedResourceQuotas (quota.Guard).
	CheckTemplate func(*unstructured.Unstructured) error
}

// Deps is what every controller of fed-apiserver is built from: the clients, the informer
// factories and the views the controllers share. Each entry of the table builds its
// controller from it, as kube-controller-manager's start functions do from its
// ControllerContext.
type Deps struct {
	Config Config
	// Fed writes fed's own kinds (protobuf); Host reaches the host cluster.
	Fed  versioned.Interface
	Host kubernetes.Interface
	// Informers of fed's kinds; of the host's fed-system; of the host's client-certificate
	// CSRs; of the agents' objects in fed-system.
	FedInformers   fedinformers.SharedInformerFactory
	HostInformers  kubeinformers.SharedInformerFactory
	CSRInformers   kubeinformers.SharedInformerFactory
	AgentInformers kubeinformers.SharedInformerFactory
	// Configs and Members reach the members.
	Configs *clusterclient.Cache
	Members *members.Members
	// The shared views: the fleet's templates, the bindings, the Works.
	Templates *templates.Templates
	Bindings  *bindings.Access
	Works     *works.Access
	// Rooms are the members' nodes (the cluster controller writes, the scheduler reads);
	// Results what execution made of each Work (execution writes, workstatus reads);
	// Namespaces makes members' namespaces (execution) and reads the fleet's (namespace).
	Rooms      *noderoom.Store
	Results    *applied.Log
	Namespaces *membernamespaces.Maker
	// Interpreter is the one interpreter of kinds; Recorder records events in the fleet.
	Interpreter *interpreter.Interpreter
	Recorder    record.EventRecorder
	// Scales and ScaleTargets scale the fleet's templates (FederatedHPAs, cron).
	Scales       scale.ScalesGetter
	ScaleTargets *scaletargets.Mapper
}

// runner is a controller built: it runs with workers until ctx is done.
type runner interface {
	Run(ctx context.Context, workers int)
}

// controller is an entry of the table: its name, how many workers it runs with, when it
// runs, and how it is built (nil: not enabled by the Config).
type controller struct {
	name string
	// workers: 0 is Config.ClusterWorkers.
	workers int
	// everyReplica: each replica runs its own (the search cache); the others run only on
	// the replica that holds the Lease.
	everyReplica bool
	// interprets: waits for the customizations to be read, for the interpreter it asks.
	interprets bool
	build      func(*Deps) (runner, error)
}

// Workers: each step of the pipeline waits mostly on a write to fed's storage or a member
// (a few milliseconds each, little CPU), so many workers keep it busy; the status writes
// have fewer than the steps that propagate: under load, propagation goes first, and what
// changed several times meanwhile gets one write.
//
// The controllers of fed-apiserver, in the order they are built. fed-agent runs four of
// the same packages (controllers/pullagent); docs/design.md lists which.
var table = []controller{
	{name: "cluster", build: func(d *Deps) (runner, error) {
		return clustercontroller.NewController(clustercontroller.Deps{Fed: d.Fed, Clusters: d.clusters(), Members: d.Configs,
			Secrets: d.secrets(), Leases: d.HostInformers.Coordination().V1().Leases(), Rooms: d.Rooms, Options: d.Config.Cluster})
	}},
	{name: "clustertaint", workers: 2, build: func(d *Deps) (runner, error) {
		return clustertaint.NewController(d.Fed, d.Host, d.clusters(), d.FedInformers.Federation().V1alpha1().ClusterTaintPolicies(), d.Recorder)
	}},
	{name: "remedy", workers: 2, build: func(d *Deps) (runner, error) {
		return remedy.NewController(d.Fed, d.Host, d.clusters(), d.FedInformers.Cluster().V1alpha1().Remedies(), d.Recorder)
	}},
	{name: "credentials", workers: 2, build: func(d *Deps) (runner, error) {
		return credentials.NewController(d.Fed, d.Host, d.clusters(), d.secrets())
	}},
	{name: "detector", workers: 16, interprets: true, build: func(d *Deps) (runner, error) {
		fed := d.FedInformers.Federation().V1alpha1()
		return detector.NewController(detector.Deps{Templates: d.Templates, Bindings: d.Bindings,
			PropagationPolicies: fed.PropagationPolicies(), ClusterPropagationPolicies: fed.ClusterPropagationPolicies(),
			OverridePolicies: fed.OverridePolicies(), ClusterOverridePolicies: fed.ClusterOverridePolicies(),
			Customizations: fed.ResourceInterpreterCustomizations(), Webhooks: fed.ResourceInterpreterWebhookConfigurations(), Interpreter: d.Interpreter, Recorder: d.Recorder})
	}},
	{name: "scheduler", workers: 16, interprets: true, build: func(d *Deps) (runner, error) {
		return scheduler.NewController(d.Fed, d.clusters(), d.Bindings, d.Rooms,
			internalquota.FromInformer(d.FedInformers.Federation().V1alpha1().FederatedResourceQuotas()), d.Config.Failover.EvictionRate, d.Recorder)
	}},
	{name: "binding", workers: 16, interprets: true, build: func(d *Deps) (runner, error) {
		asAuthor, err := authorCheck(d.Config.Host)
		if err != nil {
			return nil, err
		}
		fed := d.FedInformers.Federation().V1alpha1()
		return binding.NewController(binding.Deps{Templates: d.Templates, Bindings: d.Bindings, Works: d.Works,
			OverridePolicies: fed.OverridePolicies(), ClusterOverridePolicies: fed.ClusterOverridePolicies(), Clusters: d.clusters(),
			Interpreter: d.Interpreter, Recorder: d.Recorder, AsAuthor: asAuthor})
	}},
	{name: "binding-status", workers: 4, interprets: true, build: func(d *Deps) (runner, error) {
		return bindingstatus.NewController(d.Templates, d.Bindings, d.Works, d.Interpreter)
	}},
	{name: "work-status", workers: 4, interprets: true, build: func(d *Deps) (runner, error) {
		return workstatus.NewController(d.Fed, d.Works, d.Members, d.Results, d.Interpreter), nil
	}},
	{name: "execution", workers: 32, interprets: true, build: func(d *Deps) (runner, error) {
		return execution.NewController(execution.Deps{Fed: d.Fed, Works: d.Works, Members: d.Members, Namespaces: d.Namespaces,
			Results: d.Results, Interpreter: d.Interpreter, Recorder: d.Recorder, Clusters: d.clusters()})
	}},
	{name: "graceful-eviction", workers: 2, interprets: true, build: func(d *Deps) (runner, error) {
		return gracefuleviction.NewController(d.Bindings, d.Works, d.Recorder)
	}},
	{name: "application-failover", workers: 2, interprets: true, build: func(d *Deps) (runner, error) {
		return applicationfailover.NewController(d.Bindings, d.Recorder)
	}},
	{name: "descheduler", workers: 2, interprets: true, build: func(d *Deps) (runner, error) {
		return descheduler.NewController(d.Bindings, d.Works, d.Members, d.Recorder,
			descheduler.Options{Interval: d.Config.Failover.DeschedulingInterval, Threshold: d.Config.Failover.UnschedulableThreshold}), nil
	}},
	{name: "workloadrebalancer", workers: 1, build: func(d *Deps) (runner, error) {
		return workloadrebalancer.NewController(d.Fed, d.Host, d.FedInformers.Federation().V1alpha1().WorkloadRebalancers(),
			d.Bindings, d.Templates, d.Recorder)
	}},
	{name: "rebalancer", workers: 1, interprets: true, build: func(d *Deps) (runner, error) {
		return rebalancer.NewController(rebalancer.Deps{Fed: d.Fed, Policies: d.FedInformers.Federation().V1alpha1().ReplicaSchedulingPolicies(),
			Clusters: d.clusters(), Bindings: d.Bindings, Templates: d.Templates, Recorder: d.Recorder})
	}},
	{name: "namespace", workers: 2, interprets: true, build: func(d *Deps) (runner, error) {
		return namespace.NewController(d.Fed, d.Templates, d.clusters(), d.Members, d.Namespaces)
	}},
	{name: "mcs", workers: 2, interprets: true, build: func(d *Deps) (runner, error) {
		fed := d.FedInformers.Federation().V1alpha1()
		return mcs.NewController(mcs.Deps{Fed: d.Fed, Templates: d.Templates, Bindings: fed.ResourceBindings(), Works: d.Works,
			Members: d.Members, Clusters: d.clusters(), Services: fed.MultiClusterServices(), Ingresses: fed.MultiClusterIngresses()})
	}},
	{name: "quota", workers: 2, build: func(d *Deps) (runner, error) {
		asAuthor, err := authorCheck(d.Config.Host)
		if err != nil {
			return nil, err
		}
		return quota.NewController(quota.Deps{Fed: d.Fed, Quotas: d.FedInformers.Federation().V1alpha1().FederatedResourceQuotas(),
			Clusters: d.clusters(), Bindings: d.Bindings, Works: d.Works, AsAuthor: asAuthor, Recorder: d.Recorder})
	}},
	{name: "search-cache", workers: 2, everyReplica: true, build: func(d *Deps) (runner, error) {
		if d.Config.SearchCache == nil {
			return nil, nil
		}
		return searchcache.NewController(searchcache.Deps{Fed: d.Fed, Registries: d.FedInformers.Search().V1alpha1().ResourceRegistries(),
			Clusters: d.clusters(), Members: d.Members, Configs: d.Configs, Store: d.Config.SearchCache})
	}},
	{name: "federated-hpa", workers: 2, build: func(d *Deps) (runner, error) {
		if d.Config.Metrics == nil {
			return nil, nil // without the fleet's metrics no FederatedHPA is acted on
		}
		fed := d.FedInformers.Federation().V1alpha1()
		return federatedhpa.NewController(federatedhpa.Config{
			Fed: d.Fed, HPAs: fed.FederatedHPAs(), Clusters: d.clusters().Lister(), Bindings: fed.ResourceBindings(), Members: d.Members,
			Metrics: d.Config.Metrics, Scales: d.Scales, Targets: d.ScaleTargets, Recorder: d.Recorder, SyncPeriod: d.Config.HPASyncPeriod,
		})
	}},
	{name: "cron-federated-hpa", workers: 2, build: func(d *Deps) (runner, error) {
		return cronfederatedhpa.NewController(cronfederatedhpa.Config{
			Fed: d.Fed, Crons: d.FedInformers.Federation().V1alpha1().CronFederatedHPAs(), Scales: d.Scales, Targets: d.ScaleTargets})
	}},
	{name: "hpa-marker", workers: 2, build: func(d *Deps) (runner, error) {
		return hpamarker.NewController(d.Templates), nil
	}},
	{name: "registration", workers: 2, build: func(d *Deps) (runner, error) {
		return registration.NewController(d.Fed, d.Host, d.clusters(), registration.Informers{
			CSRs:         d.CSRInformers.Certificates().V1().CertificateSigningRequests(),
			Leases:       d.AgentInformers.Coordination().V1().Leases(),
			Roles:        d.AgentInformers.Rbac().V1().Roles(),
			RoleBindings: d.AgentInformers.Rbac().V1().RoleBindings(),
		})
	}},
}

func (d *Deps) clusters() clusterinformers.ClusterInformer {
	return d.FedInformers.Cluster().V1alpha1().Clusters()
}

func (d *Deps) secrets() coreinformers.SecretInformer { return d.HostInformers.Core().V1().Secrets() }

// Start builds the informers, the shared views and every controller of the table, and
// starts them; they run until ctx is done. Start returns once they are started, without
// waiting for the informers to sync.
func Start(ctx context.Context, cfg Config) (*Members, error) {
	d, err := newDeps(ctx, cfg)
	if err != nil {
		return nil, err
	}
	type built struct {
		controller
		runner
	}
	var all []built
	for _, c := range table {
		r, err := c.build(d)
		if err != nil {
			return nil, fmt.Errorf("the %s controller: %w", c.name, err)
		}
		if c.workers == 0 {
			c.workers = d.Config.ClusterWorkers
		}
		if r != nil {
			all = append(all, built{c, r})
		}
	}
	guard := &internalquota.Guard{Quotas: internalquota.FromInformer(d.FedInformers.Federation().V1alpha1().FederatedResourceQuotas()),
		Bindings: d.Bindings, Interpret: d.Interpreter.Workload}
	// Informers are registered by the builds above; only now may the factories start them.
	factories := []interface {
		Start(<-chan struct{})
		Shutdown()
	}{d.FedInformers, d.HostInformers, d.CSRInformers, d.AgentInformers}
	for _, f := range factories {
		f.Start(ctx.Done())
	}
	d.Templates.Start(ctx)
	customizations := d.FedInformers.Federation().V1alpha1().ResourceInterpreterCustomizations().Informer()
	webhooks := d.FedInformers.Federation().V1alpha1().ResourceInterpreterWebhookConfigurations().Informer()
	run := func(ctx context.Context, everyReplica bool) {
		var interpreting []built
		for _, b := range all {
			switch {
			case b.everyReplica != everyReplica:
			case b.interprets:
				interpreting = append(interpreting, b)
			default:
				go b.Run(ctx, b.workers)
			}
		}
		go func() {
			// These ask the interpreter, which needs the customizations and the
			// webhook configurations read first.
			if !cache.WaitForCacheSync(ctx.Done(), customizations.HasSynced, webhooks.HasSynced) {
				return
			}
			for _, b := range interpreting {
				go b.Run(ctx, b.workers)
			}
		}()
	}
	// Every replica fills its own search cache; only the leader runs the rest.
	run(ctx, true)
	if cfg.LeaderElection == nil {
		run(ctx, false)
	} else if err := elect(ctx, d.Host, cfg.LeaderElection, func(ctx context.Context) { run(ctx, false) }); err != nil {
		return nil, err
	}
	go func() {
		<-ctx.Done()
		for _, f := range factories {
			f.Shutdown()
		}
	}()
	klog.FromContext(ctx).Info("Started fed controllers", "controllers", len(all), "clusterWorkers", d.Config.ClusterWorkers)
	return &Members{Configs: d.Configs, Clusters: d.clusters().Lister(), CheckTemplate: guard.Check}, nil
}

// newDeps builds the clients, the informer factories and the shared views.
func newDeps(ctx context.Context, cfg Config) (*Deps, error) {
	if cfg.Fed == nil || cfg.Host == nil {
		return nil, fmt.Errorf("controllers need both the fed and the host client configuration")
	}
	if cfg.ClusterWorkers <= 0 {
		cfg.ClusterWorkers = 4
	}
	if cfg.Failover.EvictionTimeout > 0 {
		cfg.Cluster.EvictionTimeout = cfg.Failover.EvictionTimeout
	}
	if cfg.Failover.StatusUpdateFrequency > 0 {
		cfg.Cluster.ProbeInterval = cfg.Failover.StatusUpdateFrequency
	}
	// The controllers write many objects at once through the loopback; fed-apiserver's
	// priority and fairness, not a client-side limit, decide how fast.
	cfg.Fed = rest.CopyConfig(cfg.Fed)
	cfg.Fed.QPS, cfg.Fed.Burst = 2000, 4000
	// fed's own kinds in protobuf, as Kubernetes' built-in kinds go between their
	// controllers and the API: a Work decodes in about a seventh of the time JSON takes.
	protobufCfg := rest.CopyConfig(cfg.Fed)
	protobufCfg.ContentType = runtime.ContentTypeProtobuf
	protobufCfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	fedClient, err := versioned.NewForConfig(protobufCfg)
	if err != nil {
		return nil, fmt.Errorf("fed client: %w", err)
	}
	hostClient, err := kubernetes.NewForConfig(rest.CopyConfig(cfg.Host))
	if err != nil {
		return nil, fmt.Errorf("host client: %w", err)
	}
	d := &Deps{Config: cfg, Fed: fedClient, Host: hostClient,
		// No resync: controllers poll members themselves. No managedFields: none reads them.
		FedInformers: fedinformers.NewSharedInformerFactoryWithOptions(fedClient, 0, fedinformers.WithTransform(trim.ManagedFields)),
		// Only fed's namespace: fed reads no other host Secret, and its RBAC allows no more.
		HostInformers: kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
			kubeinformers.WithNamespace(clusterv1alpha1.FedNamespace), kubeinformers.WithTransform(trim.ManagedFields)),
		// Pull mode's registration reads the host's CSRs (cluster-wide, of the signer of
		// client certificates only) and the agents' objects in fed-system (by their label).
		CSRInformers: kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("spec.signerName", certificatesv1.KubeAPIServerClientSignerName).String()
			}), kubeinformers.WithTransform(trim.ManagedFields)),
		AgentInformers: kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
			kubeinformers.WithNamespace(clusterv1alpha1.FedNamespace),
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = clusterv1alpha1.LabelAgent }),
			kubeinformers.WithTransform(trim.ManagedFields)),
		Rooms:   noderoom.NewStore(),
		Results: &applied.Log{},
	}
	d.Configs = clusterclient.New(d.clusters().Lister(), d.secrets().Lister())
	if cfg.Tunnels != nil {
		d.Configs.SetTunnels(cfg.Tunnels)
	}
	if d.Members, err = members.New(ctx, d.Configs, d.clusters()); err != nil {
		return nil, err
	}
	if d.Templates, err = newTemplates(cfg.Fed); err != nil {
		return nil, err
	}
	d.Namespaces = membernamespaces.New(func(_ context.Context, name string) (*unstructured.Unstructured, error) {
		return d.Templates.Get(members.NamespacesResource, "", name)
	})
	if d.Recorder, err = fleet.Recorder(ctx, cfg.Fed, corev1.EventSource{Component: "fed"}); err != nil {
		return nil, err
	}
	fed := d.FedInformers.Federation().V1alpha1()
	// The controllers share one view of the bindings, so that each reads what the others
	// have just written; likewise the controllers of Works.
	if d.Bindings, err = bindings.NewAccess(fedClient, fed.ResourceBindings(), fed.ClusterResourceBindings()); err != nil {
		return nil, err
	}
	if d.Works, err = works.New(fedClient, fed.Works()); err != nil {
		return nil, err
	}
	// One interpreter for every controller: the built-in kinds, the customizations and
	// the interpreter webhooks.
	d.Interpreter = interpreter.New(interpreter.Listed{Lister: fed.ResourceInterpreterCustomizations().Lister()}, lua.DefaultLimits).
		WithWebhooks(webhook.Listed{Lister: fed.ResourceInterpreterWebhookConfigurations().Lister()})
	if d.Scales, d.ScaleTargets, err = scaletargets.New(fleet.Config(cfg.Fed)); err != nil {
		return nil, err
	}
	return d, nil
}

// newTemplates reads the fleet's templates.
func newTemplates(fed *rest.Config) (*templates.Templates, error) {
	cfg := fleet.Config(fed)
	fleet, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("fleet client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("fleet discovery: %w", err)
	}
	return templates.New(fleet, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))), nil
}

// authorCheck asks the host, as a server-side dry run impersonating an override policy's
// or a quota's author, whether they may create what fed makes of it in a member: the same
// check the fleet makes of a template's own author (internal/hostvalidation).
func authorCheck(host *rest.Config) (author.Check, error) {
	client, err := hostvalidation.NewClient(host)
	if err != nil {
		return nil, err
	}
	v := &hostvalidation.Validator{Client: client, Namespace: clusterv1alpha1.FedNamespace}
	return func(ctx context.Context, a policy.Author, gvr schema.GroupVersionResource, namespaced bool, m *unstructured.Unstructured) error {
		ctx = request.WithUser(ctx, &user.DefaultInfo{Name: a.User, Groups: a.Groups})
		_, _, err := v.Validate(ctx, gvr, namespaced, m, metav1.FieldValidationIgnore)
		return err
	}, nil
}
