// Package apiserver assembles fed-apiserver: the generic API server of k8s.io/apiserver with
// fed's API groups installed on the storage the options chose.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericrest "k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/dynamic"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
	"github.com/fedhq/fed/apiserver/agents"
	"github.com/fedhq/fed/apiserver/fleet"
	"github.com/fedhq/fed/apiserver/internal/inprocess"
	"github.com/fedhq/fed/apiserver/registry"
	"github.com/fedhq/fed/apiserver/registry/metrics"
	"github.com/fedhq/fed/apiserver/search"
	"github.com/fedhq/fed/apiserver/tunnel"
	"github.com/fedhq/fed/controllers"
	"github.com/fedhq/fed/internal/hostvalidation"
	"github.com/fedhq/fed/metricsadapter"
	"github.com/fedhq/fed/search/store"
)

// Config is fed-apiserver's configuration.
type Config struct {
	GenericConfig *genericapiserver.RecommendedConfig
	// HostClientConfig reaches the host cluster (--kubeconfig, or in-cluster). Without it
	// the embedded controllers do not run.
	HostClientConfig *rest.Config
	// ClientCAFromHost: the server's client CA is the host's, read from
	// kube-system/extension-apiserver-authentication once it serves (no --client-ca-file);
	// requests wait until it is trusted.
	ClientCAFromHost bool
	// SearchCache is the search cache (search/store), open while the server runs with a
	// host; nil without one.
	SearchCache *store.Store
	// Metrics tunes the fleet's metrics (metricsadapter).
	Metrics metricsadapter.Options
	// HPASyncPeriod is how often each FederatedHPA is reconciled.
	HPASyncPeriod time.Duration
	// Failover tunes how workloads leave failed clusters and unschedulable replicas move.
	Failover controllers.Failover
	// EventTTL is how long the fleet keeps an event after its last change.
	EventTTL time.Duration
	// LeaderElection, when set, runs the controllers only in the replica that holds its
	// Lease.
	LeaderElection *controllers.LeaderElection
	// Agents, when set, is the authorizer of pull clusters' agents in the server's chain;
	// it learns the fleet's Clusters once the controllers' informers run.
	Agents *agents.Authorizer
}

type completedConfig struct {
	GenericConfig    genericapiserver.CompletedConfig
	HostClientConfig *rest.Config
	SearchCache      *store.Store
	Metrics          metricsadapter.Options
	HPASyncPeriod    time.Duration
	Failover         controllers.Failover
	EventTTL         time.Duration
	LeaderElection   *controllers.LeaderElection
	// fleet is the fleet API's handler, which the handler chain reaches once New made it.
	fleet *atomic.Pointer[fleet.Fleet]
	// quota applies the host's ResourceQuotas to fed's objects and the fleet's templates.
	quota *fleet.Quota
	// fedQuota applies the FederatedResourceQuotas to templates changed in place.
	fedQuota *fleet.FederatedQuota
	// members is the fleet proxy's access to the members, once the controllers run.
	members *fleetMembers
	// fleetProxy is the fleet proxy (nil without the search cache); New gives it fed's
	// own handler for metrics.k8s.io.
	fleetProxy *search.Proxy
	// tunnels are the pull clusters' agents' tunnels.
	tunnels *tunnel.Server
	agents  *agents.Authorizer
}

// fleetMembers is the members as the controllers reach them, for the fleet proxy and the
// cluster proxy.
type fleetMembers struct {
	started atomic.Pointer[controllers.Members]
	// noHost: fed-apiserver runs without a host cluster, and the controllers never start.
	noHost bool
}

func (m *fleetMembers) Config(cluster string) (*rest.Config, error) {
	s := m.started.Load()
	if s == nil && m.noHost {
		return nil, errors.New("fed-apiserver runs without a host cluster (--kubeconfig): it reaches no member")
	}
	if s == nil {
		return nil, errors.New("fed's controllers are starting")
	}
	return s.Configs.Config(cluster)
}

func (m *fleetMembers) Ready() []string {
	ready, _ := m.byReadiness()
	return ready
}

