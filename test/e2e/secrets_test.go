package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedhq/fed/test/lab"
)

// secretToken is the value of the Secrets these tests make; secretTokenB64 is its base64,
// as a Secret's data holds it, and secretTokenData the same without the padding (which
// JSON may escape), to look for.
const secretToken = "hunter2-e2e-token"

var (
	secretTokenB64  = base64.StdEncoding.EncodeToString([]byte(secretToken))
	secretTokenData = strings.TrimRight(secretTokenB64, "=")
)

// noSecretValue fails the test when out shows secretToken, plain or in base64.
func noSecretValue(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(out, secretToken) || strings.Contains(out, secretTokenData) {
		t.Errorf("%s shows the Secret's value:\n%s", what, out)
	}
}

// kubectlOutErr runs the lab's kubectl and returns its standard output and error apart
// (the servers' warnings are on the latter).
func kubectlOutErr(kubeconfig string, args ...string) (string, string, error) {
	root, err := lab.RepoRoot()
	if err != nil {
		return "", "", err
	}
	cmd := exec.Command(filepath.Join(root, "bin", "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return stdout.String(), stderr.String(), err
}

// memberSecrets makes, in namespace ns of a member, a Secret holding secretToken each way
// kubectl makes one: applied (kubectl's last-applied-configuration holds the data),
// created, applied server-side (managedFields name its key), and one created then
// annotated with the token under fed's prefix and another tool's, beside Helm's release
// name. It returns their names.
func memberSecrets(t *testing.T, kubeconfig, ns string) []string {
	t.Helper()
	secret := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: %%s, namespace: %s}\nstringData: {token: %s}\n", ns, secretToken)
	kubectlStdin(t, kubeconfig, fmt.Sprintf(secret, "applied"), "apply", "-f", "-")
	kubectl(t, kubeconfig, "create", "secret", "generic", "created", "-n", ns, "--from-literal=token="+secretToken)
	kubectlStdin(t, kubeconfig, fmt.Sprintf(secret, "server-side"), "apply", "--server-side", "-f", "-")
	kubectl(t, kubeconfig, "create", "secret", "generic", "annotated", "-n", ns, "--from-literal=token="+secretToken)
	kubectl(t, kubeconfig, "annotate", "secret", "annotated", "-n", ns, "federation.fedhq.io/note="+secretToken,
		"openshift.io/token-secret.value="+secretToken, "meta.helm.sh/release-name=shop")
	return []string{"applied", "created", "server-side", "annotated"}
}

// TestSecretValuesStayInMembers: what fed copies back from a member's Secret into the
// fleet (the Work's status, the binding's aggregatedStatus, events) holds nothing of its
// value, even with a customization whose status reflection returns the Secret's data.
func TestSecretValuesStayInMembers(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	m1 := memberKubeconfig("member1")
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	ric := "e2e-secret-status-" + ns
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: %s}
spec:
  target: {apiVersion: v1, kind: Secret}
  customizations:
    statusReflection:
      luaScript: |
        function ReflectStatus(obj)
          return {data = obj.data, annotations = obj.metadata.annotations}
        end
`, ric), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "ric", ric, "--ignore-not-found") })
	kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: tok, annotations: {example.com/token: %[1]s}}
stringData: {token: %[1]s}
`, secretToken), "apply", "-n", ns, "-f", "-")
	kubectlStdin(t, fleet, propagateTo("tok", "v1", "Secret", "member1"), "apply", "-n", ns, "-f", "-")

	expectOutput(t, 30*time.Second, m1, secretTokenB64, "get", "secret", "tok", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.data.token}")
	work := []string{"get", "work", ns + ".tok-secret", "-n", "fed-es-member1", "-o"}
	// Health recorded: the workstatus controller has read the member's Secret.
	expectOutput(t, 30*time.Second, fleet, "Healthy", append(work, "jsonpath={.status.manifestStatuses[0].health}")...)
	binding := []string{"get", "rb", "tok-secret", "-n", ns, "-o"}
	expectOutput(t, 30*time.Second, fleet, "member1:true", append(binding, "jsonpath={range .status.aggregatedStatus[*]}{.clusterName}:{.applied}{end}")...)

	noSecretValue(t, "the Work's status", kubectl(t, fleet, append(work, "jsonpath={.status}")...))
	noSecretValue(t, "the binding", kubectl(t, fleet, append(binding, "json")...))
	noSecretValue(t, "the fleet's events", kubectl(t, fleet, "get", "events", "-n", ns, "-o", "json"))
	out, errOut, err := kubectlOutErr(fleet, "get", "events", "-n", "fed-es-member1", "--field-selector", "involvedObject.name="+ns+".tok-secret", "-o", "json")
	if err != nil {
		t.Fatalf("the Work's events: %v %s", err, errOut)
	}
	noSecretValue(t, "the Work's events", out)
	// The member has the Secret whole, fed's last-applied-configuration of the template not.
	out = kubectl(t, m1, "get", "secret", "tok", "-n", ns, "-o", "json")
	if strings.Contains(out, "last-applied-configuration") {
		t.Errorf("the member's Secret carries the template's last-applied-configuration:\n%s", out)
	}
}
