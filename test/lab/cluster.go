package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// MemberSpec describes a member cluster of the lab: where it claims to be and what its
// simulated nodes hold. The members differ so that scheduling by capacity and by region can
// be tested.
type MemberSpec struct {
	Name     string
	Region   string
	Zone     string
	Provider string
	Nodes    int
	CPU      string // per node
	Memory   string // per node
	Pods     string // per node
	// CustomMetrics runs a custom and external metrics adapter in the member.
	CustomMetrics bool
	// Light members run a kube-apiserver, kwok and a controller manager with the namespace
	// controller alone: no other controller, scheduler or metrics-server, so nothing
	// reconciles what is written there (a Deployment gets no pods). They are the members
	// past the third of make up MEMBERS=N, for the scale benches, where a member costs what
	// fed keeps for it and what its apiserver serves.
	Light bool
}

// Members are the lab's member clusters.
var Members = []MemberSpec{
	{Name: "member1", Region: "eu-west", Zone: "eu-west-1a", Provider: "aws", Nodes: 1, CPU: "4", Memory: "8Gi", Pods: "110", CustomMetrics: true},
	{Name: "member2", Region: "eu-west", Zone: "eu-west-1b", Provider: "gcp", Nodes: 2, CPU: "8", Memory: "16Gi", Pods: "110", CustomMetrics: true},
	{Name: "member3", Region: "us-east", Zone: "us-east-1a", Provider: "aws", Nodes: 3, CPU: "16", Memory: "64Gi", Pods: "110"},
}

// MaxMembers bounds a lab's members: each gets a loopback address 127.0.1.N of its own.
const MaxMembers = 200

// MemberSpecs are the members of a lab of n: Members, then light ones named member4,
// member5, … with one node each, their regions and zones taking turns.
func MemberSpecs(n int) []MemberSpec {
	specs := slices.Clone(Members[:min(n, len(Members))])
	places := [][2]string{{"eu-west", "eu-west-1c"}, {"us-east", "us-east-1b"}, {"ap-south", "ap-south-1a"}}
	for i := len(specs); i < n; i++ {
		p := places[i%len(places)]
		specs = append(specs, MemberSpec{Name: "member" + strconv.Itoa(i+1), Region: p[0], Zone: p[1], Provider: "aws",
			Nodes: 1, CPU: "8", Memory: "32Gi", Pods: "110", Light: true})
	}
	return specs
}

// Cluster is one cluster of the lab: a kube-apiserver on its own etcd prefix, and for a member
// its controller manager, scheduler, kwok, metrics-server and (CustomMetrics) custom
// metrics adapter.
type Cluster struct {
	Name string
	// Member is nil for the host cluster.
	Member *MemberSpec
	// Port is the kube-apiserver's secure port on 127.0.0.1.
	Port int
	// KubeletIP and KubeletPort are where kwok serves the kubelet API of a member's nodes.
	KubeletIP   string
	KubeletPort int
	// MetricsPort is a member's metrics-server's secure port on 127.0.0.1.
	MetricsPort int
	// CustomMetricsPort is the secure port of a member's custom metrics adapter, and
	// CustomMetricsWritePort where it takes values (see WriteCustomMetric); 0 when the
	// member runs none.
	CustomMetricsPort, CustomMetricsWritePort int
	// Dir holds the cluster's certificates, keys and component kubeconfigs.
	Dir string
	// Kubeconfig is the admin kubeconfig (user in system:masters).
	Kubeconfig string

	ca *CA
}

// URL is the cluster's API endpoint.
func (c *Cluster) URL() string { return "https://127.0.0.1:" + strconv.Itoa(c.Port) }

// RESTConfig returns an admin client configuration for the cluster.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	return cfg, nil
}

