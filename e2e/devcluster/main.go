// Command devcluster runs a small but real Kubernetes control plane for
// Tabula's development and end-to-end tests: kube-apiserver with embedded
// etcd, kube-controller-manager, kube-scheduler and kwok (fake nodes and
// pods), all on 127.0.0.1 with free ports.
//
// It is a multi-call binary. Without a component name it is the supervisor:
// it prepares the data directory, starts every component as a child process
// (re-executing itself with a hidden first argument, or running the kwok
// binary), seeds demo content, prints one JSON ready line on stdout and waits
// for SIGINT/SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 {
		if component, ok := lookupComponent(os.Args[1]); ok {
			os.Exit(component(os.Args[2:]))
		}
	}

	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(logger)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if err := run(ctx, opts); err != nil {
		logger.Error("devcluster failed", "err", err)
		stop()
		os.Exit(1)
	}
}
