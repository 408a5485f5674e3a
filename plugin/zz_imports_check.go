package plugin

import (
	_ "k8s.io/kubectl/pkg/cmd/apply"
	_ "k8s.io/kubectl/pkg/cmd/attach"
	_ "k8s.io/kubectl/pkg/cmd/describe"
	_ "k8s.io/kubectl/pkg/cmd/exec"
	_ "k8s.io/kubectl/pkg/cmd/logs"
	_ "k8s.io/kubectl/pkg/cmd/top"
	_ "k8s.io/kubectl/pkg/cmd/get"
	_ "k8s.io/kubectl/pkg/cmd/util"
	_ "k8s.io/kubectl/pkg/describe"
	_ "k8s.io/metrics/pkg/client/clientset/versioned"
)
