package lab

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	fedclient "github.com/fedhq/fed/apis/generated/clientset/versioned"
)

const (
	// FedNamespace is where fed keeps its objects in the host cluster.
	FedNamespace = "fed-system"
	fedService   = "fed-apiserver"
	fedProcess   = "fed-apiserver"
)

// FedGroupVersions are the API group versions fed-apiserver registers in the host.
var FedGroupVersions = []schema.GroupVersion{
	{Group: "cluster.fedhq.io", Version: "v1alpha1"},
	{Group: "federation.fedhq.io", Version: "v1alpha1"},
	{Group: "search.fedhq.io", Version: "v1alpha1"},
}

// FedServer is a fed-apiserver process of the lab.
type FedServer struct {
	Name string
	Port int
	// Dir holds its serving certificate and, with the Badger backend, its data.
	Dir string
	// Args are the storage flags; the lab adds serving and delegation flags.
	Args []string

	proc *process // the process StartFedServer started
}

// URL is where the server listens (directly, not through the host).
func (f *FedServer) URL() string { return "https://127.0.0.1:" + strconv.Itoa(f.Port) }

// Kill kills a fed-apiserver StartFedServer started, without letting it stop cleanly.
func (f *FedServer) Kill() error {
	if f.proc == nil {
		return fmt.Errorf("%s was not started by StartFedServer", f.Name)
	}
	return f.proc.stop(0)
}

// The lab fed-apiserver's --failover-eviction-timeout, --descheduling-interval and
// --unschedulable-threshold.
const (
	EvictionTimeout        = 10 * time.Second
	DeschedulingInterval   = 5 * time.Second
	UnschedulableThreshold = 10 * time.Second
)

// FedServer is the lab's own fed-apiserver, registered in the host: Badger in .lab/fed,
// or, in a lab brought up with FedStorage etcd3, the lab's etcd under /fed.
func (l *Lab) FedServer() *FedServer {
	dir := filepath.Join(l.opts.Dir, "fed")
	args := []string{"--data-dir=" + filepath.Join(dir, "data")}
	if l.state.FedStorage == StorageEtcd3 {
		// The data directory keeps the search cache.
		args = append(args, "--storage-backend=etcd3", "--etcd-servers="+l.etcdURL(), "--etcd-prefix=/fed")
	}
	return &FedServer{Name: fedProcess, Port: l.state.Ports[fedProcess], Dir: dir, Args: args}
}

// The storage backends of the lab's fed-apiserver (Options.FedStorage).
const (
	StorageBadger = "badger"
	StorageEtcd3  = "etcd3"
)

// FedStorage is the storage backend of the lab's fed-apiserver: StorageBadger or
// StorageEtcd3.
func (l *Lab) FedStorage() string { return cmp.Or(l.state.FedStorage, StorageBadger) }

// StorageError is Up asked for a storage backend other than the one fed-apiserver runs on;
// Up has started nothing.
type StorageError struct{ Running, Asked string }

func (e *StorageError) Error() string {
	return fmt.Sprintf("fed-apiserver runs on %s, not %s: make down first (each backend keeps its own fleet)", e.Running, e.Asked)
}

// chooseFedStorage records the storage backend Up was asked for; fed-apiserver running on
// another is an error, as its data is not where the other backend reads.
func (l *Lab) chooseFedStorage() error {
	want := l.opts.FedStorage
	switch want {
	case "":
		return nil
	case StorageBadger, StorageEtcd3:
	default:
		return fmt.Errorf("fed-apiserver's storage %q: want %s or %s", want, StorageBadger, StorageEtcd3)
	}
	if want == l.FedStorage() {
		return nil
	}
	if l.fedProcess(l.FedServer()).alive() {
		return &StorageError{Running: l.FedStorage(), Asked: want}
	}
	l.state.FedStorage = want
	if want == StorageBadger {
		l.state.FedStorage = ""
	}
	return nil
}

func (l *Lab) fedProcess(f *FedServer) *process {
	kubeconfig := l.fedKubeconfig()
	args := append([]string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(f.Port),
		"--tls-cert-file=" + filepath.Join(f.Dir, "serving.crt"),
		"--tls-private-key-file=" + filepath.Join(f.Dir, "serving.key"),
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		// A member not Ready this long has its workloads moved: short, so that failover is
		// seen in seconds on the lab (the default is 5m).
		"--failover-eviction-timeout=" + EvictionTimeout.String(),
		// Replicas a member leaves unschedulable move within seconds too (2m and 5m by
		// default).
		"--descheduling-interval=" + DeschedulingInterval.String(),
		"--unschedulable-threshold=" + UnschedulableThreshold.String(),
	}, f.Args...)
	return l.process(f.Name, "fed-apiserver", args)
}

