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

// Package buildinfo is the version of the kubectl-fed binary: set when building it, or what
// Go recorded in it. kubectl fed version prints it; init and register pick fed's image tag
// from it.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

// The version of kubectl-fed, set when building it:
//
//	go build -ldflags "-X github.com/fedhq/fed/plugin/buildinfo.gitVersion=v0.1.0 -X github.com/fedhq/fed/plugin/buildinfo.gitCommit=$(git rev-parse HEAD)"
//
// The Makefile (make fed-bin, make release) does so from git describe. A plain go build
// reports "dev" and the commit Go recorded in the binary, if any.
var (
	gitVersion   = ""
	gitCommit    = ""
	gitTreeState = ""
	buildDate    = ""
)

// Version is the version of this kubectl-fed binary.
func Version() apimachineryversion.Info {
	v := apimachineryversion.Info{
		GitVersion:   gitVersion,
		GitCommit:    gitCommit,
		GitTreeState: gitTreeState,
		BuildDate:    buildDate,
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
	if v.GitVersion == "" {
		v.GitVersion = "dev"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && v.GitCommit == "":
				v.GitCommit = s.Value
			case s.Key == "vcs.modified" && v.GitTreeState == "":
				v.GitTreeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
			case s.Key == "vcs.time" && v.BuildDate == "":
				v.BuildDate = s.Value
			}
		}
	}
	if major, minor, ok := MajorMinor(v.GitVersion); ok {
		v.Major, v.Minor = major, minor
	}
	return v
}

// MajorMinor splits "v1.2.3-rc.1" into "1" and "2".
func MajorMinor(v string) (string, string, bool) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 || parts[0] == "" || strings.TrimLeft(parts[0], "0123456789") != "" {
		return "", "", false
	}
	minor := parts[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i]
	}
	if minor == "" {
		return "", "", false
	}
	return parts[0], minor, true
}
