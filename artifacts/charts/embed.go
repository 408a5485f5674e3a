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

// Package charts holds fed's Helm chart, artifacts/charts/fed, in the binaries that install
// it: `kubectl fed init` renders the same chart helm installs and make manifests renders
// artifacts/deploy from, so the install objects have one source.
package charts

import (
	"embed"
	"io/fs"
)

//go:embed all:fed
var files embed.FS

// Fed is the chart artifacts/charts/fed: Chart.yaml at its root, as in the repository
// (.helmignore included; the loader applies it).
func Fed() fs.FS {
	sub, err := fs.Sub(files, "fed")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}