// Client returns an admin clientset for the cluster.
func (c *Cluster) Client() (kubernetes.Interface, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// UserKubeconfig writes a kubeconfig for user (with groups) authenticated by a client
// certificate of this cluster's CA, and returns its path. Tests use it to act as users with
// fewer rights than the admin.
func (c *Cluster) UserKubeconfig(user string, groups ...string) (string, error) {
	ca, err := loadOrCreateCA(c.Dir, "ca", c.Name+"-ca")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(c.Dir, "users")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ck, err := ca.issue(dir, user, user, groups, nil)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, user+".kubeconfig")
	return path, c.writeKubeconfig(path, user, ck)
}

// prepare writes the cluster's certificates and kubeconfigs, keeping those already there.
func (c *Cluster) prepare(labDir string) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	ca, err := loadOrCreateCA(c.Dir, "ca", c.Name+"-ca")
	if err != nil {
		return err
	}
	c.ca = ca
	if _, err := ca.issue(c.Dir, "serving", "kube-apiserver", nil, []string{"127.0.0.1", "localhost"}); err != nil {
		return err
	}
	if _, _, err := ensureServiceAccountKey(c.Dir); err != nil {
		return err
	}
	admin, err := ca.issue(c.Dir, "admin", "lab-admin", []string{"system:masters"}, nil)
	if err != nil {
		return err
	}
	// The admin kubeconfig is what users and tests get; the components use it too, which is
	// enough for a lab and keeps one credential per cluster.
	if err := c.writeKubeconfig(c.Kubeconfig, "admin", admin); err != nil {
		return err
	}
	// The aggregation layer's credentials: the host's for fed-apiserver, a member's for its
	// metrics-server.
	fpca, err := loadOrCreateCA(c.Dir, "front-proxy-ca", c.Name+"-front-proxy-ca")
	if err != nil {
		return err
	}
	if _, err := fpca.issue(c.Dir, "front-proxy-client", "front-proxy-client", nil, nil); err != nil {
		return err
	}
	if c.Member != nil {
		if err := c.prepareMetricsServer(); err != nil {
			return err
		}
	}
	if c.Member != nil && c.Member.CustomMetrics {
		return c.prepareCustomMetrics()
	}
	return nil
}

func (c *Cluster) writeKubeconfig(path, user string, ck *CertKey) error {
	caPEM, err := os.ReadFile(filepath.Join(c.Dir, "ca.crt"))
	if err != nil {
		return err
	}
	userName := c.Name + "-" + user
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[c.Name] = &clientcmdapi.Cluster{Server: c.URL(), CertificateAuthorityData: caPEM}
	cfg.AuthInfos[userName] = &clientcmdapi.AuthInfo{ClientCertificateData: ck.CertPEM, ClientKeyData: ck.KeyPEM}
	cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: userName}
	cfg.CurrentContext = c.Name
	return clientcmd.WriteToFile(*cfg, path)
}

func (c *Cluster) file(name string) string { return filepath.Join(c.Dir, name) }

// processes returns the cluster's programs in start order.
func (c *Cluster) processes(l *Lab) []*process {
	if c.Member != nil && c.Member.Light {
		return []*process{c.apiserver(l), c.controllerManager(l), c.kwok(l)}
	}
	procs := []*process{c.apiserver(l), c.controllerManager(l)}
	if c.Member != nil {
		procs = append(procs, c.scheduler(l), c.kwok(l), c.metricsServer(l))
	}
	if c.Member != nil && c.Member.CustomMetrics {
		procs = append(procs, c.customMetricsAdapter(l))
	}
	return procs
}