// fedKubeconfig is the host credential fed-apiserver runs with: its service account's.
func (l *Lab) fedKubeconfig() string { return filepath.Join(l.opts.Dir, "fed", "host.kubeconfig") }

// prepareFedIdentity installs fed-apiserver's service account and RBAC in the host from
// artifacts/deploy, as a user would for a real host, and writes a kubeconfig with a token
// of that service account. The lab's fed-apiserver thereby proves the RBAC is enough.
func (l *Lab) prepareFedIdentity(ctx context.Context) error {
	deploy := filepath.Join(filepath.Dir(l.opts.BinDir), "artifacts", "deploy")
	cmd := exec.CommandContext(ctx, filepath.Join(l.opts.BinDir, "kubectl"), "--kubeconfig", l.Host.Kubeconfig,
		"apply", "-f", filepath.Join(deploy, "namespace.yaml"), "-f", filepath.Join(deploy, "rbac.yaml"), "-f", filepath.Join(deploy, "fleet-rbac.yaml"),
		"-f", filepath.Join(deploy, "search-rbac.yaml"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("applying %s: %w: %s", deploy, err, out)
	}
	cs, err := l.Host.Client()
	if err != nil {
		return err
	}
	expiry := int64(30 * 24 * time.Hour / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(FedNamespace).CreateToken(ctx, "fed-apiserver",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for fed-apiserver: %w", err)
	}
	caPEM, err := os.ReadFile(l.Host.file("ca.crt"))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["host"] = &clientcmdapi.Cluster{Server: l.Host.URL(), CertificateAuthorityData: caPEM}
	cfg.AuthInfos["fed-apiserver"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["host"] = &clientcmdapi.Context{Cluster: "host", AuthInfo: "fed-apiserver"}
	cfg.CurrentContext = "host"
	return clientcmd.WriteToFile(*cfg, l.fedKubeconfig())
}

// prepareFed issues the server's serving certificate from the host's CA, which the
// APIService trusts through its caBundle.
func (l *Lab) prepareFed(f *FedServer) error {
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return err
	}
	ca, err := loadOrCreateCA(l.Host.Dir, "ca", l.Host.Name+"-ca")
	if err != nil {
		return err
	}
	// The aggregator checks the name of the Service it was told to use.
	svcName := fedService + "." + FedNamespace + ".svc"
	_, err = ca.issue(f.Dir, "serving", "fed-apiserver", nil, []string{"localhost", "127.0.0.1", svcName})
	return err
}

// StartFedServer starts another fed-apiserver (not registered in the host) with the given
// storage flags, e.g. to run the same tests on the etcd3 backend. Its serving certificate
// is signed by the host's CA, so the host's kubeconfigs reach it directly at its URL.
func (l *Lab) StartFedServer(ctx context.Context, name string, storageArgs ...string) (*FedServer, func(), error) {
	port, err := freePort("127.0.0.1")
	if err != nil {
		return nil, nil, err
	}
	f := &FedServer{Name: name, Port: port, Dir: filepath.Join(l.opts.Dir, name), Args: storageArgs}
	if err := l.prepareFedIdentity(ctx); err != nil {
		return nil, nil, err
	}
	if err := l.prepareFed(f); err != nil {
		return nil, nil, err
	}
	p := l.fedProcess(f)
	if err := p.start(false); err != nil {
		return nil, nil, err
	}
	f.proc = p
	stop := func() { _ = p.stop(10 * time.Second) }
	if err := l.waitFor(ctx, name+" ready", []*process{p}, func(ctx context.Context) error { return l.fedReadyz(ctx, f) }); err != nil {
		stop()
		return nil, nil, err
	}
	return f, stop, nil
}

// StartFedWith starts the lab's fed-apiserver, stopped beforehand, with more flags than
// Up gives it, and waits until the host serves its groups again. It runs so until it is
// stopped; Up starts it with its own flags again.
func (l *Lab) StartFedWith(ctx context.Context, extra ...string) error {
	f := l.FedServer()
	f.Args = append(f.Args, extra...)
	p := l.fedProcess(f)
	if p.alive() {
		return fmt.Errorf("%s runs: stop it first", f.Name)
	}
	if err := p.start(l.opts.Detach); err != nil {
		return err
	}
	return l.waitFor(ctx, f.Name+" ready", []*process{p}, func(ctx context.Context) error {
		if err := l.fedReadyz(ctx, f); err != nil {
			return err
		}
		return l.fedAvailable(ctx)
	})
}

// FedRESTConfig returns the host admin's client configuration aimed straight at f.
func (l *Lab) FedRESTConfig(f *FedServer) (*rest.Config, error) {
	cfg, err := l.Host.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.Host = f.URL()
	return cfg, nil
}

func (l *Lab) fedReadyz(ctx context.Context, f *FedServer) error {
	cfg, err := l.FedRESTConfig(f)
	if err != nil {
		return err
	}
	return readyz(ctx, f.Name, cfg)
}

// registerFed makes the host forward fed's groups to the lab's fed-apiserver: a Service of
// type ExternalName pointing at localhost, and one APIService per group version.
func (l *Lab) registerFed(ctx context.Context, f *FedServer) error {
	cs, err := l.Host.Client()
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: FedNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return l.Host.registerAggregated(ctx, aggregated{namespace: FedNamespace, service: fedService, port: f.Port,
		groupPriority: 1000, versionPriority: 15}, FedGroupVersions...)
}

// fedAvailable reports nil when every fed APIService is Available in the host.
func (l *Lab) fedAvailable(ctx context.Context) error {
	return l.Host.aggregatedAvailable(ctx, FedGroupVersions...)
}

type object interface {
	metav1.Object
	comparable
}

// createOrUpdate creates obj, or replaces the existing object's spec with it (keeping its
// resourceVersion).
func createOrUpdate[T object](ctx context.Context, obj T,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	create func(context.Context, T, metav1.CreateOptions) (T, error),
	update func(context.Context, T, metav1.UpdateOptions) (T, error)) error {
	existing, err := get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = create(ctx, obj, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	obj.SetResourceVersion(existing.GetResourceVersion())
	_, err = update(ctx, obj, metav1.UpdateOptions{})
	return err
}

// JoinMembers joins every member that has no Cluster yet, with `kubectl fed join` as a user
// would, under its own name and with its region, zone and provider, waiting until Ready.
func (l *Lab) JoinMembers(ctx context.Context) error {
	cfg, err := l.Host.RESTConfig()
	if err != nil {
		return err
	}
	fed, err := fedclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// A larger lab's light members that this one no longer runs (make up MEMBERS=30, make
	// down, make up) leave the fleet: their Clusters would stay, never Ready.
	clusters, err := fed.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, c := range clusters.Items {
		n, err := strconv.Atoi(strings.TrimPrefix(c.Name, "member"))
		if err != nil || n <= len(l.Members) || c.Name != "member"+strconv.Itoa(n) {
			continue
		}
		if err := fed.ClusterV1alpha1().Clusters().Delete(ctx, c.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing %s, which the lab no longer runs: %w", c.Name, err)
		}
	}
	for _, m := range l.Members {
		c, err := fed.ClusterV1alpha1().Clusters().Get(ctx, m.Name, metav1.GetOptions{})
		if err == nil && c.DeletionTimestamp == nil {
			continue
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		start := time.Now()
		if err := l.Join(ctx, m, time.Minute); err != nil {
			return err
		}
		fmt.Fprintf(l.opts.Out, "%s joined and Ready (%.1fs)\n", m.Name, time.Since(start).Seconds())
	}
	return nil
}

// Join joins member m with `kubectl fed join` under its own name, with its region, zone and
// provider, and waits up to timeout until its Cluster is Ready.
func (l *Lab) Join(ctx context.Context, m *Cluster, timeout time.Duration) error {
	cmd := exec.CommandContext(ctx, filepath.Join(l.opts.BinDir, "kubectl-fed"), "--kubeconfig", l.Host.Kubeconfig,
		"join", m.Name, "--cluster-kubeconfig", m.Kubeconfig,
		"--region", m.Member.Region, "--zone", m.Member.Zone, "--provider", m.Member.Provider, "--timeout", timeout.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("joining %s: %w\n%s", m.Name, err, out)
	}
	return nil
}
