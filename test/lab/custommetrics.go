package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Members with CustomMetrics run the test adapter of sigs.k8s.io/custom-metrics-apiserver
// (bin/custom-metrics-adapter, test/lab/cmd/custom-metrics-adapter), registered for
// custom.metrics.k8s.io and external.metrics.k8s.io like a Prometheus adapter; the others
// serve neither, as many real clusters.

const customMetricsService = "custom-metrics-adapter"

// customMetricsVersions are the group versions the adapter serves, preferred first.
var customMetricsVersions = []schema.GroupVersion{
	{Group: "custom.metrics.k8s.io", Version: "v1beta2"},
	{Group: "custom.metrics.k8s.io", Version: "v1beta1"},
	{Group: "external.metrics.k8s.io", Version: "v1beta1"},
}

func (c *Cluster) prepareCustomMetrics() error {
	svcName := customMetricsService + "." + metricsNamespace + ".svc"
	_, err := c.ca.issue(c.Dir, customMetricsService, customMetricsService, nil, []string{"localhost", "127.0.0.1", svcName})
	return err
}

func (c *Cluster) customMetricsAdapter(l *Lab) *process {
	return l.process(c.Name+"-"+customMetricsService, customMetricsService, []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.CustomMetricsPort),
		"--tls-cert-file=" + c.file(customMetricsService+".crt"),
		"--tls-private-key-file=" + c.file(customMetricsService+".key"),
		"--lister-kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		"--write-address=127.0.0.1:" + strconv.Itoa(c.CustomMetricsWritePort),
	})
}

func (c *Cluster) registerCustomMetrics(ctx context.Context) error {
	return c.registerAggregated(ctx, aggregated{namespace: metricsNamespace, service: customMetricsService, port: c.CustomMetricsPort,
		groupPriority: 100, versionPriority: 100}, customMetricsVersions...)
}

func (c *Cluster) customMetricsAvailable(ctx context.Context) error {
	return c.aggregatedAvailable(ctx, customMetricsVersions...)
}

// WriteCustomMetric sets a custom metric of an object in the member's adapter: resource is
// the object's resource ("pods", "services", "deployments.apps"), namespace "" for a
// cluster-scoped one. The adapter serves it until it is written again.
func (c *Cluster) WriteCustomMetric(ctx context.Context, namespace, resource, name, metric string, value resource.Quantity) error {
	if c.CustomMetricsWritePort == 0 {
		return fmt.Errorf("%s serves no custom metrics", c.Name)
	}
	path := fmt.Sprintf("/write-metrics/%s/%s/%s", resource, name, metric)
	if namespace != "" {
		path = fmt.Sprintf("/write-metrics/namespaces/%s/%s/%s/%s", namespace, resource, name, metric)
	}
	body, err := json.Marshal(value)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(c.CustomMetricsWritePort)+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: writing %s: %s: %s", c.Name, path, resp.Status, msg)
	}
	return nil
}