func (c *Cluster) apiserver(l *Lab) *process {
	args := []string{
		"--etcd-servers=" + l.etcdURL(),
		"--etcd-prefix=/" + c.Name,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.Port),
		"--tls-cert-file=" + c.file("serving.crt"),
		"--tls-private-key-file=" + c.file("serving.key"),
		"--client-ca-file=" + c.file("ca.crt"),
		"--service-account-issuer=" + c.URL(),
		"--service-account-key-file=" + c.file("sa.pub"),
		"--service-account-signing-key-file=" + c.file("sa.key"),
		"--authorization-mode=Node,RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--allow-privileged=true",
		// The kubernetes Service cannot have loopback endpoints; nothing in the lab needs it.
		"--endpoint-reconciler-type=none",
		"--feature-gates=WatchList=false",
		"--profiling=false",
		// Nodes are kwok's, serving their kubelet API on a loopback address; never resolve
		// a node's hostname (that would ask a DNS server off this machine).
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-client-certificate=" + c.file("admin.crt"),
		"--kubelet-client-key=" + c.file("admin.key"),
		// Bootstrap tokens (kube-system Secrets) authenticate, as on a kubeadm cluster:
		// kubectl fed register asks the host for an agent's certificate with one.
		"--enable-bootstrap-token-auth",
	}
	// The aggregation layer, for fed-apiserver's APIServices in the host and metrics-server's
	// in a member.
	args = append(args,
		"--requestheader-client-ca-file="+c.file("front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+c.file("front-proxy-client.crt"),
		"--proxy-client-key-file="+c.file("front-proxy-client.key"),
		"--enable-aggregator-routing=false",
	)
	return l.process(c.Name+"-apiserver", "kube-apiserver", args)
}

func (c *Cluster) controllerManager(l *Lab) *process {
	args := []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		"--service-account-private-key-file=" + c.file("sa.key"),
		"--root-ca-file=" + c.file("ca.crt"),
		"--cluster-signing-cert-file=" + c.file("ca.crt"),
		"--cluster-signing-key-file=" + c.file("ca.key"),
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--secure-port=0",
		"--profiling=false",
		"--concurrent-deployment-syncs=10",
		"--concurrent-replicaset-syncs=10",
	}
	if c.Member == nil {
		// Pull mode's bootstrap, as on a kubeadm host: the bootstrapsigner signs
		// kube-public/cluster-info with each bootstrap token (what register checks the host
		// with), the tokencleaner deletes expired tokens. The CSR signer (the
		// cluster-signing flags) issues the agents' certificates fed approves, valid 3
		// minutes after they are issued (and 5 before, the signer's allowance for skew), so
		// that an agent renews its certificate 0.6 to 2.2 minutes after it got it (client-go
		// renews at 70 to 90% of the 8 minutes): the lab's
		// agents renew theirs all along, as they would once a year with the default.
		args = append(args, "--controllers=*,bootstrapsigner,tokencleaner", "--cluster-signing-duration=3m")
	}
	if c.Member != nil && c.Member.Light {
		// A light member's namespaces must go when deleted (unjoin deletes fed-system),
		// and nothing else runs there.
		args = append(args, "--controllers=namespace")
	}
	return l.process(c.Name+"-controller-manager", "kube-controller-manager", args)
}

func (c *Cluster) scheduler(l *Lab) *process {
	return l.process(c.Name+"-scheduler", "kube-scheduler", []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--profiling=false",
	})
}

func (c *Cluster) kwok(l *Lab) *process {
	addr := fmt.Sprintf("%s:%d", c.KubeletIP, c.KubeletPort)
	return l.process(c.Name+"-kwok", "kwok", []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--config=" + c.file("kwok.yaml"),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		"--node-ip=" + c.KubeletIP,
		"--node-port=" + strconv.Itoa(c.KubeletPort),
		"--server-address=" + addr,
		// Nodes renew a lease like kubelets do, so the node lifecycle controller keeps
		// them Ready (the heartbeat-with-lease stage).
		"--node-lease-duration-seconds=40",
	})
}

// readyz asks the cluster's /readyz.
func (c *Cluster) readyz(ctx context.Context) error {
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	return readyz(ctx, c.Name, cfg)
}

// readyz asks a server's /readyz.
func readyz(ctx context.Context, name string, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("%s /readyz: %w: %s", name, err, body)
	}
	return nil
}
