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

package fleet

import (
	"strings"
	"testing"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func TestFleetServer(t *testing.T) {
	tests := []struct {
		name    string
		cluster clientcmdapi.Cluster
		want    string
	}{
		{name: "host and port", cluster: clientcmdapi.Cluster{Server: "https://10.0.0.1:6443"}, want: "https://10.0.0.1:6443" + fleetPath},
		{name: "trailing slash", cluster: clientcmdapi.Cluster{Server: "https://10.0.0.1:6443/"}, want: "https://10.0.0.1:6443" + fleetPath},
		{name: "path prefix", cluster: clientcmdapi.Cluster{Server: "https://rancher.example.com/k8s/clusters/c-x7k2p"}, want: "https://rancher.example.com/k8s/clusters/c-x7k2p" + fleetPath},
		{name: "path prefix and trailing slash", cluster: clientcmdapi.Cluster{Server: "https://proxy.example.com/api/host//"}, want: "https://proxy.example.com/api/host" + fleetPath},
		{name: "escaped path prefix", cluster: clientcmdapi.Cluster{Server: "https://proxy.example.com/a%2Fb/"}, want: "https://proxy.example.com/a%2Fb" + fleetPath},
		{name: "no scheme, with a CA", cluster: clientcmdapi.Cluster{Server: "10.0.0.1:6443", CertificateAuthorityData: []byte("ca")}, want: "https://10.0.0.1:6443" + fleetPath},
		{name: "no scheme, plain", cluster: clientcmdapi.Cluster{Server: "localhost:8080"}, want: "http://localhost:8080" + fleetPath},
		{name: "already the fleet", cluster: clientcmdapi.Cluster{Server: "https://10.0.0.1:6443" + fleetPath + "/"}, want: "https://10.0.0.1:6443" + fleetPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Server(&tt.cluster)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Server(%q) = %q, want %q", tt.cluster.Server, got, tt.want)
			}
			if _, rest, _ := strings.Cut(got, "://"); strings.Contains(rest, "//") {
				t.Errorf("double slash in %q", got)
			}
		})
	}
	if _, err := Server(&clientcmdapi.Cluster{Server: "10.0.0.1:6443/prefix"}); err == nil {
		t.Error("a host:port with a path was accepted")
	}
}
