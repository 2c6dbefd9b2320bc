//go:build e2e

// Package e2e holds the integration tests (client-go and kubectl against the
// dev control plane) and the Playwright journeys (Chromium against the
// console). One dev control plane and one console serve the whole package.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/tabula-console/tabula/e2e/aggregated"
	"github.com/tabula-console/tabula/e2e/harness"
)

// env is what every test in the package shares.
var env struct {
	cluster *harness.DevCluster
	// second is the fleet's second dev control plane (see fleet_test.go).
	second *harness.DevCluster
	// kubeconfig is the console's: the contexts of both clusters.
	kubeconfig string
	console    *harness.Console
	pw         *playwright.Playwright
	browser    playwright.Browser
	artifacts  string

	// aggregated serves ops.tabula.dev through the aggregation layer.
	aggregated *aggregated.Running

	// oidc is the provider kube-apiserver trusts (issuer, client ID, CA);
	// journeys queue their users on it.
	oidc *harness.MockOIDC
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := setUp(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup failed:", err)
		tearDown()
		return 1
	}
	code := m.Run()
	tearDown()
	return code
}

func setUp(ctx context.Context) error {
	artifacts, err := filepath.Abs(envOr("TABULA_E2E_ARTIFACTS", "test-artifacts"))
	if err != nil {
		return err
	}
	env.artifacts = artifacts
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		return err
	}
	dataDir, err := os.MkdirTemp("", "tabula-e2e-devcluster-")
	if err != nil {
		return err
	}
	// The provider comes first so kube-apiserver can be told its issuer.
	env.oidc, err = harness.StartMockOIDC(ctx, harness.MockOIDCOptions{Dir: filepath.Join(dataDir, "oidc"), EndSession: true})
	if err != nil {
		return fmt.Errorf("starting the mock OIDC provider: %w", err)
	}
	fmt.Fprintf(os.Stderr, "e2e: mock OIDC provider at %s\n", env.oidc.Issuer())
	start := time.Now()
	env.cluster, err = harness.StartDevCluster(ctx, harness.DevClusterOptions{DataDir: dataDir, Seed: true, OIDC: env.oidc.Trust()})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: dev control plane ready in %s (%s)\n", time.Since(start).Round(time.Millisecond), env.cluster.Kubeconfig)
	env.aggregated, err = aggregated.Register(ctx, env.cluster.Kubeconfig, env.cluster.DataDir)
	if err != nil {
		return fmt.Errorf("registering the aggregated API: %w", err)
	}

	// The fleet's second cluster starts now, while Chromium does (which
	// listens on no port), rather than beside the first, which would save
	// about 5 s: devcluster picks free ports and releases them before its
	// components bind them (metrics-server seconds later), and a second
	// picker at that moment takes one of them: in 0.8 % of 20,000 tries
	// here, a failed start once in about 130 runs.
	secondDir, err := os.MkdirTemp("", "tabula-e2e-second-")
	if err != nil {
		return err
	}
	second := make(chan error, 1)
	go func() {
		began := time.Now()
		dc, err := startSecond(ctx, secondDir)
		env.second = dc
		if err == nil {
			fmt.Fprintf(os.Stderr, "e2e: second dev control plane ready and seeded in %s (%s)\n", time.Since(began).Round(time.Millisecond), dc.Kubeconfig)
		}
		second <- err
	}()
	errBrowser := startBrowser()
	if err := <-second; err != nil {
		if env.second == nil {
			_ = os.RemoveAll(secondDir)
		}
		return err
	}
	if errBrowser != nil {
		return errBrowser
	}
	env.kubeconfig = filepath.Join(dataDir, "console.kubeconfig")
	if err := harness.WriteMergedKubeconfig(env.kubeconfig, consoleContexts(env.cluster.Kubeconfig, env.second.Kubeconfig)...); err != nil {
		return fmt.Errorf("writing the console's kubeconfig: %w", err)
	}
	env.console, err = harness.StartConsole(ctx, dataDir, env.kubeconfig)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: console at %s, %s after the start\n", env.console.URL, time.Since(start).Round(time.Millisecond))

	return nil
}

// startBrowser starts Playwright's driver and Chromium.
func startBrowser() error {
	var err error
	// The driver directory comes from PLAYWRIGHT_DRIVER_PATH (see the Makefile);
	// nothing is downloaded.
	env.pw, err = playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		return fmt.Errorf("starting playwright: %w", err)
	}
	env.browser, err = env.pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(envOr("TABULA_E2E_CHROMIUM", "/usr/bin/chromium")),
		Headless:       playwright.Bool(true),
		Args: []string{
			"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
			// Trust the mock OIDC provider's certificate, and only it.
			"--ignore-certificate-errors-spki-list=" + env.oidc.SPKIHash(),
		},
	})
	if err != nil {
		return fmt.Errorf("launching chromium: %w", err)
	}
	return nil
}

func tearDown() {
	if env.browser != nil {
		_ = env.browser.Close()
	}
	if env.pw != nil {
		_ = env.pw.Stop()
	}
	if env.console != nil {
		if err := env.console.Stop(10 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: console stop:", err)
		}
	}
	if env.aggregated != nil {
		if err := env.aggregated.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: aggregated API close:", err)
		}
	}
	if env.second != nil {
		if err := env.second.Stop(30 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: second dev control plane stop:", err)
		}
		if os.Getenv("TABULA_E2E_KEEP") == "" {
			_ = os.RemoveAll(env.second.DataDir)
		}
	}
	if env.cluster != nil {
		if err := env.cluster.Stop(30 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: dev control plane stop:", err)
		}
		if os.Getenv("TABULA_E2E_KEEP") == "" {
			_ = os.RemoveAll(env.cluster.DataDir)
		}
	}
	if env.oidc != nil {
		if err := env.oidc.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: mock OIDC provider stop:", err)
		}
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
