// Package app is fed-apiserver's command: its options, how they become a server config, and
// the cobra command that runs it.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle"
	"k8s.io/apiserver/pkg/authorization/union"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/client-go/rest"
	componentbaseconfig "k8s.io/component-base/config"
	componentbaseoptions "k8s.io/component-base/config/options"
	"k8s.io/klog/v2"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	netutils "k8s.io/utils/net"
	cmopenapi "sigs.k8s.io/custom-metrics-apiserver/pkg/generated/openapi/custommetrics"
	emopenapi "sigs.k8s.io/custom-metrics-apiserver/pkg/generated/openapi/externalmetrics"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/openapi"
	"github.com/fedhq/fed/apiserver"
	"github.com/fedhq/fed/apiserver/agents"
	"github.com/fedhq/fed/apiserver/scheme"
	"github.com/fedhq/fed/apiserver/storage/badger"
	badgeroptions "github.com/fedhq/fed/apiserver/storage/badger/options"
	"github.com/fedhq/fed/controllers"
	"github.com/fedhq/fed/metricsadapter"
	"github.com/fedhq/fed/search/store"
)

const (
	// BackendBadger stores everything in an embedded Badger database under --data-dir.
	BackendBadger = "badger"
	// BackendEtcd3 is k8s.io/apiserver's own etcd3 storage (--etcd-servers).
	BackendEtcd3 = "etcd3"

	etcdPrefix = "/registry/fed"
)

// Options are fed-apiserver's flags.
type Options struct {
	Recommended *genericoptions.RecommendedOptions
	// DataDir is where the Badger backend keeps its database.
	DataDir string
	// SearchCache sizes the search cache; its Dir defaults to <DataDir>/search-cache.
	SearchCache store.Options
	// Metrics tunes the fleet's metrics.
	Metrics metricsadapter.Options
	// HPASyncPeriod is how often each FederatedHPA is reconciled.
	HPASyncPeriod time.Duration
	// Failover tunes how workloads leave failed clusters and unschedulable replicas move.
	Failover controllers.Failover
	// EventTTL is how long the fleet keeps an event after its last change.
	EventTTL time.Duration
	// LeaderElection is the Lease the replicas of an etcd3-backed fed-apiserver compete
	// for: every replica serves the API, the holder runs the controllers.
	LeaderElection componentbaseconfig.LeaderElectionConfiguration

	// etcd holds the storage options while the Badger backend runs: the generic options
	// would otherwise validate and apply them as etcd settings.
	etcd *genericoptions.EtcdOptions

	Stdout io.Writer
	Stderr io.Writer

	// stopBackups closes the backup socket that Config opened (Badger only).
	stopBackups func() error
}

// NewOptions returns the defaults: Badger storage, delegated authentication and
// authorization against the host cluster.
func NewOptions(stdout, stderr io.Writer) *Options {
	o := &Options{
		Recommended:   genericoptions.NewRecommendedOptions(etcdPrefix, scheme.Codecs.LegacyCodec(scheme.StorageVersions...)),
		DataDir:       "/var/lib/fed-apiserver",
		SearchCache:   store.DefaultOptions(""),
		Metrics:       metricsadapter.Options{TTL: metricsadapter.DefaultTTL, Timeout: metricsadapter.DefaultTimeout},
		HPASyncPeriod: controllers.DefaultHPASyncPeriod,
		Failover:      controllers.DefaultFailover(),
		EventTTL:      time.Hour,
		LeaderElection: componentbaseconfig.LeaderElectionConfiguration{
			LeaderElect:       true,
			LeaseDuration:     metav1.Duration{Duration: 15 * time.Second},
			RenewDeadline:     metav1.Duration{Duration: 10 * time.Second},
			RetryPeriod:       metav1.Duration{Duration: 2 * time.Second},
			ResourceLock:      "leases",
			ResourceName:      "fed-controllers",
			ResourceNamespace: "fed-system",
		},
		Stdout: stdout,
		Stderr: stderr,
	}
	o.Recommended.Etcd.StorageConfig.EncodeVersioner = scheme.StorageVersions
	o.Recommended.Etcd.StorageConfig.Type = BackendBadger
	// As in kube-apiserver, fed's objects are stored in protobuf (--storage-media-type): a
	// Work or binding encodes about 5 and decodes about 8 times faster than in JSON. The
	// fleet's templates are stored as JSON whatever this says (fleet.optsGetter).
	o.Recommended.Etcd.DefaultStorageMediaType = runtime.ContentTypeProtobuf
	// As in kube-apiserver, events are served straight from storage, not kept in a watch
	// cache: there are many, few watch them, and they expire. So are Works and bindings:
	// fed's controllers watch each with one informer (the host's garbage collector and
	// quota controller with one more each), and a watch cache would keep each of them
	// decoded a second time, with its versions of the last 75 seconds, a few hundred MiB
	// with 10,000 templates propagated. The fleet's templates have no watch cache either
	// (see fleet.withoutWatchCache).
	o.Recommended.Etcd.WatchCacheSizes = defaultWatchCacheSizes
	// fed's namespaces are the fleet's, not the host's: the server puts the fleet's own
	// namespace lifecycle in front of the admission chain instead.
	o.Recommended.Admission.DisablePlugins = append(o.Recommended.Admission.DisablePlugins, lifecycle.PluginName)
	return o
}

