package lab

import (
	"context"
	"fmt"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

// Each member runs a metrics-server (sigs.k8s.io/metrics-server, built by the Makefile) that
// scrapes the resource usage kwok simulates for its nodes and pods (kwokMetrics), and serves
// metrics.k8s.io in the member through the aggregation layer, as in a real cluster.

const (
	metricsService   = "metrics-server"
	metricsNamespace = "kube-system"
)

// prepareMetricsServer issues the member's metrics-server a serving certificate from the
// member's CA, which its APIService trusts through its caBundle.
func (c *Cluster) prepareMetricsServer() error {
	svcName := metricsService + "." + metricsNamespace + ".svc"
	_, err := c.ca.issue(c.Dir, "metrics-server", "metrics-server", nil, []string{"localhost", "127.0.0.1", svcName})
	return err
}

func (c *Cluster) metricsServer(l *Lab) *process {
	return l.process(c.Name+"-metrics-server", "metrics-server", []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.MetricsPort),
		"--tls-cert-file=" + c.file("metrics-server.crt"),
		"--tls-private-key-file=" + c.file("metrics-server.key"),
		"--kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		// kwok serves every node's kubelet API on the member's loopback address, with a
		// self-signed certificate; nodeMetricsPath tells the node apart.
		"--kubelet-insecure-tls",
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-port=" + strconv.Itoa(c.KubeletPort),
		// The shortest resolution metrics-server accepts, so tests see usage soon; the
		// request timeout must stay under nine tenths of it.
		"--metric-resolution=10s",
		"--kubelet-request-timeout=5s",
		"--profiling=false",
	})
}

// registerMetricsServer makes the member forward metrics.k8s.io to its metrics-server.
func (c *Cluster) registerMetricsServer(ctx context.Context) error {
	return c.registerAggregated(ctx, aggregated{namespace: metricsNamespace, service: metricsService, port: c.MetricsPort,
		groupPriority: 100, versionPriority: 100}, schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"})
}

// aggregated is a server of the lab that a cluster forwards API groups to.
type aggregated struct {
	namespace, service string
	port               int
	// groupPriority is the APIServices' groupPriorityMinimum; versionPriority that of the
	// first version of each group, the next ones one less each.
	groupPriority, versionPriority int32
}

// registerAggregated makes the cluster forward the group versions to a server of the lab:
// a Service of type ExternalName pointing at localhost, and an APIService for each,
// trusting the cluster's CA (which issued the server's certificate). The namespace must
// exist.
func (c *Cluster) registerAggregated(ctx context.Context, a aggregated, gvs ...schema.GroupVersion) error {
	cs, err := c.Client()
	if err != nil {
		return err
	}
	p := int32(a.port)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: a.service, Namespace: a.namespace},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "localhost",
			// Not "https": a server-side dry run of the install manifests' Service of the same
			// name (its port https, 443) over this one must not make two ports of one name.
			Ports: []corev1.ServicePort{{Name: "lab", Port: p, TargetPort: intstr.FromInt32(p)}},
		},
	}
	services := cs.CoreV1().Services(a.namespace)
	if err := createOrUpdate(ctx, svc, services.Get, services.Create, services.Update); err != nil {
		return fmt.Errorf("%s: %s service: %w", c.Name, a.service, err)
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	agg, err := aggregator.NewForConfig(cfg)
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(c.file("ca.crt"))
	if err != nil {
		return err
	}
	apiservices := agg.ApiregistrationV1().APIServices()
	versions := map[string]int32{}
	for _, gv := range gvs {
		as := &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
			Spec: apiregistrationv1.APIServiceSpec{
				Group:                gv.Group,
				Version:              gv.Version,
				Service:              &apiregistrationv1.ServiceReference{Namespace: a.namespace, Name: a.service, Port: &p},
				CABundle:             caPEM,
				GroupPriorityMinimum: a.groupPriority,
				VersionPriority:      a.versionPriority - versions[gv.Group],
			},
		}
		versions[gv.Group]++
		// The aggregator writes the APIService's status meanwhile: an update may conflict.
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			return createOrUpdate(ctx, as, apiservices.Get, apiservices.Create, apiservices.Update)
		}); err != nil {
			return fmt.Errorf("%s: APIService %s: %w", c.Name, as.Name, err)
		}
	}
	return nil
}

// metricsAvailable reports nil when the member serves metrics.k8s.io through its
// metrics-server. Usage appears a scrape or two later (metric-resolution).
func (c *Cluster) metricsAvailable(ctx context.Context) error {
	return c.aggregatedAvailable(ctx, schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"})
}

// aggregatedAvailable reports nil when the cluster's APIServices of the group versions are
// Available and its discovery, asked as a client would, lists each (the condition may
// still tell of a server that was restarted).
func (c *Cluster) aggregatedAvailable(ctx context.Context, gvs ...schema.GroupVersion) error {
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	agg, err := aggregator.NewForConfig(cfg)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, gv := range gvs {
		as, err := agg.ApiregistrationV1().APIServices().Get(ctx, gv.Version+"."+gv.Group, metav1.GetOptions{})
		if err != nil {
			return err
		}
		available := false
		for _, cond := range as.Status.Conditions {
			if cond.Type == apiregistrationv1.Available {
				if cond.Status != apiregistrationv1.ConditionTrue {
					return fmt.Errorf("%s: APIService %s not available: %s: %s", c.Name, as.Name, cond.Reason, cond.Message)
				}
				available = true
			}
		}
		if !available {
			return fmt.Errorf("%s: APIService %s has no Available condition yet", c.Name, as.Name)
		}
		if _, err := cs.Discovery().ServerResourcesForGroupVersion(gv.String()); err != nil {
			return fmt.Errorf("%s: %s: %w", c.Name, gv, err)
		}
	}
	return nil
}
