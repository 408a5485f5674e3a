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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/applicationfailover"
	"github.com/fedhq/fed/controllers/binding"
	"github.com/fedhq/fed/controllers/bindingstatus"
	clustercontroller "github.com/fedhq/fed/controllers/cluster"
	"github.com/fedhq/fed/controllers/credentials"
	"github.com/fedhq/fed/controllers/cronfederatedhpa"
	"github.com/fedhq/fed/controllers/descheduler"
	"github.com/fedhq/fed/controllers/detector"
	"github.com/fedhq/fed/controllers/execution"
	"github.com/fedhq/fed/controllers/federatedhpa"
	"github.com/fedhq/fed/controllers/gracefuleviction"
	"github.com/fedhq/fed/controllers/hpamarker"
	"github.com/fedhq/fed/controllers/internal/applied"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/fleet"
	"github.com/fedhq/fed/controllers/internal/members"
	"github.com/fedhq/fed/controllers/internal/noderoom"
	"github.com/fedhq/fed/controllers/internal/scaletargets"
	"github.com/fedhq/fed/controllers/internal/templates"
	"github.com/fedhq/fed/controllers/internal/trim"
	"github.com/fedhq/fed/controllers/internal/works"
	"github.com/fedhq/fed/controllers/mcs"
	"github.com/fedhq/fed/controllers/namespace"
	"github.com/fedhq/fed/controllers/rebalancer"
	"github.com/fedhq/fed/controllers/registration"
	"github.com/fedhq/fed/controllers/scheduler"
	"github.com/fedhq/fed/controllers/searchcache"
	"github.com/fedhq/fed/controllers/workstatus"
	"github.com/fedhq/fed/internal/hostvalidation"
	"github.com/fedhq/fed/interpreter"
	"github.com/fedhq/fed/interpreter/lua"
	"github.com/fedhq/fed/search/store"
)

// DefaultHPASyncPeriod is how often each FederatedHPA is reconciled by default.
const DefaultHPASyncPeriod = federatedhpa.DefaultSyncPeriod

// Failover tunes how workloads leave failed clusters and unschedulable replicas move.
type Failover struct {
	// EvictionTimeout is how long a member stays not Ready before it gets a NoExecute
	// taint.
	EvictionTimeout time.Duration
	// DeschedulingInterval is how often the descheduler looks at every binding.
	DeschedulingInterval time.Duration
	// UnschedulableThreshold is how long a pod must have been unschedulable to count.
	UnschedulableThreshold time.Duration
}

// DefaultFailover is the defaults of Failover.
func DefaultFailover() Failover {
	return Failover{EvictionTimeout: clustercontroller.DefaultEvictionTimeout, DeschedulingInterval: descheduler.DefaultInterval,
		UnschedulableThreshold: descheduler.DefaultThreshold}
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
}