// defaultWatchCacheSizes is --watch-cache-sizes' default: the resources fed-apiserver
// serves without a watch cache.
var defaultWatchCacheSizes = []string{"events#0", "events.events.k8s.io#0",
	"works." + federationv1alpha1.GroupName + "#0", "resourcebindings." + federationv1alpha1.GroupName + "#0",
	"clusterresourcebindings." + federationv1alpha1.GroupName + "#0"}

// AddFlags adds the generic server's flags and fed's own.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Recommended.AddFlags(fs)
	if f := fs.Lookup("storage-backend"); f != nil {
		f.Usage = "The storage backend: badger (embedded, in --data-dir) or etcd3 (--etcd-servers; for several replicas)."
	}
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory of the Badger database (with --storage-backend=badger). The server answers fed-apiserver backup on <data-dir>/backup.sock.")
	sc := &o.SearchCache
	fs.StringVar(&sc.Dir, "search-cache-dir", sc.Dir, "Directory of the search cache's Badger database (default <data-dir>/search-cache).")
	fs.Int64Var(&sc.BlockCacheSize, "search-cache-block-cache-bytes", sc.BlockCacheSize, "Memory the search cache keeps of recently read data blocks.")
	fs.Int64Var(&sc.IndexCacheSize, "search-cache-index-cache-bytes", sc.IndexCacheSize, "Memory the search cache keeps of table indexes and bloom filters (the rest is read from disk).")
	fs.Int64Var(&sc.MemTableSize, "search-cache-memtable-bytes", sc.MemTableSize, "Size of each of the search cache's in-memory write tables.")
	fs.IntVar(&sc.NumMemtables, "search-cache-memtables", sc.NumMemtables, "How many in-memory write tables the search cache keeps before it waits for them to reach disk.")
	fs.DurationVar(&sc.ValueLogGCInterval, "search-cache-value-log-gc-interval", sc.ValueLogGCInterval, "How often the search cache rewrites its value log to reclaim the space of changed and deleted objects.")
	fs.DurationVar(&sc.History, "search-cache-history", sc.History, "How long a paginated search (its continue token) stays valid.")
	fs.IntVar(&sc.WatchEvents, "search-cache-watch-events", sc.WatchEvents, "How many recent changes a watch of the search cache can resume from.")
	fs.Int64Var(&sc.MappedBudget, "search-cache-mapped-bytes", sc.MappedBudget, "Above this much of the process's resident memory in pages of mapped files, the search cache hands the pages of its files back to the kernel (Linux; 0: never).")
	fs.DurationVar(&o.Metrics.TTL, "metrics-cache-ttl", o.Metrics.TTL, "How long the fleet's metrics reuse a member's answer (metrics-server refreshes every 15s by default).")
	fs.DurationVar(&o.HPASyncPeriod, "federatedhpa-sync-period", o.HPASyncPeriod, "How often each FederatedHPA is reconciled (the HPA's --horizontal-pod-autoscaler-sync-period).")
	componentbaseoptions.BindLeaderElectionFlags(&o.LeaderElection, fs)
	if f := fs.Lookup("leader-elect"); f != nil {
		f.Usage = "With --storage-backend=etcd3: every replica serves the API, and only the one that holds a Lease in the host's --leader-elect-resource-namespace runs the controllers (the others take over within --leader-elect-lease-duration when it stops). The Badger backend runs one replica and no election."
	}
	fs.DurationVar(&o.Failover.DeschedulingInterval, "descheduling-interval", o.Failover.DeschedulingInterval, "How often the replicas of Divided workloads with dynamic weights (or Aggregated) that a member leaves unschedulable are moved to clusters with room.")
	fs.DurationVar(&o.Failover.UnschedulableThreshold, "unschedulable-threshold", o.Failover.UnschedulableThreshold, "How long a pod must have been unschedulable in its member before the descheduler moves its replica.")
	fs.DurationVar(&o.EventTTL, "event-ttl", o.EventTTL, "How long the fleet keeps an event after its last change (kube-apiserver's --event-ttl); 0 keeps events until they are deleted.")
	fs.DurationVar(&o.Failover.StatusUpdateFrequency, "cluster-status-update-frequency", o.Failover.StatusUpdateFrequency, "How often fed probes each push member cluster while it is healthy and brings its Cluster's status up to date (Karmada's flag of this name, 10s there by default): a longer period costs fed less CPU in a large fleet, and a member's failure is seen later by as much. A pull member's agent has its own --probe-interval.")
	fs.DurationVar(&o.Failover.EvictionTimeout, "failover-eviction-timeout", o.Failover.EvictionTimeout, "How long a member cluster stays not Ready before fed taints it cluster.fedhq.io/not-ready or /unreachable with the effect NoExecute, which moves its workloads to other clusters (a placement's clusterTolerations may wait longer).")
	fs.Float64Var(&o.Failover.EvictionRate, "resource-eviction-rate", o.Failover.EvictionRate, "How many workloads a second, across the fleet, NoExecute taints of failed clusters may evict (Karmada's flag of this name, 0.5 there by default); the others keep their placement until their turn. 0, fed's default, does not limit them.")
	fs.DurationVar(&o.Metrics.Timeout, "metrics-member-timeout", o.Metrics.Timeout, "How long the fleet's metrics wait for a member's metrics.k8s.io before leaving it out with a warning.")
}

