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

package install

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/ignore"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/fedhq/fed/artifacts/charts"
)

// releaseName is the release name the chart is rendered with (helm install fed …); the
// chart names its objects itself, so it shows only in Helm's own labels, which init leaves
// out.
const releaseName = "fed"

// embeddedChart is the embedded chart artifacts/charts/fed, loaded once.
var embeddedChart = sync.OnceValues(func() (*chart.Chart, error) { return loadChart(charts.Fed()) })

// loadChart loads a chart from fsys, leaving out what its .helmignore lists, as Helm's loader
// of a chart directory does.
func loadChart(fsys fs.FS) (*chart.Chart, error) {
	rules := ignore.Empty()
	if data, err := fs.ReadFile(fsys, ignore.HelmIgnore); err == nil {
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("the chart's %s: %w", ignore.HelmIgnore, err)
		}
	}
	rules.AddDefaults()
	var files []*archive.BufferedFile
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == "." {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if rules.Ignore(name, fi) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		files = append(files, &archive.BufferedFile{Name: name, Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loader.LoadFiles(files)
}

// AppVersion is the embedded chart's appVersion: the tag of fed's images between releases.
func AppVersion() (string, error) {
	ch, err := embeddedChart()
	if err != nil {
		return "", fmt.Errorf("loading the embedded chart: %w", err)
	}
	return ch.Metadata.AppVersion, nil
}

// Render renders the chart with the values of s, checked by its values.schema.json, and
// returns its objects in the order Helm installs them (the Namespace first, the
// APIServices last).
func Render(s Settings) ([]*unstructured.Unstructured, error) {
	vals, err := s.Values()
	if err != nil {
		return nil, err
	}
	return renderValues(vals)
}

func renderValues(vals map[string]any) ([]*unstructured.Unstructured, error) {
	ch, err := embeddedChart()
	if err != nil {
		return nil, fmt.Errorf("loading the embedded chart: %w", err)
	}
	top, err := chartutil.ToRenderValues(ch, vals, common.ReleaseOptions{Name: releaseName, Namespace: Namespace, IsInstall: true, Revision: 1}, nil)
	if err != nil {
		return nil, chartError(err)
	}
	rendered, err := engine.Render(ch, top)
	if err != nil {
		return nil, chartError(err)
	}
	for name := range rendered {
		if !strings.HasSuffix(name, ".yaml") {
			delete(rendered, name) // NOTES.txt
		}
	}
	_, manifests, err := releaseutil.SortManifests(rendered, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		obj, err := decode([]byte(m.Content))
		if err != nil {
			return nil, fmt.Errorf("the chart's %s: %w", m.Name, err)
		}
		if obj != nil {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

// How Helm reports a template's fail (the place, then the chart's own message) and a
// refusal of the chart's values.schema.json (then one "- at '/path': why" line each).
var (
	templateFailure = regexp.MustCompile(`execution error at \([^)]*\): `)
	schemaFailure   = regexp.MustCompile(`(?s)values don't meet the specifications of the schema\(s\) in the following chart\(s\):\s*\S+:\s*`)
)

// chartError reports the chart's refusal of the values: the message of its fail or of its
// values.schema.json, without the engine's template positions.
func chartError(err error) error {
	msg := templateFailure.ReplaceAllString(err.Error(), "")
	msg = strings.TrimSpace(schemaFailure.ReplaceAllString(msg, "values.schema.json: "))
	return fmt.Errorf("the chart artifacts/charts/fed refuses these settings: %s", msg)
}

// decode decodes one YAML document into an object (integers as int64, as the API
// machinery has them), nil for an empty one.
func decode(doc []byte) (*unstructured.Unstructured, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	if s := strings.TrimSpace(string(j)); s == "null" || s == "{}" {
		return nil, nil
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(j); err != nil {
		return nil, err
	}
	return obj, nil
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
