package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedhq/fed/test/lab"
)

// proxyKubeconfig writes a copy of kubeconfig whose server is the clusters/NAME/proxy path
// on the host: plain kubectl then talks to the member through fed.
func proxyKubeconfig(t *testing.T, kubeconfig, cluster string) string {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = strings.TrimSuffix(c.Server, "/") + "/apis/cluster.fedhq.io/v1alpha1/clusters/" + cluster + "/proxy"
	}
	path := filepath.Join(t.TempDir(), cluster+"-proxy.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClusterProxy(t *testing.T) {
	t.Parallel()
	// The lab joined member2 as member2 with kubectl fed join.
	m := theLab.Member("member2")
	name := m.Name
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000)
	marker := "only-in-member2-" + suffix
	kubectl(t, m.Kubeconfig, "create", "namespace", marker)
	t.Cleanup(func() { _, _ = runKubectl(m.Kubeconfig, "delete", "namespace", marker, "--wait=false") })
	path := "/apis/cluster.fedhq.io/v1alpha1/clusters/" + name + "/proxy/api/v1/namespaces"

	t.Run("admin lists the member's namespaces", func(t *testing.T) {
		out := kubectl(t, theLab.Host.Kubeconfig, "get", "--raw", path)
		if !strings.Contains(out, `"name":"`+marker+`"`) {
			t.Errorf("the proxy's namespace list lacks the member's %s: %.300s", marker, out)
		}
	})

	t.Run("no right on clusters/proxy in the host is 403 from the host", func(t *testing.T) {
		carol, err := theLab.Host.UserKubeconfig("carol")
		if err != nil {
			t.Fatal(err)
		}
		_, err = runKubectl(carol, "get", "--raw", path)
		if err == nil || !strings.Contains(err.Error(), "Forbidden") || !strings.Contains(err.Error(), "clusters/proxy") {
			t.Errorf("carol: %v, want Forbidden on clusters/proxy", err)
		}
	})

	t.Run("proxy right but no member right is the member's 403", func(t *testing.T) {
		dave, err := theLab.Host.UserKubeconfig("dave")
		if err != nil {
			t.Fatal(err)
		}
		role := "e2e-proxy-" + suffix
		kubectl(t, theLab.Host.Kubeconfig, "create", "clusterrole", role, "--verb=get,list,create,update,patch,delete", "--resource=clusters.cluster.fedhq.io/proxy")
		kubectl(t, theLab.Host.Kubeconfig, "create", "clusterrolebinding", role, "--clusterrole="+role, "--user=dave")
		t.Cleanup(func() {
			_, _ = runKubectl(theLab.Host.Kubeconfig, "delete", "clusterrolebinding", role)
			_, _ = runKubectl(theLab.Host.Kubeconfig, "delete", "clusterrole", role)
		})
		var out string
		waitFor(t, 10*time.Second, func() error {
			_, err := runKubectl(dave, "get", "--raw", path)
			if err == nil {
				return fmt.Errorf("dave listed the member's namespaces without a right there")
			}
			out = err.Error()
			if !strings.Contains(out, `User "dave" cannot list resource "namespaces"`) {
				return fmt.Errorf("not the member's refusal yet: %s", out)
			}
			return nil
		})
		// With a right in the member, the same request passes.
		kubectl(t, m.Kubeconfig, "create", "clusterrolebinding", role, "--clusterrole=view", "--user=dave")
		t.Cleanup(func() { _, _ = runKubectl(m.Kubeconfig, "delete", "clusterrolebinding", role) })
		waitFor(t, 10*time.Second, func() error {
			_, err := runKubectl(dave, "get", "--raw", path)
			return err
		})
	})

	t.Run("kubectl exec, logs and apply through the proxy", func(t *testing.T) {
		kc := proxyKubeconfig(t, theLab.Host.Kubeconfig, name)
		dep := "proxied-" + suffix
		kubectl(t, kc, "create", "deployment", dep, "--image", "nginx", "--replicas", "1")
		t.Cleanup(func() { _, _ = runKubectl(m.Kubeconfig, "delete", "deployment", dep, "--wait=false") })
		var pod string
		waitFor(t, 30*time.Second, func() error {
			out, err := runKubectl(kc, "get", "pods", "-l", "app="+dep, "--field-selector=status.phase=Running", "-o", "jsonpath={.items[0].metadata.name}")
			if err != nil || out == "" {
				return fmt.Errorf("no running pod yet: %v", err)
			}
			pod = out
			return nil
		})
		out := kubectl(t, kc, "exec", pod, "--", "sh", "-c", "echo exec-through-fed")
		if strings.TrimSpace(out) != "exec-through-fed" {
			t.Errorf("exec through the proxy printed %q", out)
		}
		logs := kubectl(t, kc, "logs", pod)
		if !strings.Contains(logs, "member2: log line 1") {
			t.Errorf("logs through the proxy: %q", logs)
		}

		// logs -f streams: the lines arrive while the request stays open.
		root, err := lab.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		follow := exec.CommandContext(ctx, filepath.Join(root, "bin", "kubectl"), "--kubeconfig", kc, "logs", "-f", pod)
		stdout, err := follow.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := follow.Start(); err != nil {
			t.Fatal(err)
		}
		scanner := bufio.NewScanner(stdout)
		seen := 0
		for seen < 5 && scanner.Scan() {
			if strings.Contains(scanner.Text(), "member2: log line") {
				seen++
			}
		}
		if seen < 5 {
			t.Errorf("logs -f through the proxy streamed %d of 5 lines (%v)", seen, scanner.Err())
		}
		// Having sent the log, the stream stays open: following, not a plain read.
		exited := make(chan error, 1)
		go func() { exited <- follow.Wait() }()
		select {
		case err := <-exited:
			t.Errorf("logs -f ended by itself (%v); it should keep following", err)
		case <-time.After(2 * time.Second):
			_ = follow.Process.Kill()
			<-exited
		}
	})
}
