// Command fed-apiserver is fed's extension API server.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/fedhq/fed/apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewCommand(os.Stdout, os.Stderr)))
}
