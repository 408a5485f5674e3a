// Package lab runs the local lab: one etcd, a host cluster and three member clusters, each a
// real kube-apiserver (members also get a controller manager, a scheduler and kwok with
// simulated nodes). Everything listens on loopback addresses only. `make up` uses it through
// the lab command; tests use it through Shared.
package lab

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options say where a lab lives and how it runs.
type Options struct {
	// Dir holds the lab's state: kubeconfigs, certificates, etcd data, logs and PIDs.
	Dir string
	// BinDir holds kube-apiserver, kube-controller-manager, kube-scheduler, kwok, the kwok
	// stages file, metrics-server and custom-metrics-adapter, as `make bin` builds them.
	BinDir string
	// Detach starts processes that outlive the caller (make up). Otherwise they die with it.
	Detach bool
	// Out receives progress lines; nil discards them.
	Out io.Writer
	// Timeout bounds how long Up waits for the lab to be ready.
	Timeout time.Duration
	// RealNode adds the real node (node.go): a kubelet with containerd, whose pods run, in
	// a cluster of its own, the install host.
	RealNode bool
	// Members is how many member clusters the lab runs: 3 when 0; those past the third are
	// light (MemberSpec.Light).
	Members int
	// FedStorage is the lab's fed-apiserver's storage backend: "badger" (its data in
	// .lab/fed/data) or "etcd3" (the lab's etcd, under /fed); "" keeps the one the lab last
	// ran with (badger at first).
	FedStorage string
}

// Lab is a running (or stopped) local lab.
type Lab struct {
	opts    Options
	state   state
	Host    *Cluster
	Members []*Cluster
	// InstallHost is the cluster the real node belongs to (node.go), where fed is installed
	// as users install it; it runs only with the real node.
	InstallHost *Cluster
}

// state is what lab.json keeps between runs: the ports the lab took.
type state struct {
	EtcdPort     int            `json:"etcdPort"`
	EtcdPeerPort int            `json:"etcdPeerPort"`
	Ports        map[string]int `json:"ports"`        // kube-apiserver port per cluster
	KubeletPorts map[string]int `json:"kubeletPorts"` // kwok's kubelet port per member
	MetricsPorts map[string]int `json:"metricsPorts"` // metrics-server's port per member
	// The custom metrics adapter's secure and write ports per member that runs one.
	CustomMetricsPorts      map[string]int `json:"customMetricsPorts,omitempty"`
	CustomMetricsWritePorts map[string]int `json:"customMetricsWritePorts,omitempty"`
	// RealNode says whether the lab was last brought up with the real node, NodePort is
	// its kubelet's port and FedPodPort the one fed-apiserver's pods serve on there.
	RealNode   bool `json:"realNode,omitempty"`
	NodePort   int  `json:"nodePort,omitempty"`
	FedPodPort int  `json:"fedPodPort,omitempty"`
	// Members is how many members the lab was last brought up with, when not 3.
	Members int `json:"members,omitempty"`
	// FedStorage is fed-apiserver's storage backend, when not badger (Options.FedStorage).
	FedStorage string `json:"fedStorage,omitempty"`
}