func (o *Options) backend() string {
	if o.etcd != nil {
		return BackendBadger
	}
	return o.Recommended.Etcd.StorageConfig.Type
}

// Complete sets aside the etcd options when the Badger backend is chosen.
func (o *Options) Complete() error {
	if o.Recommended.Etcd != nil && o.Recommended.Etcd.StorageConfig.Type == BackendBadger {
		o.etcd, o.Recommended.Etcd = o.Recommended.Etcd, nil
	}
	return nil
}

// Validate checks the options after Complete.
func (o *Options) Validate() error {
	errs := o.Recommended.Validate()
	switch o.backend() {
	case BackendBadger:
		if o.DataDir == "" {
			errs = append(errs, errors.New("--data-dir is required with --storage-backend=badger"))
		}
		// The generic options check it for etcd3 only: they are set aside for Badger.
		if _, err := storageCodec(o.etcd.DefaultStorageMediaType); err != nil {
			errs = append(errs, err)
		}
	case BackendEtcd3, "":
	default:
		errs = append(errs, fmt.Errorf("--storage-backend=%q: must be badger or etcd3", o.backend()))
	}
	sc := o.SearchCache
	if sc.Dir == "" && o.DataDir == "" {
		errs = append(errs, errors.New("--search-cache-dir is required without --data-dir"))
	}
	if sc.BlockCacheSize < 0 || sc.IndexCacheSize < 0 || sc.MemTableSize < 1<<20 || sc.NumMemtables < 1 || sc.WatchEvents < 1 || sc.History <= 0 {
		errs = append(errs, errors.New("the --search-cache-* sizes must be positive (memtables at least 1 MiB)"))
	}
	if o.Failover.EvictionRate < 0 {
		errs = append(errs, errors.New("--resource-eviction-rate must not be negative (0 does not limit evictions)"))
	}
	if o.EventTTL < 0 {
		errs = append(errs, errors.New("--event-ttl must not be negative (0 keeps events until they are deleted)"))
	}
	if o.Metrics.TTL <= 0 || o.Metrics.Timeout <= 0 || o.HPASyncPeriod <= 0 || o.Failover.StatusUpdateFrequency <= 0 ||
		o.Failover.EvictionTimeout <= 0 || o.Failover.DeschedulingInterval <= 0 || o.Failover.UnschedulableThreshold <= 0 {
		errs = append(errs, errors.New("--metrics-cache-ttl, --metrics-member-timeout, --federatedhpa-sync-period, --cluster-status-update-frequency, --failover-eviction-timeout, --descheduling-interval and --unschedulable-threshold must be positive"))
	}
	if le := o.LeaderElection; le.LeaderElect && o.backend() == BackendEtcd3 {
		if le.ResourceLock != "leases" {
			errs = append(errs, fmt.Errorf("--leader-elect-resource-lock %q: fed elects with a Lease (leases)", le.ResourceLock))
		}
		if le.RetryPeriod.Duration <= 0 || le.RenewDeadline.Duration <= le.RetryPeriod.Duration || le.LeaseDuration.Duration <= le.RenewDeadline.Duration {
			errs = append(errs, errors.New("--leader-elect-retry-period, --leader-elect-renew-deadline and --leader-elect-lease-duration must each be longer than the one before"))
		}
		if le.ResourceName == "" || le.ResourceNamespace == "" {
			errs = append(errs, errors.New("--leader-elect-resource-name and --leader-elect-resource-namespace must be set"))
		}
	}
	return errors.Join(errs...)
}

