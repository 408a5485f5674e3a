package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fedhq/fed/test/lab"
)

// fedImage is the name of fed's image on the lab's real node, as its kubelet reports the
// images it has; the test fails when make image did not put one there.
func fedImage(t *testing.T, node *corev1.Node) string {
	t.Helper()
	for _, img := range node.Status.Images {
		for _, name := range img.Names {
			if strings.Contains(name, "fed-apiserver:") {
				return name
			}
		}
	}
	t.Fatalf("%s has no image of fed-apiserver (make image builds bin/%s, the lab imports it): %+v", lab.NodeName, lab.FedImageArchive, node.Status.Images)
	return ""
}

// A Pod of fed's image, built offline (make image), runs on the lab's real node as the
// chart runs fed-apiserver: scheduled by the install host's scheduler, as the nonroot user,
// on a read-only root filesystem, with the host's network; its log is read through the
// kubelet.
func TestRealNodeRunsFedImage(t *testing.T) {
	t.Parallel()
	if !theLab.RealNode() {
		t.Skip("the lab has no real node (make up NODES=real; make test has one)")
	}
	cs, err := theLab.InstallHost.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	node, err := cs.CoreV1().Nodes().Get(ctx, lab.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	image := fedImage(t, node)
	ns := fmt.Sprintf("real-node-%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "fed-image", Namespace: ns},
		Spec: corev1.PodSpec{
			HostNetwork:   true,
			NodeSelector:  map[string]string{corev1.LabelHostname: lab.NodeName},
			RestartPolicy: corev1.RestartPolicyNever,
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "fed-apiserver", Image: image, ImagePullPolicy: corev1.PullNever, Args: []string{"--help"},
				SecurityContext: &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
		},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 90*time.Second, func() error {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodSucceeded {
			return fmt.Errorf("pod %s: %s %+v", p.Spec.NodeName, p.Status.Phase, p.Status.ContainerStatuses)
		}
		if p.Spec.NodeName != lab.NodeName || p.Status.PodIP != lab.NodeIP {
			return fmt.Errorf("pod ran on %q with IP %q, want %s and %s", p.Spec.NodeName, p.Status.PodIP, lab.NodeName, lab.NodeIP)
		}
		return nil
	})
	logs, err := cs.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logs), "fed-apiserver serves") {
		t.Errorf("the pod's log is not fed-apiserver's help:\n%s", logs)
	}
}