// New returns the lab described by opts and the state kept in opts.Dir (ports are chosen on
// first use). It starts nothing.
func New(opts Options) (*Lab, error) {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	defaultTimeout := opts.Timeout == 0
	if defaultTimeout {
		opts.Timeout = 3 * time.Minute
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	opts.Dir = dir
	if opts.BinDir, err = filepath.Abs(opts.BinDir); err != nil {
		return nil, err
	}
	l := &Lab{opts: opts}
	if err := l.loadState(); err != nil {
		return nil, err
	}
	l.Host = l.cluster("host", nil, 0)
	// The members asked for, and those a larger lab still runs, which stay until make down
	// (as the real node does).
	n := cmp.Or(opts.Members, len(Members))
	if n < len(Members) || n > MaxMembers {
		return nil, fmt.Errorf("a lab runs %d to %d members, not %d", len(Members), MaxMembers, n)
	}
	specs := MemberSpecs(max(n, l.state.Members))
	for i := range specs {
		l.Members = append(l.Members, l.cluster(specs[i].Name, &specs[i], i+1))
	}
	if len(l.Members) > n && !l.anyRunning(l.Members[n:]) {
		l.Members = l.Members[:n]
	}
	if defaultTimeout {
		l.opts.Timeout += time.Duration(len(l.Members)-len(Members)) * 10 * time.Second
	}
	l.InstallHost = l.cluster(installHostName, nil, 0)
	return l, nil
}

// anyRunning tells whether a process of one of the clusters runs.
func (l *Lab) anyRunning(clusters []*Cluster) bool {
	return slices.ContainsFunc(clusters, func(c *Cluster) bool { return anyAlive(c.processes(l)) })
}

func (l *Lab) cluster(name string, member *MemberSpec, index int) *Cluster {
	c := &Cluster{
		Name:       name,
		Member:     member,
		Port:       l.state.Ports[name],
		Dir:        filepath.Join(l.opts.Dir, name),
		Kubeconfig: filepath.Join(l.opts.Dir, name+".kubeconfig"),
	}
	if member != nil {
		// Each member's nodes get a loopback address of their own.
		c.KubeletIP = "127.0.1." + strconv.Itoa(index)
		c.KubeletPort = l.state.KubeletPorts[name]
		c.MetricsPort = l.state.MetricsPorts[name]
		c.CustomMetricsPort = l.state.CustomMetricsPorts[name]
		c.CustomMetricsWritePort = l.state.CustomMetricsWritePorts[name]
	}
	return c
}

// Dir is the lab's state directory.
func (l *Lab) Dir() string { return l.opts.Dir }

// Clusters returns the host followed by the members.
func (l *Lab) Clusters() []*Cluster { return append([]*Cluster{l.Host}, l.Members...) }

// Member returns the member cluster of that name, or nil.
func (l *Lab) Member(name string) *Cluster {
	for _, m := range l.Members {
		if m.Name == name {
			return m
		}
	}
	return nil
}

func (l *Lab) statePath() string { return filepath.Join(l.opts.Dir, "lab.json") }

func (l *Lab) loadState() error {
	data, err := os.ReadFile(l.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(data, &l.state)
}

// allocatePorts picks free loopback ports for whatever has none yet and saves them.
func (l *Lab) allocatePorts() error {
	s := &l.state
	if s.Ports == nil {
		s.Ports = map[string]int{}
	}
	if s.KubeletPorts == nil {
		s.KubeletPorts = map[string]int{}
	}
	if s.MetricsPorts == nil {
		s.MetricsPorts = map[string]int{}
	}
	if s.CustomMetricsPorts == nil {
		s.CustomMetricsPorts = map[string]int{}
	}
	if s.CustomMetricsWritePorts == nil {
		s.CustomMetricsWritePorts = map[string]int{}
	}
	// Every port of the lab, saved or not, is held in the machine's registry under the lab's
	// directory; those without one are picked. The clusters' fields hold the saved ports
	// (New read them from the state), so they are filled in place and saved from there.
	var slots []portSlot
	hold := func(p *int, ip string) { slots = append(slots, portSlot{ip, p}) }
	hold(&s.EtcdPort, "127.0.0.1")
	hold(&s.EtcdPeerPort, "127.0.0.1")
	if s.RealNode {
		hold(&s.NodePort, NodeIP)
		hold(&s.FedPodPort, NodeIP)
		hold(&l.InstallHost.Port, "127.0.0.1")
	}
	fed := s.Ports[fedProcess]
	hold(&fed, "127.0.0.1")
	clusters := l.Clusters()
	for _, c := range clusters {
		hold(&c.Port, "127.0.0.1")
		if c.Member != nil {
			hold(&c.KubeletPort, c.KubeletIP)
		}
		if c.Member != nil && !c.Member.Light {
			hold(&c.MetricsPort, "127.0.0.1")
		}
		if c.Member != nil && c.Member.CustomMetrics {
			hold(&c.CustomMetricsPort, "127.0.0.1")
			hold(&c.CustomMetricsWritePort, "127.0.0.1")
		}
	}
	if err := reservePorts(portRegistry, portOwner{Dir: l.opts.Dir}, slots); err != nil {
		return err
	}
	s.Ports[fedProcess] = fed
	if s.RealNode {
		s.Ports[installHostName] = l.InstallHost.Port
	}
	for _, c := range clusters {
		s.Ports[c.Name] = c.Port
		if c.Member != nil {
			s.KubeletPorts[c.Name], s.MetricsPorts[c.Name] = c.KubeletPort, c.MetricsPort
		}
		if c.Member != nil && c.Member.CustomMetrics {
			s.CustomMetricsPorts[c.Name], s.CustomMetricsWritePorts[c.Name] = c.CustomMetricsPort, c.CustomMetricsWritePort
		}
	}
	s.Members = 0
	if len(l.Members) != len(Members) {
		s.Members = len(l.Members)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(l.statePath(), data, 0o644)
}

func (l *Lab) etcdURL() string { return "http://127.0.0.1:" + strconv.Itoa(l.state.EtcdPort) }

// EtcdURL is the lab's etcd client endpoint.
func (l *Lab) EtcdURL() string { return l.etcdURL() }

func (l *Lab) process(name, bin string, args []string) *process {
	return &process{name: name, bin: filepath.Join(l.opts.BinDir, bin), args: args, dir: l.opts.Dir}
}

func (l *Lab) etcd() *process {
	peer := "http://127.0.0.1:" + strconv.Itoa(l.state.EtcdPeerPort)
	return l.process("etcd", "etcd", []string{
		"--name=lab",
		"--data-dir=" + filepath.Join(l.opts.Dir, "etcd"),
		"--listen-client-urls=" + l.etcdURL(),
		"--advertise-client-urls=" + l.etcdURL(),
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=lab=" + peer,
		"--quota-backend-bytes=4294967296",
		"--unsafe-no-fsync",
		"--log-level=warn",
	})
}

// processes lists every program of the lab in start order.
func (l *Lab) processes() []*process {
	procs := []*process{l.etcd()}
	for _, c := range l.Clusters() {
		procs = append(procs, c.processes(l)...)
	}
	procs = append(procs, l.nodeProcesses()...)
	return append(procs, l.fedProcess(l.FedServer()))
}

// find returns a lab process by name: "etcd", "fed-apiserver", or "<cluster>-apiserver",
// "<cluster>-controller-manager", "<member>-scheduler", "<member>-kwok",
// "<member>-metrics-server", "<member>-custom-metrics-adapter".
func (l *Lab) find(name string) (*process, error) {
	for _, p := range append(l.processes(), l.agentProcesses()...) {
		if p.name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("the lab has no process %q", name)
}

// StopProcess stops one process of a running lab, e.g. to take a member's apiserver down.
func (l *Lab) StopProcess(name string) error {
	p, err := l.find(name)
	if err != nil {
		return err
	}
	return p.stop(10 * time.Second)
}

// KillProcess kills one process of a running lab with SIGKILL, as a crash would.
func (l *Lab) KillProcess(name string) error {
	p, err := l.find(name)
	if err != nil {
		return err
	}
	return p.stop(0)
}

// PauseProcess stops one process of a running lab with SIGSTOP (a hung disk or a long
// pause of its runtime, as its clients see it) until ResumeProcess.
func (l *Lab) PauseProcess(name string) error { return l.signal(name, syscall.SIGSTOP) }

// ResumeProcess lets a paused process run again (SIGCONT).
func (l *Lab) ResumeProcess(name string) error { return l.signal(name, syscall.SIGCONT) }

func (l *Lab) signal(name string, sig syscall.Signal) error {
	p, err := l.find(name)
	if err != nil {
		return err
	}
	pid, ok := p.pid()
	if !ok {
		return fmt.Errorf("%s does not run", name)
	}
	return syscall.Kill(pid, sig)
}

// StartProcess starts one stopped process of the lab again, with the same ports and state.
func (l *Lab) StartProcess(name string) error {
	p, err := l.find(name)
	if err != nil {
		return err
	}
	if p.alive() {
		return nil
	}
	return p.start(l.opts.Detach)
}

// RunningProcesses names the lab's processes that run.
func (l *Lab) RunningProcesses() []string {
	var names []string
	for _, p := range l.processes() {
		if p.alive() {
			names = append(names, p.name)
		}
	}
	return names
}

// Running tells whether every process of the lab runs.
func (l *Lab) Running() bool {
	for _, p := range l.processes() {
		if !p.alive() {
			return false
		}
	}
	return true
}

// lock serialises lab commands on one state directory.
func (l *Lab) lock() (func(), error) {
	if err := os.MkdirAll(l.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(l.opts.Dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// Up starts whatever part of the lab is not running and waits until it is ready: etcd
// healthy, every apiserver ready, every member's nodes Ready and its metrics-server's
// APIService Available. Processes already running are
// kept, so Up is safe to repeat. When a process dies meanwhile, Up returns a *ProcessError
// carrying its log tail.
func (l *Lab) Up(ctx context.Context) error {
	unlock, err := l.lock()
	if err != nil {
		return err
	}
	defer unlock()
	// A real node already running stays the lab's until make down, whatever this Up asked.
	l.state.RealNode = l.opts.RealNode || l.nodeRunning()
	if err := l.chooseFedStorage(); err != nil {
		return err
	}
	if err := l.allocatePorts(); err != nil {
		return err
	}
	for _, c := range l.Clusters() {
		if err := c.prepare(l.opts.Dir); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		if c.Member != nil {
			if err := c.writeKwokConfig(filepath.Join(l.opts.BinDir, "kwok-stages.yaml")); err != nil {
				return err
			}
		}
	}
	if err := l.prepareFed(l.FedServer()); err != nil {
		return fmt.Errorf("fed-apiserver: %w", err)
	}
	if l.state.RealNode {
		if err := l.InstallHost.prepare(l.opts.Dir); err != nil {
			return fmt.Errorf("%s: %w", installHostName, err)
		}
		if err := l.prepareNode(); err != nil {
			return fmt.Errorf("%s: %w", NodeName, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()

	etcd := l.etcd()
	if err := l.ensureRunning(etcd); err != nil {
		return err
	}
	if err := l.waitFor(ctx, "etcd", []*process{etcd}, l.etcdHealthy); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(l.Clusters())+1)
	// Light members start a few at a time: two dozen kube-apiservers starting at once leave
	// each too little of the machine's cores to be ready in time.
	light := make(chan struct{}, 4)
	for i, c := range l.Clusters() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Member != nil && c.Member.Light {
				select {
				case light <- struct{}{}:
					defer func() { <-light }()
				case <-ctx.Done():
					errs[i] = fmt.Errorf("%s: not started: %w", c.Name, ctx.Err())
					return
				}
			}
			errs[i] = l.upCluster(ctx, c, etcd)
		}()
	}
	if l.state.RealNode {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[len(errs)-1] = l.upNode(ctx, etcd)
		}()
	}
	wg.Wait()
	if err := firstProcessError(errs); err != nil {
		return err
	}
	if err := l.JoinMembers(ctx); err != nil {
		return err
	}
	return l.writeFleetKubeconfig(ctx)
}

// firstProcessError prefers a dead process's report over the time-outs it caused elsewhere.
func firstProcessError(errs []error) error {
	for _, err := range errs {
		var pe *ProcessError
		if errors.As(err, &pe) {
			return err
		}
	}
	return errors.Join(errs...)
}

// upCluster starts a cluster's apiserver, then, once it is ready, the components that need
// it (a controller manager gives up on an apiserver that is not healthy within seconds),
// and waits for the member's nodes or, on the host, for fed-apiserver.
func (l *Lab) upCluster(ctx context.Context, c *Cluster, etcd *process) error {
	procs := c.processes(l)
	watched := []*process{etcd, procs[0]}
	if !procs[0].alive() {
		// Components that lost their apiserver do not all recover (a controller manager
		// stops filling token Secrets, kwok's node caches go stale): restart them with it.
		for _, p := range procs[1:] {
			if err := l.stop(p); err != nil {
				return err
			}
		}
	}
	if err := l.ensureRunning(procs[0]); err != nil {
		return err
	}
	if err := l.waitFor(ctx, c.Name+" apiserver ready", watched, c.readyz); err != nil {
		return err
	}
	for _, p := range procs[1:] {
		if err := l.ensureRunning(p); err != nil {
			return err
		}
		watched = append(watched, p)
	}
	if c.Member == nil {
		return l.waitFed(ctx, watched)
	}
	if err := c.ensureNodes(ctx); err != nil {
		return err
	}
	if err := l.waitFor(ctx, c.Name+" nodes ready", watched, c.nodesReady); err != nil {
		return err
	}
	if c.Member.Light {
		return nil
	}
	if err := c.registerMetricsServer(ctx); err != nil {
		return err
	}
	if err := l.waitFor(ctx, c.Name+" metrics-server available", watched, c.metricsAvailable); err != nil {
		return err
	}
	if !c.Member.CustomMetrics {
		return nil
	}
	if err := c.registerCustomMetrics(ctx); err != nil {
		return err
	}
	return l.waitFor(ctx, c.Name+" custom metrics adapter available", watched, c.customMetricsAvailable)
}

// waitFed waits for the lab's fed-apiserver, registers it in the host and waits until the
// host reports its APIServices Available.
func (l *Lab) waitFed(ctx context.Context, procs []*process) error {
	f := l.FedServer()
	p := l.fedProcess(f)
	if !p.alive() {
		if err := l.prepareFedIdentity(ctx); err != nil {
			return err
		}
	}
	if err := l.ensureRunning(p); err != nil {
		return err
	}
	procs = append(procs[:len(procs):len(procs)], p)
	ready := func(ctx context.Context) error { return l.fedReadyz(ctx, f) }
	if err := l.waitFor(ctx, "fed-apiserver ready", procs, ready); err != nil {
		return err
	}
	if err := l.registerFed(ctx, f); err != nil {
		return err
	}
	return l.waitFor(ctx, "fed APIServices available", procs, l.fedAvailable)
}

func (l *Lab) ensureRunning(p *process) error {
	if p.alive() {
		return nil
	}
	fmt.Fprintf(l.opts.Out, "starting %s\n", p.name)
	return p.start(l.opts.Detach)
}

// waitFor polls check until it succeeds, failing early with the log tail of any of procs
// that died, and at the deadline with the last check error.
func (l *Lab) waitFor(ctx context.Context, what string, procs []*process, check func(context.Context) error) error {
	start := time.Now()
	for {
		for _, p := range procs {
			if !p.alive() {
				return p.deadError()
			}
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := check(cctx)
		cancel()
		if err == nil {
			fmt.Fprintf(l.opts.Out, "%s (%.1fs)\n", what, time.Since(start).Seconds())
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last error: %v)", what, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Down stops every process of the lab, members first, etcd last. The state directory stays,
// so the next Up resumes with the same data.
func (l *Lab) Down() error {
	unlock, err := l.lock()
	if err != nil {
		return err
	}
	defer unlock()
	// The real node's containers first, once its kubelet no longer restarts them: they
	// outlive containerd.
	nodeErr := l.stopNodeContainers()
	// Everything but etcd at once, then etcd, so no apiserver loses its storage first.
	procs := append(l.processes(), l.agentProcesses()...)
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i+1] = l.stop(p)
		}()
	}
	wg.Wait()
	errs[0] = l.stop(procs[0])
	if l.state.RealNode {
		errs = append(errs, l.unmountNode())
	}
	return errors.Join(append(errs, nodeErr)...)
}

func (l *Lab) stop(p *process) error {
	if p.alive() {
		fmt.Fprintf(l.opts.Out, "stopping %s\n", p.name)
	}
	return p.stop(15 * time.Second)
}

// etcdHealthy asks etcd's /health.
func (l *Lab) etcdHealthy(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.etcdURL()+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"health":"true"`) {
		return fmt.Errorf("etcd /health: %s %s", resp.Status, body)
	}
	return nil
}

// PrintStatus writes one line per process: its name, whether it runs, and its PID.
func (l *Lab) PrintStatus(w io.Writer) error {
	for _, p := range l.processes() {
		if pid, ok := p.pid(); ok {
			fmt.Fprintf(w, "%-28s running  pid %d\n", p.name, pid)
		} else {
			fmt.Fprintf(w, "%-28s stopped\n", p.name)
		}
	}
	return nil
}
