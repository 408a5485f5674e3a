package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/test/lab"
)

// TestInstalledFed installs fed as users do, into the lab's install host, whose real node
// runs its pods from the image make image built: the chart with helm on Badger (the lab's
// PersistentVolume), upgraded to a new image tag and rolled back; then kubectl fed init on
// etcd3 with two replicas, whose leader's Pod is deleted (another replica takes the controllers
// over, propagation goes on, nothing twice). Each install serves fed's API
// through the host's aggregator, takes the install host as a member (registered in pull mode,
// its agent a Pod of the same image; then, with two replicas, joined in push mode, since only
// the replica holding an agent's tunnel reaches its member) and propagates Deployments whose
// pods run on the real node, reported Available through the fleet.
//
// The lab's cluster has no pod network, no kube-proxy and no DNS, so every pod there runs on
// the node's network: the chart's hostNetwork, fed-apiserver served on the node's address
// (--bind-address, the Service an ExternalName of that address), the host's apiserver given
// by its loopback address (KUBERNETES_SERVICE_HOST and _PORT, which the kubernetes Service's
// cluster IP would give). The README's install section runs the same commands.
func TestInstalledFed(t *testing.T) {
	if !theLab.RealNode() {
		t.Skip("the lab has no real node (make up NODES=real; make test has one)")
	}
	ctx := context.Background()
	cs, err := theLab.InstallHost.Client()
	if err != nil {
		t.Fatal(err)
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, lab.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	image := fedImage(t, node)
	repository, tag, _ := strings.Cut(image, ":")
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	in := newInstaller(t, root)
	in.uninstall(t) // what an earlier run left

	// The chart's values this cluster needs (the same for helm and init; init sets the image
	// with --image).
	port := strconv.Itoa(theLab.FedPodPort())
	labValues := []string{
		"--set", "hostNetwork=true",
		"--set", "securePort=" + port, "--set", "service.port=" + port,
		"--set", "service.type=ExternalName", "--set", "service.externalName=" + lab.NodeIP,
		"--set", "extraEnv[0].name=KUBERNETES_SERVICE_HOST", "--set", "extraEnv[0].value=127.0.0.1",
		"--set", "extraEnv[1].name=KUBERNETES_SERVICE_PORT", "--set", "extraEnv[1].value=" + strconv.Itoa(theLab.InstallHost.Port),
	}

	t.Run("helm on Badger, upgraded and rolled back", func(t *testing.T) {
		in.dir = t.TempDir()
		t.Cleanup(func() { in.step(t, "uninstall", func() { in.uninstall(t) }) })
		in.step(t, "serving certificate", func() {
			in.run(t, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365", "-subj", "/CN=fed-ca", "-keyout", "ca.key", "-out", "ca.crt")
			in.run(t, "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=fed-apiserver.fed-system.svc",
				"-addext", "subjectAltName=DNS:fed-apiserver.fed-system.svc", "-keyout", "serving.key", "-out", "serving.csr")
			in.run(t, "openssl", "x509", "-req", "-in", "serving.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
				"-days", "365", "-copy_extensions", "copy", "-out", "serving.crt")
		})
		in.step(t, "helm install", func() {
			in.helm(t, append([]string{"install", "fed", in.chart, "--namespace", "fed-system", "--create-namespace",
				"--set", "namespace.create=false",
				"--set-file", "tls.crt=serving.crt", "--set-file", "tls.key=serving.key", "--set-file", "tls.ca=ca.crt",
				"--set", "storage.badger.size=1Gi", "--set", "image.repository=" + repository, "--set", "image.tag=" + tag,
				"--set", "extraArgs={--bind-address=" + lab.NodeIP + "}",
				"--wait", "--timeout", "3m"}, labValues...)...)
			in.available(t)
		})
		pvc := in.kubectl(t, "get", "-n", "fed-system", "pvc", "data-fed-apiserver-0", "-o", "jsonpath={.spec.volumeName}")
		if pvc != lab.FedVolume {
			t.Errorf("fed's database is on volume %q, not the lab's %s", pvc, lab.FedVolume)
		}
		pod := in.fedPods(t)[0]
		in.step(t, "register the install host in pull mode", func() {
			out := in.fed(t, "token", "create", "--print-register-command")
			register := strings.Fields(strings.TrimSpace(out))
			if len(register) < 3 || register[0] != "kubectl" || register[1] != "fed" || register[2] != "register" {
				t.Fatalf("token create printed %q", out)
			}
			in.fed(t, append(register[2:], "--cluster-name", "install", "--agent-image", image, "--wait=false")...)
			// The agent's pod on the node's network too, with its cluster's API server at
			// its loopback address.
			in.kubectl(t, "patch", "-n", "fed-system", "deployment", "fed-agent", "--type=strategic", "-p",
				fmt.Sprintf(`{"spec":{"template":{"spec":{"hostNetwork":true,"containers":[{"name":"fed-agent","env":[`+
					`{"name":"KUBERNETES_SERVICE_HOST","value":"127.0.0.1"},{"name":"KUBERNETES_SERVICE_PORT","value":"%d"}]}]}}}}`, theLab.InstallHost.Port))
			in.kubectl(t, "rollout", "status", "-n", "fed-system", "deployment/fed-agent", "--timeout=2m")
			in.kubectl(t, "wait", "--for=condition=Ready", "cluster/install", "--timeout=2m")
			agent := in.kubectl(t, "get", "-n", "fed-system", "pods", "-l", "app.kubernetes.io/name=fed-agent", "--field-selector=status.phase=Running",
				"-o", "jsonpath={.items[*].spec.nodeName} {.items[*].spec.containers[0].image} {.items[*].spec.hostNetwork}")
			if agent != lab.NodeName+" "+image+" true" {
				t.Errorf("fed-agent's running pod (node, image, host network): %q", agent)
			}
			in.fed(t, "kubeconfig", "-o", "fleet.kubeconfig")
			in.propagate(t, "web")
		})

		before := in.fleetState(t)

		// The new tag is the same image pushed again; the pod template changes, so the
		// StatefulSet replaces its pod, which opens the same volume.
		newTag := tag + "-next"
		if err := theLab.TagImage(ctx, image, repository+":"+newTag); err != nil {
			t.Fatal(err)
		}
		in.step(t, "helm upgrade to "+newTag, func() {
			in.helm(t, "upgrade", "fed", in.chart, "--namespace", "fed-system", "--reuse-values", "--set", "image.tag="+newTag, "--wait", "--timeout", "3m")
			in.available(t)
		})
		upgraded := in.fedPods(t)[0]
		if upgraded.UID == pod.UID || upgraded.Spec.Containers[0].Image != repository+":"+newTag {
			t.Errorf("after the upgrade fed-apiserver's pod is %s (uid %s, was %s)", upgraded.Spec.Containers[0].Image, upgraded.UID, pod.UID)
		}
		if after := in.fleetState(t); after != before {
			t.Errorf("the upgrade lost fed's objects:\nbefore %s\nafter  %s", before, after)
		}
		in.step(t, "propagate after the upgrade", func() { in.propagate(t, "web-2") })
		before = in.fleetState(t)

		in.step(t, "helm rollback", func() {
			in.helm(t, "rollback", "fed", "1", "--namespace", "fed-system", "--wait", "--timeout", "3m")
			in.available(t)
		})
		if back := in.fedPods(t)[0]; back.UID == upgraded.UID || back.Spec.Containers[0].Image != image {
			t.Errorf("after the rollback fed-apiserver's pod is %s (uid %s, was %s)", back.Spec.Containers[0].Image, back.UID, upgraded.UID)
		}
		if after := in.fleetState(t); after != before {
			t.Errorf("the rollback lost fed's objects:\nbefore %s\nafter  %s", before, after)
		}
		in.step(t, "propagate after the rollback", func() { in.propagate(t, "web-3") })
		in.step(t, "delete the templates", func() { in.unpropagate(t) })
		in.step(t, "unregister, helm uninstall", func() {
			in.fed(t, "unregister", "install", "--cluster-kubeconfig", in.kubeconfig)
			in.helm(t, "uninstall", "fed", "--namespace", "fed-system", "--wait")
		})
	})

	t.Run("kubectl fed init on etcd3, the leader's pod deleted", func(t *testing.T) {
		in.dir = t.TempDir()
		t.Cleanup(func() { in.step(t, "uninstall", func() { in.uninstall(t) }) })
		in.step(t, "kubectl fed init", func() {
			in.fed(t, append([]string{"init", "--storage=etcd3", "--etcd-servers=" + theLab.EtcdURL(), "--replicas=2",
				"--image=" + image, "--set", "storage.etcd.prefix=" + installedEtcdPrefix,
				"--set", "extraArgs={--bind-address=" + lab.NodeIP + "}", "--set", "sharePort=true"}, labValues...)...)
			in.available(t)
		})
		if pods := in.fedPods(t); len(pods) != 2 {
			t.Fatalf("%d pods of fed-apiserver run, want 2", len(pods))
		}
		in.step(t, "join the install host, propagate a Deployment", func() {
			in.fed(t, "join", "install", "--cluster-kubeconfig", in.kubeconfig)
			in.fed(t, "kubeconfig", "-o", "fleet.kubeconfig")
			in.propagate(t, "web")
		})

		leader := in.leader(t, "")
		holder := in.kubectl(t, "get", "-n", "fed-system", "lease", "fed-controllers", "-o", "jsonpath={.spec.holderIdentity}")
		var took time.Duration
		var next string
		in.step(t, "delete the leader's pod "+leader, func() {
			deleted := time.Now()
			in.kubectl(t, "delete", "-n", "fed-system", "pod", leader, "--wait=false")
			// The leader gives the Lease up as it stops; the other replica, or the pod
			// replacing the deleted one, takes it.
			waitFor(t, 60*time.Second, func() error {
				now, err := runKubectl(in.kubeconfig, "get", "-n", "fed-system", "lease", "fed-controllers", "-o", "jsonpath={.spec.holderIdentity}")
				if err != nil {
					return err
				}
				if now = strings.TrimSpace(now); now == "" || now == holder {
					return fmt.Errorf("the Lease is held by %q", now)
				}
				holder = now
				return nil
			})
			took = time.Since(deleted)
			next = in.leader(t, holder)
			in.propagate(t, "web-2")
		})
		t.Logf("%s took the controllers over %s after %s's pod was deleted (lease 15s)", next, took.Round(100*time.Millisecond), leader)
		in.kubectl(t, "rollout", "status", "-n", "fed-system", "deployment/fed-apiserver", "--timeout=2m")
		// Nothing twice: one Work per template in the member's execution namespace.
		works := in.kubectl(t, "get", "works", "-n", "fed-es-install", "-o", "name")
		if n := len(strings.Fields(works)); n != 2 {
			t.Errorf("%d Works for 2 templates:\n%s", n, works)
		}
		in.step(t, "delete the templates", func() { in.unpropagate(t) })
		in.step(t, "unjoin", func() { in.fed(t, "unjoin", "install", "--cluster-kubeconfig", in.kubeconfig) })
	})
}

// installedEtcdPrefix is where the etcd3 install keeps fed's objects in the lab's etcd.
const installedEtcdPrefix = "/registry/fed-installed"

// installer runs the commands of an install in a directory of its own, against the
// install host.
type installer struct {
	dir, root, chart, kubeconfig, kubectlFed string
}

func newInstaller(t *testing.T, root string) *installer {
	return &installer{dir: t.TempDir(), root: root, chart: filepath.Join(root, "artifacts", "charts", "fed"),
		kubeconfig: theLab.InstallHost.Kubeconfig, kubectlFed: buildKubectlFed(t)}
}

// step runs one part of the install and logs how long it took.
func (in *installer) step(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	t.Logf("%s: %s", what, time.Since(start).Round(100*time.Millisecond))
}

func (in *installer) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := in.try(name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out
}

func (in *installer) try(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = in.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w\n%s%s", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

func (in *installer) kubectl(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(in.run(t, filepath.Join(in.root, "bin", "kubectl"), append([]string{"--kubeconfig", in.kubeconfig}, args...)...))
}

func (in *installer) fleet(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(in.run(t, filepath.Join(in.root, "bin", "kubectl"), append([]string{"--kubeconfig", "fleet.kubeconfig"}, args...)...))
}

func (in *installer) fed(t *testing.T, args ...string) string {
	t.Helper()
	return in.run(t, in.kubectlFed, append([]string{"--kubeconfig", in.kubeconfig}, args...)...)
}

func (in *installer) helm(t *testing.T, args ...string) string {
	t.Helper()
	return in.run(t, filepath.Join(in.root, "bin", "helm"), append([]string{"--kubeconfig", in.kubeconfig}, args...)...)
}

// available waits until the host serves fed's three APIServices.
func (in *installer) available(t *testing.T) {
	t.Helper()
	in.kubectl(t, "wait", "--for=condition=Available", "--timeout=2m", "apiservice/v1alpha1.cluster.fedhq.io",
		"apiservice/v1alpha1.federation.fedhq.io", "apiservice/v1alpha1.search.fedhq.io")
}

// fedPods are fed-apiserver's running pods, which must run on the real node.
func (in *installer) fedPods(t *testing.T) []corev1.Pod {
	t.Helper()
	cs, err := theLab.InstallHost.Client()
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.CoreV1().Pods("fed-system").List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=fed-apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		if p.Spec.NodeName != lab.NodeName {
			t.Errorf("pod %s runs on %q", p.Name, p.Spec.NodeName)
		}
		pods = append(pods, p)
	}
	return pods
}

// propagate applies the README's Deployment (testdata/install-web.yaml, renamed) with its
// policy sending it to the install host, and waits until the fleet reports it Available.
func (in *installer) propagate(t *testing.T, name string) {
	t.Helper()
	manifest, err := os.ReadFile(filepath.Join("testdata", "install-web.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.ReplaceAll(string(manifest), "web", name)
	if err := os.WriteFile(filepath.Join(in.dir, name+".yaml"), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	in.fleet(t, "apply", "-f", name+".yaml")
	in.fleet(t, "wait", "-n", "demo", "--for=condition=Available", "deployment/"+name, "--timeout=2m")
	got := in.kubectl(t, "get", "-n", "demo", "pods", "-l", "app="+name, "-o", "jsonpath={.items[*].spec.nodeName} {.items[*].status.phase}")
	if got != lab.NodeName+" Running" {
		t.Errorf("the pod of %s in the install host: %q", name, got)
	}
}

// unpropagate deletes the fleet's namespace demo and waits until its copy in the install
// host is gone with its pods.
func (in *installer) unpropagate(t *testing.T) {
	t.Helper()
	in.fleet(t, "delete", "namespace", "demo", "--timeout=2m")
	waitFor(t, 2*time.Minute, func() error {
		if out, _ := runKubectl(in.kubeconfig, "get", "namespace", "demo", "--ignore-not-found", "-o", "name"); out != "" {
			return fmt.Errorf("the install host still has %s", out)
		}
		return nil
	})
}

// fleetState names fed's objects with their UIDs: templates, policies, bindings, Works.
func (in *installer) fleetState(t *testing.T) string {
	t.Helper()
	templates := in.fleet(t, "get", "-n", "demo", "deployments,propagationpolicies", "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.uid} {end}`)
	bindings := in.kubectl(t, "get", "-n", "demo", "resourcebindings", "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.uid} {end}`)
	works := in.kubectl(t, "get", "-A", "works", "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.uid} {end}`)
	return templates + bindings + works
}

// leader finds which pod of fed-apiserver runs the controllers (under identity, when not
// empty), by their logs: the pod that took the Lease may not be reported Running yet.
func (in *installer) leader(t *testing.T, identity string) string {
	t.Helper()
	var leader string
	waitFor(t, 30*time.Second, func() error {
		names, err := runKubectl(in.kubeconfig, "get", "pods", "-n", "fed-system", "-l", "app.kubernetes.io/name=fed-apiserver", "-o", "name")
		if err != nil {
			return err
		}
		for _, name := range strings.Fields(names) {
			logs, _ := runKubectl(in.kubeconfig, "logs", "-n", "fed-system", name)
			for _, line := range strings.Split(logs, "\n") {
				if strings.Contains(line, "Holding the Lease") && strings.Contains(line, identity) {
					leader = strings.TrimPrefix(name, "pod/")
					return nil
				}
			}
		}
		return fmt.Errorf("no pod of fed-apiserver says it holds the Lease %s", identity)
	})
	return leader
}

// uninstall removes whatever an install of the test left, quietly: the workloads, the chart
// by either tool, fed's data (the namespace, the Badger volume's claim, the etcd prefix), and
// makes the lab's volume available again.
func (in *installer) uninstall(t *testing.T) {
	_, _ = runKubectl(in.kubeconfig, "delete", "namespace", "demo", "--ignore-not-found", "--wait=false")
	_, _ = in.try(filepath.Join(in.root, "bin", "helm"), "--kubeconfig", in.kubeconfig, "uninstall", "fed", "--namespace", "fed-system", "--ignore-not-found", "--wait")
	_, _ = in.try(in.kubectlFed, "--kubeconfig", in.kubeconfig, "deinit", "--delete-data")
	_, _ = runKubectl(in.kubeconfig, "delete", "clusterrolebinding", "fed-agent", "--ignore-not-found")
	waitFor(t, 2*time.Minute, func() error {
		out, err := runKubectl(in.kubeconfig, "get", "namespace", "fed-system", "demo", "--ignore-not-found", "-o", "name")
		if err == nil && out != "" {
			return fmt.Errorf("still there: %s", out)
		}
		return err
	})
	etcd, err := theLab.EtcdClient()
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := etcd.Delete(ctx, installedEtcdPrefix+"/", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	if err := theLab.EnsureFedVolume(ctx); err != nil {
		t.Fatal(err)
	}
}
