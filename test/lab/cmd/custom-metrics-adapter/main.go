/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command custom-metrics-adapter serves custom.metrics.k8s.io and external.metrics.k8s.io
// in a member of the lab, as a Prometheus adapter would in a real cluster: the test adapter
// of sigs.k8s.io/custom-metrics-apiserver (its provider, which serves the values written to
// it and a few fixed external metrics) behind the library's own server. Values are written
// with POST http://WRITE-ADDRESS/write-metrics/namespaces/NS/pods/NAME/METRIC and a JSON
// quantity as the body (see the provider's routes).
package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/emicklei/go-restful/v3"
	"k8s.io/component-base/logs"
	"k8s.io/klog/v2"
	basecmd "sigs.k8s.io/custom-metrics-apiserver/pkg/cmd"
	testprovider "sigs.k8s.io/custom-metrics-apiserver/test-adapter/provider"
)

func main() {
	logs.InitLogs()
	defer logs.FlushLogs()

	adapter := &basecmd.AdapterBase{Name: "custom-metrics-adapter"}
	writeAddress := "127.0.0.1:0"
	adapter.Flags().StringVar(&writeAddress, "write-address", writeAddress, "Where the provider takes metric values (HTTP, loopback only in the lab).")
	logs.AddFlags(adapter.Flags())
	if err := adapter.Flags().Parse(os.Args[1:]); err != nil {
		klog.Fatalf("flags: %v", err)
	}
	if err := run(adapter, writeAddress); err != nil {
		klog.Fatal(err)
	}
}

func run(adapter *basecmd.AdapterBase, writeAddress string) error {
	client, err := adapter.DynamicClient()
	if err != nil {
		return err
	}
	mapper, err := adapter.RESTMapper()
	if err != nil {
		return err
	}
	provider, writes := testprovider.NewFakeProvider(client, mapper)
	adapter.WithCustomMetrics(provider)
	adapter.WithExternalMetrics(provider)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	container := restful.NewContainer()
	container.Add(writes)
	l, err := net.Listen("tcp", writeAddress)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: container, ReadHeaderTimeout: 3 * time.Second}
	go func() {
		if err := server.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.Fatalf("the write endpoint: %v", err)
		}
	}()
	defer server.Close()
	return adapter.Run(ctx)
}