func (m *fleetMembers) NotReady() []string {
	_, notReady := m.byReadiness()
	return notReady
}

// byReadiness are the members that are Ready and the others, each by name.
func (m *fleetMembers) byReadiness() (ready, notReady []string) {
	s := m.started.Load()
	if s == nil {
		return nil, nil
	}
	clusters, err := s.Clusters.List(labels.Everything())
	if err != nil {
		return nil, nil
	}
	for _, c := range clusters {
		if apimeta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			ready = append(ready, c.Name)
		} else {
			notReady = append(notReady, c.Name)
		}
	}
	slices.Sort(ready)
	slices.Sort(notReady)
	return ready, notReady
}

// CompletedConfig is a Config on which Complete has run; only it can build a server.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in the fields not set by the options. Requests under the fleet's path go,
// after authentication and authorization, to the fleet API.
func (c *Config) Complete() CompletedConfig {
	gc := c.GenericConfig
	if gc.RequestInfoResolver == nil {
		gc.RequestInfoResolver = genericapiserver.NewRequestInfoResolver(&gc.Config)
	}
	gc.RequestInfoResolver = search.ProxyRequestInfoResolver(search.RequestInfoResolver(fleet.RequestInfoResolver(gc.RequestInfoResolver)))
	fleetHandler := &atomic.Pointer[fleet.Fleet]{}
	// fed's namespaced kinds live in the fleet's namespaces (the generic NamespaceLifecycle,
	// which reads the host's, is turned off by the options).
	quota := fleet.NewQuota()
	if gc.AdmissionControl != nil {
		gc.AdmissionControl = admission.NewChainHandler(fleet.NamespaceLifecycle(fleetHandler.Load), quota, agents.Admission(), gc.AdmissionControl)
	}
	var searchCache http.Handler
	var fleetProxy *search.Proxy
	members := &fleetMembers{noHost: c.HostClientConfig == nil}
	if c.SearchCache != nil && c.HostClientConfig != nil {
		cache := &search.Cache{Store: c.SearchCache, MinRequestTimeout: time.Duration(gc.MinRequestTimeout) * time.Second}
		searchCache, fleetProxy = cache, &search.Proxy{Cache: cache, Members: members}
	}
	var gate *clientCAGate
	if c.ClientCAFromHost && c.HostClientConfig != nil && gc.SecureServing != nil {
		if host, err := kubernetes.NewForConfig(c.HostClientConfig); err == nil {
			gate = newClientCAGate(gc.SecureServing.ClientCA, host)
		}
	}
	buildChain := gc.BuildHandlerChainFunc
	gc.BuildHandlerChainFunc = func(apiHandler http.Handler, conf *genericapiserver.Config) http.Handler {
		routed := fleet.Route(apiHandler, func() http.Handler {
			if f := fleetHandler.Load(); f != nil {
				return f
			}
			return nil
		})
		routed = search.Route(routed, func() http.Handler { return searchCache })
		routed = search.ProxyRoute(routed, func() http.Handler {
			if fleetProxy == nil || members.started.Load() == nil {
				return nil
			}
			return fleetProxy
		})
		return gate.wrap(buildChain(endAtShutdown(routed, conf.ShutdownInitiatedNotify(), conf.LongRunningFunc), conf))
	}
	return CompletedConfig{&completedConfig{GenericConfig: gc.Complete(), HostClientConfig: c.HostClientConfig, SearchCache: c.SearchCache,
		Metrics: c.Metrics, HPASyncPeriod: c.HPASyncPeriod, Failover: c.Failover, EventTTL: c.EventTTL, LeaderElection: c.LeaderElection, fleet: fleetHandler, quota: quota, fedQuota: fleet.NewFederatedQuota(), members: members, fleetProxy: fleetProxy,
		tunnels: tunnel.New(), agents: c.Agents}}
}

