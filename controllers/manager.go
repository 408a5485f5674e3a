// Package controllers starts fed's embedded controllers: it builds the informers and the
// member client cache they share and runs each controller until the context ends.
package controllers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	"github.com/fedhq/fed/clusterclient"
	"github.com/fedhq/fed/controllers/binding"
	clustercontroller "github.com/fedhq/fed/controllers/cluster"
	"github.com/fedhq/fed/controllers/detector"
	"github.com/fedhq/fed/controllers/execution"
	"github.com/fedhq/fed/controllers/internal/bindings"
	"github.com/fedhq/fed/controllers/internal/manifest"
	"github.com/fedhq/fed/controllers/internal/templates"
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
	// The controllers write many objects at once through the loopback; fed-apiserver's
	// priority and fairness, not a client-side limit, decide how fast.
	cfg.Fed = rest.CopyConfig(cfg.Fed)
	cfg.Fed.QPS, cfg.Fed.Burst = 2000, 4000
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
	tmpls, err := newTemplates(cfg.Fed)
	if err != nil {
		return err
	}
	fed := fedFactory.Federation().V1alpha1()
	detectorController, err := detector.NewController(fedClient, tmpls, fed.PropagationPolicies(), fed.ClusterPropagationPolicies(),
		fed.ResourceBindings(), fed.ClusterResourceBindings())
	if err != nil {
		return err
	}
	// The scheduler and the binding controller share one view of the bindings, so that
	// each reads what the other has just written.
	bindingAccess, err := bindings.NewAccess(fedClient, fed.ResourceBindings(), fed.ClusterResourceBindings())
	if err != nil {
		return err
	}
	schedulerController, err := scheduler.NewController(fedClient, clusters, bindingAccess)
	if err != nil {
		return err
	}
	bindingController, err := binding.NewController(fedClient, tmpls, bindingAccess, fed.Works())
	if err != nil {
		return err
	}
	if err := bindingController.Overrides(fed.OverridePolicies(), fed.ClusterOverridePolicies(), clusters.Lister()); err != nil {
		return err
	}
	executionController, err := execution.NewController(fedClient, fed.Works(), members, namespaceManifest(tmpls))
	if err != nil {
		return err
	}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	executionController.CleanNamespaces(func(name string) (bool, error) {
		_, err := tmpls.Get(namespaces, "", name)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}, clusters.Lister(), clusters.Informer().HasSynced)
	tmpls.AddHandler(func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
		if gvr == namespaces {
			executionController.NamespaceChanged(obj.GetName())
		}
	})
	recorder, err := fleetRecorder(ctx, cfg.Fed)
	if err != nil {
		return err
	}
	detectorController.Recorder = recorder
	bindingController.Recorder = recorder
	schedulerController.Recorder = recorder
	executionController.Recorder = recorder
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(old, obj any) {
		// Override rules choose clusters by name, labels and provider/region/zone.
		o, ok1 := old.(*clusterv1alpha1.Cluster)
		c, ok2 := obj.(*clusterv1alpha1.Cluster)
		if ok1 && ok2 && (!equality.Semantic.DeepEqual(o.Labels, c.Labels) || o.Spec.Provider != c.Spec.Provider ||
			o.Spec.Region != c.Spec.Region || o.Spec.Zone != c.Spec.Zone) {
			bindingController.EnqueueAll()
		}
	}, DeleteFunc: func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if c, ok := obj.(*clusterv1alpha1.Cluster); ok {
			executionController.ForgetCluster(c.Name)
		}
	}}); err != nil {
		return err
	}
	// Informers are registered by the calls above; only now may the factories start them.
	fedFactory.Start(ctx.Done())
	hostFactory.Start(ctx.Done())
	tmpls.Start(ctx)
	tmpls.Watch(namespaces) // execution hears of every namespace deleted from the fleet
	go clusterController.Run(ctx, cfg.ClusterWorkers, secrets.Informer().HasSynced)
	// Each step waits mostly on a write to fed's storage or a member (a few milliseconds
	// each, little CPU), so many workers keep the pipeline busy.
	go detectorController.Run(ctx, 16)
	go schedulerController.Run(ctx, 16)
	go bindingController.Run(ctx, 16)
	go executionController.Run(ctx, 32)
	go func() {
		<-ctx.Done()
		fedFactory.Shutdown()
		hostFactory.Shutdown()
	}()
	klog.FromContext(ctx).Info("Started fed controllers", "clusterWorkers", cfg.ClusterWorkers)
	return nil
}

// fleetConfig reaches the fleet API, which fed-apiserver serves at FleetPath of the same
// address as fed's own API.
func fleetConfig(fed *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(fed)
	cfg.Host = strings.TrimSuffix(cfg.Host, "/") + federationv1alpha1.FleetPath
	return cfg
}

// fleetRecorder records events in the fleet, where `kubectl describe` of a template finds
// them.
func fleetRecorder(ctx context.Context, fed *rest.Config) (record.EventRecorder, error) {
	client, err := kubernetes.NewForConfig(fleetConfig(fed))
	if err != nil {
		return nil, err
	}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "fed"}), nil
}

// newTemplates reads the fleet's templates.
func newTemplates(fed *rest.Config) (*templates.Templates, error) {
	cfg := fleetConfig(fed)
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

// namespaceManifest is what execution applies to a member for a namespace of the fleet
// before the first object in it: the fleet's Namespace template as fed applies any.
func namespaceManifest(tmpls *templates.Templates) execution.NamespaceManifest {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	return func(name string) *unstructured.Unstructured {
		ns, err := tmpls.Get(gvr, "", name)
		if err != nil {
			return nil
		}
		m := manifest.For(ns, &federationv1alpha1.ResourceBindingSpec{}, federationv1alpha1.TargetCluster{})
		manifest.Stamp(m, ns, &federationv1alpha1.ResourceBindingSpec{}, nil)
		delete(m.Object, "spec") // finalizers are the member's
		return m
	}
}
