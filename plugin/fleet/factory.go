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
	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// NewMemberFactory is a kubectl factory on the member cluster() names when a client is made.
// As kubectl's, its REST config has the defaults of the core API (MatchVersionFlags sets
// them), which kubectl's commands expect.
func NewMemberFactory(configFlags *genericclioptions.ConfigFlags, cluster func() string) cmdutil.Factory {
	return cmdutil.NewFactory(cmdutil.NewMatchVersionFlags(NewMemberGetter(configFlags, cluster)))
}
