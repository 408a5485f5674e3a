//go:build !linux

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

package store

import "errors"

// trimMapped bounds the pages of Badger's mapped files in RSS on Linux only.
func trimMapped(string, int64) (bool, error) { return false, errUnsupported }

var errUnsupported = errors.New("bounding mapped pages is supported on Linux only")

func logTrimError(error) {}
