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
	return c.registerAggregated(ctx, metricsService, c.MetricsPort, schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"})
}

// registerAggregated makes the member forward the group versions to a server of the lab on
// port: a Service of type ExternalName pointing at localhost, and an APIService for each,
// trusting the member's CA (which issued the server's certificate).
func (c *Cluster) registerAggregated(ctx context.Context, service string, port int, gvs ...schema.GroupVersion) error {
	cs, err := c.Client()
	if err != nil {
		return err
	}
	p := int32(port)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: service, Namespace: metricsNamespace},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "localhost",
			Ports:        []corev1.ServicePort{{Name: "https", Port: p, TargetPort: intstr.FromInt32(p)}},
		},
	}
	services := cs.CoreV1().Services(metricsNamespace)
	if err := createOrUpdate(ctx, svc, services.Get, services.Create, services.Update); err != nil {
		return fmt.Errorf("%s: %s service: %w", c.Name, service, err)
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
	for i, gv := range gvs {
		as := &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
			Spec: apiregistrationv1.APIServiceSpec{
				Group:                gv.Group,
				Version:              gv.Version,
				Service:              &apiregistrationv1.ServiceReference{Namespace: metricsNamespace, Name: service, Port: &p},
				CABundle:             caPEM,
				GroupPriorityMinimum: 100,
				// The first version given is preferred.
				VersionPriority: int32(100 - i),
			},
		}
		apiservices := agg.ApiregistrationV1().APIServices()
		if err := createOrUpdate(ctx, as, apiservices.Get, apiservices.Create, apiservices.Update); err != nil {
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

// aggregatedAvailable reports nil when the member's APIServices of the group versions are
// Available and the member's discovery lists each.
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
		for _, cond := range as.Status.Conditions {
			if cond.Type == apiregistrationv1.Available && cond.Status != apiregistrationv1.ConditionTrue {
				return fmt.Errorf("%s: APIService %s not available: %s: %s", c.Name, as.Name, cond.Reason, cond.Message)
			}
		}
		if _, err := cs.Discovery().ServerResourcesForGroupVersion(gv.String()); err != nil {
			return fmt.Errorf("%s: %s: %w", c.Name, gv, err)
		}
	}
	return nil
}
