package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// The real node (Options.RealNode, make up NODES=real): a kubelet built from the same
// Kubernetes source as the lab's other binaries, with containerd and runc from Debian's
// packages (hack/install-node.sh), registered as NodeName in a cluster of its own, the
// install host (a kube-apiserver, a controller manager and a scheduler), where fed is
// installed as users install it: the lab's host has its APIServices taken by its own
// fed-apiserver process. The node's pods run for real: fed's image (make image) and the
// sandbox image (a pause of the lab's own, since no registry is reachable) are imported into
// its containerd. Nothing listens off loopback: the kubelet serves on NodeIP, and the pods
// the lab runs there use the host's network, so their IP is NodeIP too; the CNI
// configuration is loopback's alone. Kubernetes refuses loopback addresses in Endpoints, so
// a Service of such a Pod has none: fed's chart is installed there with its Service of type
// ExternalName (localhost, fed-apiserver's port), which the aggregator resolves.
const (
	NodeName = "lab-node"
	NodeIP   = "127.0.0.20"
	// PauseImage is the sandbox image the node's containerd runs for every pod.
	PauseImage = "fed.lab/pause:1"
	// PauseArchive and FedImageArchive are the OCI archives the lab imports, in BinDir.
	PauseArchive    = "lab-pause.tar"
	FedImageArchive = "fed-image.tar"

	installHostName = "install"

	// FedVolume is the PersistentVolume the lab provides in the install host for fed's
	// Badger database: a hostPath directory under the node's, of no StorageClass, which the
	// chart's claim binds to (the install host has no default StorageClass).
	FedVolume = "lab-fed-data"
)

// FedPodPort is the port the lab keeps for fed-apiserver's pods on the real node: the
// chart's securePort there, served on NodeIP (--bind-address), the host's network being the
// pods'.
func (l *Lab) FedPodPort() int { return l.state.FedPodPort }

// RealNode tells whether the lab runs the real node and its install host.
func (l *Lab) RealNode() bool { return l.state.RealNode }

func (l *Lab) nodeDir() string             { return filepath.Join(l.opts.Dir, "node") }
func (l *Lab) nodeFile(name string) string { return filepath.Join(l.nodeDir(), name) }
func (l *Lab) containerdSocket() string    { return l.nodeFile("containerd.sock") }

// nodeProcesses are the install host's and the real node's programs in start order: the
// apiserver, controller manager and scheduler, containerd, the kubelet. None without a real
// node.
func (l *Lab) nodeProcesses() []*process {
	if !l.state.RealNode {
		return nil
	}
	c := l.InstallHost
	return []*process{c.apiserver(l), c.controllerManager(l), c.scheduler(l), l.containerd(), l.kubelet()}
}

// nodeRunning tells whether a process of the real node the state records runs.
func (l *Lab) nodeRunning() bool { return anyAlive(l.nodeProcesses()) }

func (l *Lab) containerd() *process {
	return l.process(installHostName+"-containerd", "containerd", []string{"--config=" + l.nodeFile("containerd.toml")})
}

func (l *Lab) kubelet() *process {
	return l.process(installHostName+"-kubelet", "kubelet", []string{
		"--config=" + l.nodeFile("kubelet.yaml"),
		"--kubeconfig=" + l.nodeFile("kubelet.kubeconfig"),
		"--hostname-override=" + NodeName,
		"--node-ip=" + NodeIP,
		"--root-dir=" + l.nodeFile("kubelet"),
		"--cert-dir=" + l.nodeFile("pki"),
	})
}

// containerdConfig: state, sockets and snapshots under the lab's directory; the lab's pause;
// no lowering of oom_score_adj below containerd's own, since the sandbox lacks
// CAP_SYS_RESOURCE (runc fails "failed to update /proc/self/oom_score_adj: Permission denied"
// for the -998 the kubelet asks for a sandbox otherwise).
const containerdConfig = `version = 2
root = %[1]q
state = %[2]q
[grpc]
  address = %[3]q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[4]q
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[5]q
    conf_dir = %[6]q
`

