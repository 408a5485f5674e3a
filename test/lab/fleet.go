package lab

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// FleetKubeconfig is the kubeconfig of the fleet API that Up writes: the host admin's
// credentials, and the host's URL followed by the fleet's path, where fed-apiserver serves
// templates that never run in the host.
func (l *Lab) FleetKubeconfig() string { return filepath.Join(l.opts.Dir, "fleet.kubeconfig") }

// writeFleetKubeconfig writes FleetKubeconfig with `kubectl fed kubeconfig`, as a user would,
// replacing the one of an earlier Up.
func (l *Lab) writeFleetKubeconfig(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, filepath.Join(l.opts.BinDir, "kubectl-fed"), "--kubeconfig", l.Host.Kubeconfig,
		"kubeconfig", "-o", l.FleetKubeconfig(), "--overwrite")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("writing the fleet's kubeconfig: %w\n%s", err, out)
	}
	return nil
}