// openAPIDefinitions are fed's types' and, for the fleet's custom and external metrics,
// those sigs.k8s.io/custom-metrics-apiserver generates for k8s.io/metrics' types (only
// those: the rest of its set names a few common types otherwise than fed's).
func openAPIDefinitions(ref openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
	defs := openapi.GetOpenAPIDefinitions(ref)
	for _, more := range []openapicommon.GetOpenAPIDefinitions{cmopenapi.GetOpenAPIDefinitions, emopenapi.GetOpenAPIDefinitions} {
		for name, def := range more(ref) {
			if strings.HasPrefix(name, "io.k8s.metrics.pkg.apis.custom_metrics.") || strings.HasPrefix(name, "io.k8s.metrics.pkg.apis.external_metrics.") {
				defs[name] = def
			}
		}
	}
	return defs
}

// Config builds the server configuration. With the Badger backend it opens the database;
// the returned close function releases it.
func (o *Options) Config() (*apiserver.Config, func() error, error) {
	noop := func() error { return nil }
	if err := o.Recommended.SecureServing.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
		return nil, noop, fmt.Errorf("creating self-signed serving certificates: %w", err)
	}
	c := genericapiserver.NewRecommendedConfig(scheme.Codecs)
	c.EffectiveVersion = compatibility.DefaultBuildEffectiveVersion()
	namer := openapinamer.NewDefinitionNamer(scheme.Scheme)
	c.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, namer)
	c.OpenAPIConfig.Info.Title = "fed"
	c.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openAPIDefinitions, namer)
	c.OpenAPIV3Config.Info.Title = "fed"
	if err := disableUnservedPolicyPlugins(o.Recommended.CoreAPI, o.Recommended.Admission); err != nil {
		return nil, noop, err
	}
	if err := o.applyStorageMediaType(); err != nil {
		return nil, noop, err
	}
	if err := o.Recommended.ApplyTo(c); err != nil {
		return nil, noop, err
	}
	// What kube-apiserver treats as long-running, fed-apiserver does too: watches, and the
	// subresources that stream or hold a connection (a cluster's proxy with exec, attach,
	// port-forward and logs -f through it, the fleet's pods/exec and pods/log, and a pull
	// cluster's tunnel, clusters/attach). Without it each would be cut by the request
	// timeout and hold a seat of priority and fairness for as long as it lasts.
	c.LongRunningFunc = genericfilters.BasicLongRunningRequestCheck(sets.NewString("watch", "proxy"),
		sets.NewString("attach", "exec", "proxy", "log", "portforward"))
	// Pull clusters' agents are confined to their own cluster before the host is asked.
	agentsAuthorizer := agents.New()
	if c.Authorization.Authorizer != nil {
		authz, err := union.New(union.NamedAuthorizer{AuthorizerName: "agents", Authorizer: agentsAuthorizer.Authorizer()},
			union.NamedAuthorizer{AuthorizerName: "delegated", Authorizer: c.Authorization.Authorizer})
		if err != nil {
			return nil, noop, err
		}
		c.Authorization.Authorizer = authz
	}
	// Every template written to the fleet is dry-run in the host, and every proxied request
	// reads it: client-go's default of 5 requests a second would queue them. The host's
	// priority and fairness protect it.
	var host *rest.Config
	if c.ClientConfig != nil {
		host = rest.CopyConfig(c.ClientConfig)
		host.QPS, host.Burst = 500, 1000
	}
	cfg := &apiserver.Config{GenericConfig: c, HostClientConfig: host, Metrics: o.Metrics, HPASyncPeriod: o.HPASyncPeriod, Failover: o.Failover, EventTTL: o.EventTTL,
		Agents: agentsAuthorizer}
	if a := o.Recommended.Authentication; a != nil {
		cfg.ClientCAFromHost = a.ClientCert.ClientCA == "" && !a.SkipInClusterLookup
	}
	if le := o.LeaderElection; le.LeaderElect && o.backend() == BackendEtcd3 {
		cfg.LeaderElection = &controllers.LeaderElection{Namespace: le.ResourceNamespace, Name: le.ResourceName,
			LeaseDuration: le.LeaseDuration.Duration, RenewDeadline: le.RenewDeadline.Duration, RetryPeriod: le.RetryPeriod.Duration}
	}
	closeCache := noop
	var err error
	if host != nil {
		sc := o.SearchCache
		if sc.Dir == "" {
			sc.Dir = filepath.Join(o.DataDir, "search-cache")
		}
		if cfg.SearchCache, err = store.Open(sc); err != nil {
			return nil, noop, err
		}
		closeCache = cfg.SearchCache.Close
	}
	if o.backend() != BackendBadger {
		return cfg, closeCache, nil
	}

	storageConfig := o.etcd.StorageConfig
	if storageConfig.StorageObjectCountTracker == nil {
		storageConfig.StorageObjectCountTracker = c.StorageObjectCountTracker
	}
	db, err := badger.Open(o.DataDir, badger.WithCompactionInterval(storageConfig.CompactionInterval))
	if err != nil {
		_ = closeCache()
		return nil, noop, fmt.Errorf("opening the Badger database in %s: %w", o.DataDir, err)
	}
	// fed-apiserver backup asks this process for backups on a socket in the data directory,
	// since no other process can open the database while it runs.
	stopBackups, err := badger.ServeBackups(db, o.DataDir)
	if err != nil {
		klog.Warningf("fed-apiserver backup cannot reach this server (stop it to take a backup): %v", err)
		stopBackups = noop
	}
	o.stopBackups = stopBackups
	c.RESTOptionsGetter = &badgeroptions.RESTOptionsGetter{
		DB:                      db,
		StorageFactory:          &genericoptions.SimpleStorageFactory{StorageConfig: storageConfig},
		EnableWatchCache:        o.etcd.EnableWatchCache,
		WatchCacheSizes:         o.etcd.WatchCacheSizes,
		EnableGarbageCollection: o.etcd.EnableGarbageCollection,
		DeleteCollectionWorkers: o.etcd.DeleteCollectionWorkers,
		CountMetricPollPeriod:   storageConfig.CountMetricPollPeriod,
	}
	return cfg, func() error { return errors.Join(stopBackups(), closeCache(), db.Close()) }, nil
}

