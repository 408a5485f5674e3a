package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// AgentProcess is the name of a member's fed-agent process, for StopProcess and
// KillProcess.
func AgentProcess(member string) string { return member + "-fed-agent" }

func (l *Lab) agentDir(member string) string { return filepath.Join(l.opts.Dir, "agents", member) }

// agentProcess is fed-agent run for a member as its pod would run it: as the service
// account kubectl fed register made there (fed-system/fed-agent, here with a token of it
// rather than a pod's), reading its Secret for the host.
func (l *Lab) agentProcess(member string) *process {
	return l.process(AgentProcess(member), "fed-agent", []string{
		"--kubeconfig=" + filepath.Join(l.agentDir(member), "member.kubeconfig"),
		"--host-secret=fed-system/fed-agent",
		// A shorter Lease than the default 40 s, which the host honours: a stopped agent's
		// cluster is not Ready within about 15 s, and the tests that wait for it are short.
		"--lease-duration=12s",
		"--v=2",
	})
}

// agentProcesses are the members' agents, which run only in tests of pull mode.
func (l *Lab) agentProcesses() []*process {
	var out []*process
	for _, m := range l.Members {
		out = append(out, l.agentProcess(m.Name))
	}
	return out
}

// StartAgent starts fed-agent for a member registered in pull mode with
// `kubectl fed register --install-agent=false`, as a local process (the lab has no
// container runtime to run register's Deployment). It reaches the member with a token of
// the agent's service account.
func (l *Lab) StartAgent(ctx context.Context, member string) error {
	c := l.Member(member)
	if c == nil {
		return fmt.Errorf("the lab has no member %q", member)
	}
	if err := l.writeAgentKubeconfig(ctx, c); err != nil {
		return err
	}
	p := l.agentProcess(member)
	if p.alive() {
		return nil
	}
	return p.start(l.opts.Detach)
}

// StopAgent stops a member's fed-agent (SIGTERM, then SIGKILL after 10 s).
func (l *Lab) StopAgent(member string) error { return l.agentProcess(member).stop(10 * time.Second) }

// AgentRunning says whether a member's fed-agent runs.
func (l *Lab) AgentRunning(member string) bool { return l.agentProcess(member).alive() }

// AgentLog is the path of a member's fed-agent log.
func (l *Lab) AgentLog(member string) string { return l.agentProcess(member).logPath() }

// writeAgentKubeconfig writes a kubeconfig of the member for the agent's service account.
func (l *Lab) writeAgentKubeconfig(ctx context.Context, c *Cluster) error {
	if err := os.MkdirAll(l.agentDir(c.Name), 0o700); err != nil {
		return err
	}
	cs, err := c.Client()
	if err != nil {
		return err
	}
	seconds := int64((48 * time.Hour).Seconds())
	tr, err := cs.CoreV1().ServiceAccounts("fed-system").CreateToken(ctx, "fed-agent",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("a token of %s's service account fed-system/fed-agent (made by kubectl fed register): %w", c.Name, err)
	}
	caPEM, err := os.ReadFile(c.file("ca.crt"))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[c.Name] = &clientcmdapi.Cluster{Server: c.URL(), CertificateAuthorityData: caPEM}
	cfg.AuthInfos["fed-agent"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: "fed-agent"}
	cfg.CurrentContext = c.Name
	return clientcmd.WriteToFile(*cfg, filepath.Join(l.agentDir(c.Name), "member.kubeconfig"))
}