// endAtShutdown ends the long-running requests (watches, the proxies with exec and logs -f,
// the agents' tunnels) as soon as the server begins to shut down. net/http's graceful
// shutdown waits for every open request, up to the request timeout (a minute), and these end
// only when their clients go: a pod of fed-apiserver outlived its grace period (30 s) and
// was killed, so each rolling update took half a minute per pod. Their clients reconnect, to
// another replica or to the new pod, as they do when a watch times out.
func endAtShutdown(handler http.Handler, shutdown <-chan struct{}, longRunning request.LongRunningRequestCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || longRunning == nil || !longRunning(req, info) {
			handler.ServeHTTP(w, req)
			return
		}
		ctx, cancel := context.WithCancel(req.Context())
		defer cancel()
		go func() {
			select {
			case <-shutdown:
				cancel()
			case <-ctx.Done():
			}
		}()
		handler.ServeHTTP(w, req.WithContext(ctx))
	})
}

// Server is fed-apiserver.
type Server struct {
	GenericAPIServer *genericapiserver.GenericAPIServer
}

// New builds the server and installs every fed API group.
func (c CompletedConfig) New() (*Server, error) {
	s, err := c.GenericConfig.New("fed-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, err
	}
	optsGetter := c.GenericConfig.RESTOptionsGetter
	clusterGroup, err := registry.NewClusterGroupInfo(optsGetter, c.members, c.tunnels)
	if err != nil {
		return nil, err
	}
	federationGroup, err := registry.NewFederationGroupInfo(optsGetter)
	if err != nil {
		return nil, err
	}
	searchGroup, err := registry.NewSearchGroupInfo(optsGetter)
	if err != nil {
		return nil, err
	}
	if err := s.InstallAPIGroups(clusterGroup, federationGroup, searchGroup); err != nil {
		return nil, err
	}
	var fleetMetrics *metricsadapter.Adapter
	if c.HostClientConfig != nil {
		// Served for the fleet (the fleet API and the fleet proxy), never registered with the
		// host: the host's own metrics.k8s.io stays its own. The FederatedHPAs read the same.
		fleetMetrics = metricsadapter.New(c.members, c.Metrics)
		if err := s.InstallAPIGroup(registry.NewMetricsGroupInfo(fleetMetrics)); err != nil {
			return nil, err
		}
		if err := metrics.InstallCustomMetrics(s, fleetMetrics); err != nil {
			return nil, err
		}
		if c.fleetProxy != nil {
			c.fleetProxy.Metrics = s.UnprotectedHandler()
		}
	}
	if host := c.HostClientConfig; host != nil {
		fed := federationGroup.VersionedResourcesStorageMap[federationv1alpha1.SchemeGroupVersion.Version]
		if err := c.installFleet(s, host, agents.EventAdmission(worksExist(fed["works"].(genericrest.Getter)))); err != nil {
			return nil, err
		}
		if err := c.applyQuotas(s, host, fed); err != nil {
			return nil, err
		}
		// The controllers read and write fed's objects through the server's own handler, with
		// the loopback client's credentials (inprocess), so they need it serving: a post-start
		// hook, stopped with the server.
		s.AddPostStartHookOrDie("start-fed-controllers", func(hookContext genericapiserver.PostStartHookContext) error {
			fed := inprocess.Config(hookContext.LoopbackClientConfig, s.Handler)
			started, err := controllers.Start(hookContext, controllers.Config{Fed: fed, Host: host, SearchCache: c.SearchCache,
				Metrics: fleetMetrics, HPASyncPeriod: c.HPASyncPeriod, Failover: c.Failover, LeaderElection: c.LeaderElection,
				Tunnels: c.tunnels})
			if err != nil {
				return err
			}
			c.members.started.Store(started)
			c.fedQuota.Start(started.CheckTemplate)
			if c.agents != nil {
				c.agents.SetClusters(started.Clusters)
			}
			return nil
		})
	}
	return &Server{GenericAPIServer: s}, nil
}

