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

// Command image builds fed's container image without a container engine or a registry: the
// static binaries fed-apiserver and fed-agent under /usr/local/bin, the nonroot user (65532)
// of /etc/passwd and /etc/group, and the host's CA bundle, in one layer on no base image,
// written as an OCI image layout archive that containerd (ctr images import), podman
// (podman load) and skopeo read. make image runs it:
//
//	go run ./hack/image -o bin/fed-image.tar -name ghcr.io/fedhq/fed-apiserver:dev bin/image/fed-apiserver bin/image/fed-agent
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
)

func main() {
	var o options
	flag.StringVar(&o.Output, "o", "fed-image.tar", "The OCI archive to write.")
	flag.StringVar(&o.Name, "name", "ghcr.io/fedhq/fed-apiserver:dev", "The image's name and tag, as the archive's index names it.")
	flag.StringVar(&o.Platform, "platform", "linux/"+runtime.GOARCH, "The OS/architecture the binaries are built for.")
	flag.StringVar(&o.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "The CA bundle to ship as /etc/ssl/certs/ca-certificates.crt; empty for none.")
	flag.StringVar(&o.Version, "version", "", "The version the image's labels carry (org.opencontainers.image.version).")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: %s [flags] BINARY...\n\nBuilds fed's image of the static BINARYs (the first is the entrypoint) as an OCI archive.\n\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	o.Binaries = flag.Args()
	if err := o.run(); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