// Start builds the informers and starts every controller; they run until ctx is done.
// Start returns once they are started, without waiting for the informers to sync.
func Start(ctx context.Context, cfg Config) (*Members, error) {
	if cfg.Fed == nil || cfg.Host == nil {
		return nil, fmt.Errorf("controllers need both the fed and the host client configuration")
	}
	if cfg.ClusterWorkers <= 0 {
		cfg.ClusterWorkers = 4
	}
	if cfg.Failover.EvictionTimeout > 0 {
		cfg.Cluster.EvictionTimeout = cfg.Failover.EvictionTimeout
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
	// No resync: controllers poll members themselves. No managedFields: none reads them.
	fedFactory := fedinformers.NewSharedInformerFactoryWithOptions(fedClient, 0, fedinformers.WithTransform(trim.ManagedFields))
	// Only fed's namespace: fed reads no other host Secret, and its RBAC allows no more.
	hostFactory := kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
		kubeinformers.WithNamespace(clusterv1alpha1.FedNamespace), kubeinformers.WithTransform(trim.ManagedFields))

	// Pull mode's registration reads the host's CSRs (cluster-wide, of the signer of
	// client certificates only) and the agents' objects in fed-system (by their label).
	csrFactory := kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
		kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("spec.signerName", certificatesv1.KubeAPIServerClientSignerName).String()
		}), kubeinformers.WithTransform(trim.ManagedFields))
	agentFactory := kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
		kubeinformers.WithNamespace(clusterv1alpha1.FedNamespace),
		kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = clusterv1alpha1.LabelAgent }),
		kubeinformers.WithTransform(trim.ManagedFields))

	clusters := fedFactory.Cluster().V1alpha1().Clusters()
	secrets := hostFactory.Core().V1().Secrets()
	configs := clusterclient.New(clusters.Lister(), secrets.Lister())
	if cfg.Tunnels != nil {
		configs.SetTunnels(cfg.Tunnels)
	}
	mbs, err := members.New(ctx, configs, clusters)
	if err != nil {
		return nil, err
	}
	tmpls, err := newTemplates(cfg.Fed)
	if err != nil {
		return nil, err
	}
	recorder, err := fleet.Recorder(ctx, cfg.Fed, corev1.EventSource{Component: "fed"})
	if err != nil {
		return nil, err
	}
	fed := fedFactory.Federation().V1alpha1()
	// The scheduler and the binding controller share one view of the bindings, so that
	// each reads what the other has just written.
	bindingAccess, err := bindings.NewAccess(fedClient, fed.ResourceBindings(), fed.ClusterResourceBindings())
	if err != nil {
		return nil, err
	}
	// Likewise the controllers of Works.
	workAccess, err := works.New(fedClient, fed.Works())
	if err != nil {
		return nil, err
	}

	// The cluster controller keeps each member's nodes, which the scheduler estimates room from.
	rooms := noderoom.NewStore()
	clusterController, err := clustercontroller.NewController(fedClient, clusters, configs, secrets,
		hostFactory.Coordination().V1().Leases(), rooms, cfg.Cluster)
	if err != nil {
		return nil, err
	}
	// The members' tokens that join got from their TokenRequest APIs are renewed in the
	// host Secrets the cluster controller and every member client read.
	credentialsController, err := credentials.NewController(fedClient, hostClient, clusters, secrets)
	if err != nil {
		return nil, err
	}
	// One interpreter for every controller: the built-in kinds and the customizations.
	rics := fed.ResourceInterpreterCustomizations()
	interp := interpreter.New(interpreter.Listed{Lister: rics.Lister()}, lua.DefaultLimits)
	detectorController, err := detector.NewController(detector.Deps{Templates: tmpls, Bindings: bindingAccess,
		PropagationPolicies: fed.PropagationPolicies(), ClusterPropagationPolicies: fed.ClusterPropagationPolicies(),
		OverridePolicies: fed.OverridePolicies(), ClusterOverridePolicies: fed.ClusterOverridePolicies(),
		Customizations: rics, Interpreter: interp, Recorder: recorder})
	if err != nil {
		return nil, err
	}
	schedulerController, err := scheduler.NewController(fedClient, clusters, bindingAccess, rooms, recorder)
	if err != nil {
		return nil, err
	}
	bindingStatusController, err := bindingstatus.NewController(tmpls, bindingAccess, workAccess, interp)
	if err != nil {
		return nil, err
	}
	evictionController, err := gracefuleviction.NewController(bindingAccess, workAccess, recorder)
	if err != nil {
		return nil, err
	}
	failoverController, err := applicationfailover.NewController(bindingAccess, recorder)
	if err != nil {
		return nil, err
	}
	rebalancerController, err := rebalancer.NewController(fedClient, fed.ReplicaSchedulingPolicies(), clusters, bindingAccess, tmpls, recorder)
	if err != nil {
		return nil, err
	}
	deschedulerController := descheduler.NewController(bindingAccess, workAccess, mbs, recorder,
		descheduler.Options{Interval: cfg.Failover.DeschedulingInterval, Threshold: cfg.Failover.UnschedulableThreshold})
	asAuthor, err := authorCheck(cfg.Host)
	if err != nil {
		return nil, err
	}
	bindingController, err := binding.NewController(binding.Deps{
		Templates: tmpls, Bindings: bindingAccess, Works: workAccess,
		OverridePolicies: fed.OverridePolicies(), ClusterOverridePolicies: fed.ClusterOverridePolicies(), Clusters: clusters,
		Interpreter: interp, Report: bindingStatusController.Enqueue, Recorder: recorder, AsAuthor: asAuthor,
	})
	if err != nil {
		return nil, err
	}
	namespaceController, err := namespace.NewController(tmpls, clusters, mbs)
	if err != nil {
		return nil, err
	}
	mcsController, err := mcs.NewController(fedClient, tmpls, fed.ResourceBindings(), workAccess, mbs, clusters,
		fed.MultiClusterServices(), fed.MultiClusterIngresses())
	if err != nil {
		return nil, err
	}
	// Execution records what it made of each Work for the status path, which writes it
	// once with the objects' state.
	results := &applied.Log{}
	workStatusController := workstatus.NewController(fedClient, workAccess, mbs, results, interp)
	executionController, err := execution.NewController(fedClient, workAccess, mbs, namespaceController, results,
		workStatusController.Enqueue, interp, recorder)
	if err != nil {
		return nil, err
	}
	// Informers are registered by the calls above; only now may the factories start them.
	var searchCacheController *searchcache.Controller
	if cfg.SearchCache != nil {
		searchCacheController, err = searchcache.NewController(fedClient, fedFactory.Search().V1alpha1().ResourceRegistries(), clusters, mbs, configs, cfg.SearchCache)
		if err != nil {
			return nil, err
		}
	}
	scales, scaleMapper, err := scaletargets.New(fleet.Config(cfg.Fed))
	if err != nil {
		return nil, err
	}
	var hpaController *federatedhpa.Controller
	if cfg.Metrics != nil {
		hpaController, err = federatedhpa.NewController(federatedhpa.Config{
			Fed: fedClient, HPAs: fed.FederatedHPAs(), Clusters: clusters.Lister(), Bindings: fed.ResourceBindings(), Members: mbs,
			Metrics: cfg.Metrics, Scales: scales, Targets: scaleMapper, Recorder: recorder, SyncPeriod: cfg.HPASyncPeriod,
		})
		if err != nil {
			return nil, err
		}
	}
	hpaMarker := hpamarker.NewController(tmpls)
	registrationController, err := registration.NewController(fedClient, hostClient, clusters, registration.Informers{
		CSRs:         csrFactory.Certificates().V1().CertificateSigningRequests(),
		Leases:       agentFactory.Coordination().V1().Leases(),
		Roles:        agentFactory.Rbac().V1().Roles(),
		RoleBindings: agentFactory.Rbac().V1().RoleBindings(),
	})
	if err != nil {
		return nil, err
	}
	cronController, err := cronfederatedhpa.NewController(cronfederatedhpa.Config{
		Fed: fedClient, Crons: fed.CronFederatedHPAs(), Scales: scales, Targets: scaleMapper})
	if err != nil {
		return nil, err
	}
	fedFactory.Start(ctx.Done())
	hostFactory.Start(ctx.Done())
	csrFactory.Start(ctx.Done())
	agentFactory.Start(ctx.Done())
	tmpls.Start(ctx)
	// Every replica fills its own search cache; only the leader runs the rest.
	if searchCacheController != nil {
		go searchCacheController.Run(ctx, 2)
	}
	lead := func(ctx context.Context) {
		go clusterController.Run(ctx, cfg.ClusterWorkers)
		go credentialsController.Run(ctx, 2)
		go func() {
			// The pipeline asks the interpreter, which needs the customizations read first.
			if !cache.WaitForCacheSync(ctx.Done(), rics.Informer().HasSynced) {
				return
			}
			// Each step waits mostly on a write to fed's storage or a member (a few
			// milliseconds each, little CPU), so many workers keep the pipeline busy.
			go detectorController.Run(ctx, 16)
			go schedulerController.Run(ctx, 16)
			go bindingController.Run(ctx, 16)
			// Status writes have fewer workers than the steps that propagate: under load,
			// propagation goes first, and what changed several times meanwhile gets one write.
			go bindingStatusController.Run(ctx, 4)
			go workStatusController.Run(ctx, 4)
			go executionController.Run(ctx, 32)
			go evictionController.Run(ctx, 2)
			go failoverController.Run(ctx, 2)
			go deschedulerController.Run(ctx, 2)
			go rebalancerController.Run(ctx, 1)
			go namespaceController.Run(ctx, 2)
			go mcsController.Run(ctx, 2)
		}()
		if hpaController != nil {
			go hpaController.Run(ctx, 2)
		}
		go cronController.Run(ctx, 2)
		go hpaMarker.Run(ctx, 2)
		go registrationController.Run(ctx, 2)
	}
	if cfg.LeaderElection == nil {
		lead(ctx)
	} else if err := elect(ctx, hostClient, cfg.LeaderElection, lead); err != nil {
		return nil, err
	}
	go func() {
		<-ctx.Done()
		fedFactory.Shutdown()
		hostFactory.Shutdown()
		csrFactory.Shutdown()
		agentFactory.Shutdown()
	}()
	klog.FromContext(ctx).Info("Started fed controllers", "clusterWorkers", cfg.ClusterWorkers)
	return &Members{Configs: configs, Clusters: clusters.Lister()}, nil
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
// author, whether they may create what the policy makes of a template: the same check the
// fleet makes of a template's own author (internal/hostvalidation).
func authorCheck(host *rest.Config) (binding.AuthorCheck, error) {
	client, err := hostvalidation.NewClient(host)
	if err != nil {
		return nil, err
	}
	v := &hostvalidation.Validator{Client: client, Namespace: clusterv1alpha1.FedNamespace}
	return func(ctx context.Context, author policy.Author, gvr schema.GroupVersionResource, namespaced bool, m *unstructured.Unstructured) error {
		ctx = request.WithUser(ctx, &user.DefaultInfo{Name: author.User, Groups: author.Groups})
		_, _, err := v.Validate(ctx, gvr, namespaced, m, metav1.FieldValidationIgnore)
		return err
	}, nil
}
