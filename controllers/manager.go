// Package controllers starts fed's embedded controllers: it builds the informers and the
// member client cache they share and runs each controller until the context ends.
package controllers

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	clustercontroller "github.com/fedhq/fed/controllers/cluster"
	"github.com/fedhq/fed/controllers/clusterclient"
	"github.com/fedhq/fed/controllers/detector"
	"github.com/fedhq/fed/controllers/scheduler"
)

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
}

// Start builds the informers and starts every controller; they run until ctx is done.
// Start returns once they are started, without waiting for the informers to sync.
func Start(ctx context.Context, cfg Config) error {
	if cfg.Fed == nil || cfg.Host == nil {
		return fmt.Errorf("controllers need both the fed and the host client configuration")
	}
	if cfg.ClusterWorkers <= 0 {
		cfg.ClusterWorkers = 4
	}
	fedClient, err := versioned.NewForConfig(rest.CopyConfig(cfg.Fed))
	if err != nil {
		return fmt.Errorf("fed client: %w", err)
	}
	hostClient, err := kubernetes.NewForConfig(rest.CopyConfig(cfg.Host))
	if err != nil {
		return fmt.Errorf("host client: %w", err)
	}
	fedFactory := fedinformers.NewSharedInformerFactory(fedClient, 0) // no resync: controllers poll members themselves
	// Only fed's namespace: fed reads no other host Secret, and its RBAC allows no more.
	hostFactory := kubeinformers.NewSharedInformerFactoryWithOptions(hostClient, 0,
		kubeinformers.WithNamespace(clusterv1alpha1.FedNamespace))

	clusters := fedFactory.Cluster().V1alpha1().Clusters()
	secrets := hostFactory.Core().V1().Secrets()
	members := clusterclient.New(clusters.Lister(), secrets.Lister())

	clusterController, err := clustercontroller.NewController(fedClient, clusters, members, cfg.Cluster)
	if err != nil {
		return err
	}
	if err := clusterController.WatchSecrets(secrets.Informer()); err != nil {
		return err
	}
	detectorController, err := newDetector(cfg.Fed, fedClient, fedFactory)
	if err != nil {
		return err
	}
	bindings := fedFactory.Federation().V1alpha1()
	schedulerController, err := scheduler.NewController(fedClient, clusters, bindings.ResourceBindings(), bindings.ClusterResourceBindings())
	if err != nil {
		return err
	}
	// Informers are registered by the calls above; only now may the factories start them.
	fedFactory.Start(ctx.Done())
	hostFactory.Start(ctx.Done())
	go clusterController.Run(ctx, cfg.ClusterWorkers, secrets.Informer().HasSynced)
	go detectorController.Run(ctx, 4)
	go schedulerController.Run(ctx, 4)
	go func() {
		<-ctx.Done()
		fedFactory.Shutdown()
		hostFactory.Shutdown()
	}()
	klog.FromContext(ctx).Info("Started fed controllers", "clusterWorkers", cfg.ClusterWorkers)
	return nil
}

// newDetector binds the fleet's templates to policies. It reads templates from the fleet
// API, which fed-apiserver serves at FleetPath of the same loopback address.
func newDetector(fed *rest.Config, fedClient versioned.Interface, fedFactory fedinformers.SharedInformerFactory) (*detector.Controller, error) {
	fleetConfig := rest.CopyConfig(fed)
	fleetConfig.Host = strings.TrimSuffix(fleetConfig.Host, "/") + federationv1alpha1.FleetPath
	fleet, err := dynamic.NewForConfig(fleetConfig)
	if err != nil {
		return nil, fmt.Errorf("fleet client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(fleetConfig)
	if err != nil {
		return nil, fmt.Errorf("fleet discovery: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	informers := fedFactory.Federation().V1alpha1()
	return detector.NewController(fedClient, fleet, mapper, informers.PropagationPolicies(), informers.ClusterPropagationPolicies(),
		informers.ResourceBindings(), informers.ClusterResourceBindings())
}
