package e2e

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fedhq/fed/apis/generated/clientset/versioned"
)

// TestRestartNeverForbidden kills fed-apiserver and starts it again while the host's admin
// lists Clusters, through the host and straight at fed-apiserver with the host's client
// certificate: until fed-apiserver trusts the host's client CA it must answer "retry"
// (503), never "forbidden" to system:anonymous, which kubectl, Helm and controllers take as
// final. The soak found it: a policy written a moment after a restart was refused.
func TestRestartNeverForbidden(t *testing.T) {
	direct, err := theLab.FedRESTConfig(theLab.FedServer())
	if err != nil {
		t.Fatal(err)
	}
	viaHost, err := theLab.Host.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]versioned.Interface{}
	for name, cfg := range map[string]*rest.Config{"straight at fed-apiserver": direct, "through the host": viaHost} {
		cfg.QPS, cfg.Burst, cfg.Timeout = 1000, 1000, 5*time.Second
		if clients[name], err = versioned.NewForConfig(cfg); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	defer func() {
		if err := theLab.Up(ctx); err != nil {
			t.Error(err)
		}
	}()
	// The window is half a second or so: three restarts.
	for restart := 1; restart <= 3; restart++ {
		if err := theLab.KillProcess("fed-apiserver"); err != nil {
			t.Fatal(err)
		}
		if err := theLab.StartProcess("fed-apiserver"); err != nil {
			t.Fatal(err)
		}
		answered := map[string]int{}
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && (answered["straight at fed-apiserver"] < 20 || answered["through the host"] < 20); {
			for name, c := range clients {
				_, err := c.ClusterV1alpha1().Clusters().List(ctx, metav1.ListOptions{})
				switch {
				case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
					t.Errorf("restart %d, %s, %d answers after the start: %v", restart, name, answered[name], err)
				case err == nil:
					answered[name]++
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		for name, n := range answered {
			if n < 20 {
				t.Errorf("restart %d, %s: %d answers within a minute of the start", restart, name, n)
			}
		}
	}
}