// applyStorageMediaType makes the storage codec write --storage-media-type. It reads every
// media type the codecs know whatever it writes, so objects stored before the flag changed
// stay readable and are rewritten in the new type on their next update.
func (o *Options) applyStorageMediaType() error {
	etcd := o.Recommended.Etcd
	if etcd == nil {
		etcd = o.etcd
	}
	codec, err := storageCodec(etcd.DefaultStorageMediaType)
	if err != nil {
		return err
	}
	etcd.StorageConfig.Codec = codec
	return nil
}

// storageCodec encodes fed's objects in their storage versions in mediaType and decodes any
// media type into the internal version, as scheme.Codecs.LegacyCodec does for JSON.
func storageCodec(mediaType string) (runtime.Codec, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	if !ok || info.Serializer == nil {
		return nil, fmt.Errorf("--storage-media-type=%q: must be %s, %s or %s", mediaType,
			runtime.ContentTypeProtobuf, runtime.ContentTypeJSON, runtime.ContentTypeYAML)
	}
	return scheme.Codecs.CodecForVersions(info.Serializer, scheme.Codecs.UniversalDeserializer(),
		scheme.StorageVersions, runtime.InternalGroupVersioner), nil
}

// Run starts the server and serves until ctx is done.
func (o *Options) Run(ctx context.Context) error {
	config, closeStorage, err := o.Config()
	if err != nil {
		return err
	}
	defer closeStorage()
	server, err := config.Complete().New()
	if err != nil {
		return err
	}
	if o.stopBackups != nil {
		// No backup starts once the server is stopping, and the socket is gone even if
		// the process is killed before it has drained its requests.
		if err := server.GenericAPIServer.AddPreShutdownHook("fed-backup-socket", o.stopBackups); err != nil {
			return err
		}
	}
	return server.GenericAPIServer.PrepareRun().RunWithContext(ctx)
}