// kubeletConfig: served on NodeIP only, authenticating the host's clients by its CA and
// asking the host to authorize them; cgroupfs (the machine has cgroup v1); no eviction or
// image garbage collection to speak of, since the lab's disk is the machine's.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: %[2]d
readOnlyPort: 0
healthzPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[3]q}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
enforceNodeAllocatable: []
failSwapOn: false
containerRuntimeEndpoint: unix://%[4]s
resolvConf: %[5]q
evictionHard: {memory.available: "100Mi", nodefs.available: "1%%", imagefs.available: "1%%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
registerNode: true
`

// prepareNode writes the real node's configuration and the kubelet's credentials (a client
// certificate of the install host's CA for system:node:NodeName).
func (l *Lab) prepareNode() error {
	for _, d := range []string{l.nodeDir(), l.nodeFile("cni")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		"containerd.toml": fmt.Sprintf(containerdConfig, l.nodeFile("containerd"), l.nodeFile("state"), l.containerdSocket(),
			PauseImage, filepath.Join(l.opts.BinDir, "cni"), l.nodeFile("cni")),
		"cni/10-lab.conflist": `{"cniVersion": "1.0.0", "name": "lab", "plugins": [{"type": "loopback"}]}` + "\n",
		"resolv.conf":         "",
		"kubelet.yaml": fmt.Sprintf(kubeletConfig, NodeIP, l.state.NodePort, l.InstallHost.file("ca.crt"), l.containerdSocket(),
			l.nodeFile("resolv.conf")),
	}
	for name, content := range files {
		if err := os.WriteFile(l.nodeFile(name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	ck, err := l.InstallHost.ca.issue(l.nodeDir(), "kubelet", "system:node:"+NodeName, []string{"system:nodes"}, nil)
	if err != nil {
		return err
	}
	return l.InstallHost.writeKubeconfig(l.nodeFile("kubelet.kubeconfig"), "kubelet", ck)
}

// upNode starts the install host, then, once it serves, its controller manager and
// scheduler and containerd, the images imported, then the kubelet; it waits for the node to
// be Ready with NodeIP as its address.
func (l *Lab) upNode(ctx context.Context, etcd *process) error {
	c := l.InstallHost
	procs := l.nodeProcesses()
	apiserver, kubelet := procs[0], procs[4]
	if !apiserver.alive() {
		// As for the other clusters: what lost its apiserver starts again with it.
		for _, p := range procs[1:3] {
			if err := l.stop(p); err != nil {
				return err
			}
		}
	}
	if err := l.ensureRunning(apiserver); err != nil {
		return err
	}
	watched := []*process{etcd, apiserver}
	if err := l.waitFor(ctx, c.Name+" apiserver ready", watched, c.readyz); err != nil {
		return err
	}
	for _, p := range procs[1:4] {
		if err := l.ensureRunning(p); err != nil {
			return err
		}
	}
	watched = append(watched, procs[1:4]...)
	if err := l.waitFor(ctx, installHostName+"-containerd serving", watched, func(context.Context) error {
		_, err := os.Stat(l.containerdSocket())
		return err
	}); err != nil {
		return err
	}
	if err := l.importImages(ctx); err != nil {
		return err
	}
	if err := l.ensureRunning(kubelet); err != nil {
		return err
	}
	if err := l.waitFor(ctx, NodeName+" Ready", append(watched, kubelet), l.nodeReady); err != nil {
		return err
	}
	return l.EnsureFedVolume(ctx)
}

// EnsureFedVolume makes FedVolume available to a claim: created on an empty directory when
// it does not exist, and made again so when its claim was deleted (Released), as a
// provisioner gives a new claim a new volume. A volume bound or available is left alone.
func (l *Lab) EnsureFedVolume(ctx context.Context) error {
	cs, err := l.InstallHost.Client()
	if err != nil {
		return err
	}
	pvs := cs.CoreV1().PersistentVolumes()
	pv, err := pvs.Get(ctx, FedVolume, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case pv.DeletionTimestamp == nil && pv.Status.Phase != corev1.VolumeReleased && pv.Status.Phase != corev1.VolumeFailed &&
		usable(ctx, cs, pv):
		return nil
	default:
		if err := pvs.Delete(ctx, FedVolume, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := pvs.Get(ctx, FedVolume, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		}); err != nil {
			return fmt.Errorf("persistentvolume %s is still there: %w", FedVolume, err)
		}
	}
	dir := l.nodeFile(filepath.Join("volumes", FedVolume))
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	// Whichever user the pods run as writes there.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return err
	}
	_, err = pvs.Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: FedVolume},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: ptr.To(corev1.HostPathDirectory)},
			},
		},
	}, metav1.CreateOptions{})
	return err
}

// importImages imports the sandbox image and fed's, where make built them, into the node's
// containerd (the namespace the kubelet's pods use).
func (l *Lab) importImages(ctx context.Context) error {
	for _, name := range []string{PauseArchive, FedImageArchive} {
		archive := filepath.Join(l.opts.BinDir, name)
		if _, err := os.Stat(archive); errors.Is(err, os.ErrNotExist) && name == FedImageArchive {
			fmt.Fprintf(l.opts.Out, "no %s (make image builds it): fed's image is not on %s\n", archive, NodeName)
			continue
		}
		if err := l.ctr(ctx, "images", "import", archive); err != nil {
			return err
		}
	}
	return nil
}

// ctr runs containerd's ctr against the node's containerd, in the kubelet's namespace.
func (l *Lab) ctr(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(l.opts.BinDir, "ctr"), append([]string{"--address", l.containerdSocket(), "-n", "k8s.io"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ctr %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// nodeReady checks that the node is Ready and gives it NodeIP as its address: the kubelet
// refuses a loopback --node-ip ("nodeIP can't be loopback address") and then leaves the
// addresses it could not set alone, so the lab sets them, as a cloud provider would.
func (l *Lab) nodeReady(ctx context.Context) error {
	cs, err := l.InstallHost.Client()
	if err != nil {
		return err
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: NodeIP}, {Type: corev1.NodeHostName, Address: NodeName}}
	if !slices.Equal(node.Status.Addresses, want) {
		patch, err := json.Marshal(map[string]any{"status": map[string]any{"addresses": want}})
		if err != nil {
			return err
		}
		if _, err := cs.CoreV1().Nodes().Patch(ctx, NodeName, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return err
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				return nil
			}
			return fmt.Errorf("%s is not Ready: %s", NodeName, c.Message)
		}
	}
	return fmt.Errorf("%s has no Ready condition yet", NodeName)
}

// stopNodeContainers stops the kubelet, which would start them again, then kills the
// containers of the node's pods and their shims, which outlive containerd: every process
// whose parent is a shim of the node's containerd, then the shims.
func (l *Lab) stopNodeContainers() error {
	if !l.state.RealNode {
		return nil
	}
	if err := l.stop(l.kubelet()); err != nil {
		return err
	}
	shims, children, err := nodeShims(l.containerdSocket())
	if err != nil {
		return err
	}
	for _, pid := range append(children, shims...) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for i := 0; i < 100; i++ {
		if shims, children, err = nodeShims(l.containerdSocket()); err != nil || len(shims)+len(children) == 0 {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the node's containers still run after SIGKILL: shims %v, their processes %v", shims, children)
}

// nodeShims finds the shims of the containerd serving socket and the processes they run.
func nodeShims(socket string) (shims, children []int, err error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, nil, err
	}
	parents := map[int]int{}
	isShim := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, ppid, ok := procStat(pid)
		if !ok || state == "Z" {
			continue
		}
		parents[pid] = ppid
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(string(cmdline), "\x00")
		if strings.HasPrefix(filepath.Base(args[0]), "containerd-shim") && slices.Contains(args, socket) {
			isShim[pid] = true
			shims = append(shims, pid)
		}
	}
	for pid, ppid := range parents {
		if isShim[ppid] {
			children = append(children, pid)
		}
	}
	return shims, children, nil
}

// unmountNode unmounts what the kubelet and containerd left mounted under the node's
// directory (pods' volumes, snapshots), deepest first, so that the directory can be removed.
func (l *Lab) unmountNode() error {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	prefix := l.nodeDir() + string(filepath.Separator)
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 1 && strings.HasPrefix(unescapeMount(fields[1]), prefix) {
			points = append(points, unescapeMount(fields[1]))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(points)))
	var errs []error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// unescapeMount decodes the octal escapes of /proc/self/mounts (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// usable tells whether pv is free or bound to a claim that still exists (the volume
// controller marks it Released only some time after its claim went).
func usable(ctx context.Context, cs kubernetes.Interface, pv *corev1.PersistentVolume) bool {
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return true
	}
	pvc, err := cs.CoreV1().PersistentVolumeClaims(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	return !apierrors.IsNotFound(err) && (err != nil || ref.UID == "" || pvc.UID == ref.UID)
}

// TagImage gives an image of the node's containerd another name, as a push of the same image
// under a new tag to a registry would: the lab has none, and its pods never pull.
func (l *Lab) TagImage(ctx context.Context, image, tag string) error {
	return l.ctr(ctx, "images", "tag", "--force", image, tag)
}