// applyQuotas has the host's ResourceQuotas applied to the fleet's templates and to fed's
// own namespaced objects (fed, the storages of fed's group), once the server runs.
func (c CompletedConfig) applyQuotas(s *genericapiserver.GenericAPIServer, host *rest.Config, fed map[string]genericrest.Storage) error {
	hostClient, err := kubernetes.NewForConfig(host)
	if err != nil {
		return err
	}
	listers := map[schema.GroupResource]genericrest.Lister{}
	for resource, st := range fed {
		if l, ok := st.(genericrest.Lister); ok && !strings.Contains(resource, "/") {
			listers[federationv1alpha1.Resource(resource)] = l
		}
	}
	count := func(ctx context.Context, gr schema.GroupResource, namespace string) (int64, bool, error) {
		if l, ok := listers[gr]; ok {
			n, err := fleet.CountObjects(ctx, l, namespace)
			return n, true, err
		}
		if f := c.fleet.Load(); f != nil {
			return f.Count(ctx, gr, namespace)
		}
		return 0, false, nil
	}
	factory := c.GenericConfig.SharedInformerFactory // the host's, started with the server
	if factory == nil {
		factory = kubeinformers.NewSharedInformerFactory(hostClient, 0)
		s.AddPostStartHookOrDie("start-host-quota-informer", func(hookContext genericapiserver.PostStartHookContext) error {
			factory.Start(hookContext.Done())
			return nil
		})
	}
	c.quota.Start(factory.Core().V1().ResourceQuotas().Informer(), count)
	return nil
}

// hostValidator validates templates with the host, knowing its namespaces from the host's
// informers when the server has them (one dry run a template, not two, in a namespace the
// host lacks).
func (c CompletedConfig) hostValidator(client *dynamic.DynamicClient) *hostvalidation.Validator {
	v := &hostvalidation.Validator{Client: client, Namespace: clusterv1alpha1.FedNamespace}
	if factory := c.GenericConfig.SharedInformerFactory; factory != nil {
		namespaces := factory.Core().V1().Namespaces()
		v.HostNamespaces, v.HostSynced = namespaces.Lister(), namespaces.Informer().HasSynced
	}
	return v
}

// worksExist says whether a Work exists, read from fed's storage of Works.
func worksExist(works genericrest.Getter) agents.WorkExists {
	return func(ctx context.Context, namespace, name string) (bool, error) {
		_, err := works.Get(request.WithNamespace(ctx, namespace), name, &metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
}

// installFleet serves the fleet API and starts it with the server; agentEvents is what
// agents may record in it.
func (c CompletedConfig) installFleet(s *genericapiserver.GenericAPIServer, host *rest.Config, agentEvents admission.ValidationInterface) error {
	validationClient, err := hostvalidation.NewClient(host)
	if err != nil {
		return err
	}
	fedGroups := []string{clusterv1alpha1.GroupName, federationv1alpha1.GroupName, searchv1alpha1.GroupName,
		metricsv1beta1.GroupName, metricsadapter.CustomGroup, metricsadapter.ExternalGroup}
	f, err := fleet.New(fleet.Config{
		RESTOptionsGetter:   c.GenericConfig.RESTOptionsGetter,
		Host:                host,
		HostValidator:       c.hostValidator(validationClient),
		Fed:                 s.UnprotectedHandler(),
		FedGroups:           fedGroups,
		Authorizer:          c.GenericConfig.Authorization.Authorizer,
		MaxRequestBodyBytes: c.GenericConfig.MaxRequestBodyBytes,
		MinRequestTimeout:   time.Duration(c.GenericConfig.MinRequestTimeout) * time.Second,
		Members:             c.members,
		EventTTL:            c.EventTTL,
		Admission:           admission.NewChainHandler(c.quota, agentEvents, c.fedQuota, fleet.NewDeletionProtection()),
	})
	if err != nil {
		return err
	}
	c.fleet.Store(f)
	started := make(chan struct{})
	if err := s.AddReadyzChecks(healthz.NamedCheck("fleet", func(*http.Request) error {
		select {
		case <-started:
			return nil
		default:
			return errors.New("the fleet API has not read the host's kinds yet")
		}
	})); err != nil {
		return err
	}
	return s.AddPostStartHook("start-fleet", func(hookContext genericapiserver.PostStartHookContext) error {
		if err := f.Start(hookContext); err != nil {
			return fmt.Errorf("starting the fleet API: %w", err)
		}
		close(started)
		return nil
	})
}
