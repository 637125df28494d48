package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

type versionCommand struct{ stdout io.Writer }

func (c *versionCommand) Run(_ context.Context, args []string) error {
	if len(args) > 0 {
		return usageError{Err: fmt.Errorf("version takes no arguments")}
	}
	fmt.Fprintf(c.stdout, "hermes-bot %s (%s %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

func buildVersion() string { return cli.BuildVersion(version) }
