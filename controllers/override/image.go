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

package override

import (
	"fmt"
	"regexp"
	"strings"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// image is a container image reference [registry/]repository[:tag][@digest].
type image struct {
	registry   string
	repository string
	tag        string
	digest     string
}

var (
	// A path component of a repository: lower-case alphanumerics joined by ".", "_", "__"
	// or runs of "-".
	repositoryComponent = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
	tagPattern          = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	digestPattern       = regexp.MustCompile(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[A-Za-z0-9=_-]{32,}$`)
	registryPattern     = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?$`)
)

// parseImage splits an image reference the way container runtimes do: the first path
// component is the registry when it contains "." or ":", is "localhost", or has upper-case
// letters; otherwise the whole path is the repository (so "test-repo/myapp" has no
// registry).
func parseImage(s string) (image, error) {
	var img image
	if s == "" {
		return img, fmt.Errorf("image reference is empty")
	}
	rest := s
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		img.digest, rest = rest[i+1:], rest[:i]
		if !digestPattern.MatchString(img.digest) {
			return img, fmt.Errorf("image %q: digest %q is not valid", s, img.digest)
		}
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		first := rest[:i]
		if strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first {
			img.registry, rest = first, rest[i+1:]
			if !registryPattern.MatchString(img.registry) {
				return img, fmt.Errorf("image %q: registry %q is not a valid host", s, img.registry)
			}
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		img.tag, rest = rest[i+1:], rest[:i]
		if !tagPattern.MatchString(img.tag) {
			return img, fmt.Errorf("image %q: tag %q is not valid", s, img.tag)
		}
	}
	img.repository = rest
	if rest == "" {
		return img, fmt.Errorf("image %q has no repository", s)
	}
	for _, c := range strings.Split(rest, "/") {
		if !repositoryComponent.MatchString(c) {
			return img, fmt.Errorf("image %q: repository %q is not valid", s, rest)
		}
	}
	return img, nil
}

func (img image) String() string {
	var b strings.Builder
	if img.registry != "" {
		b.WriteString(img.registry)
		b.WriteByte('/')
	}
	b.WriteString(img.repository)
	if img.tag != "" {
		b.WriteByte(':')
		b.WriteString(img.tag)
	}
	if img.digest != "" {
		b.WriteByte('@')
		b.WriteString(img.digest)
	}
	return b.String()
}

// tagOrDigest is the Tag component: the digest when there is one, else the tag.
func (img image) tagOrDigest() string {
	if img.digest != "" {
		return img.digest
	}
	return img.tag
}

// setTagOrDigest sets the Tag component: a value with a ":" is a digest, any other a tag.
func (img *image) setTagOrDigest(v string) {
	img.tag, img.digest = "", ""
	if strings.Contains(v, ":") {
		img.digest = v
	} else {
		img.tag = v
	}
}

// overrideImage changes one component of ref as Karmada does: add appends the value to the
// component (adding it where it is absent, as Registry add "test-repo" turns "myapp:1.0.0"
// into "test-repo/myapp:1.0.0"), replace sets the component whether or not it is present,
// and remove drops it. The result must be a valid reference.
func overrideImage(ref string, o federationv1alpha1.ImageOverrider) (string, error) {
	img, err := parseImage(ref)
	if err != nil {
		return "", err
	}
	op := o.Operator
	switch op {
	case federationv1alpha1.OverriderOpAdd, federationv1alpha1.OverriderOpReplace, federationv1alpha1.OverriderOpRemove:
	default:
		return "", fmt.Errorf("operator %q is not add, remove or replace", op)
	}
	switch o.Component {
	case federationv1alpha1.ImageRegistry:
		img.registry = changeComponent(img.registry, op, o.Value)
	case federationv1alpha1.ImageRepository:
		img.repository = changeComponent(img.repository, op, o.Value)
		if img.repository == "" {
			return "", fmt.Errorf("image %q: the repository cannot be removed", ref)
		}
	case federationv1alpha1.ImageTag:
		img.setTagOrDigest(changeComponent(img.tagOrDigest(), op, o.Value))
	default:
		return "", fmt.Errorf("component %q is not Registry, Repository or Tag", o.Component)
	}
	out := img.String()
	// Reparse to check the result; a registry without "." reads back as part of the
	// repository, which is still a valid reference.
	if _, err := parseImage(out); err != nil {
		return "", fmt.Errorf("overriding %s of image %q gives an invalid reference: %w", o.Component, ref, err)
	}
	return out, nil
}

func changeComponent(current string, op federationv1alpha1.OverriderOperator, value string) string {
	switch op {
	case federationv1alpha1.OverriderOpAdd:
		return current + value
	case federationv1alpha1.OverriderOpReplace:
		return value
	}
	return ""
}
