package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// runOnce runs go test -json once and collects what it says. Its error is
// for what stops the stress run itself (go missing, a log that cannot be
// written); a failing suite is in the result.
func runOnce(ctx context.Context, n int, o options) (runResult, error) {
	log := io.Discard
	if o.logs != "" {
		f, err := os.Create(filepath.Join(o.logs, fmt.Sprintf("run-%02d.log", n)))
		if err != nil {
			return runResult{}, err
		}
		defer f.Close()
		log = f
	}
	cmd := exec.CommandContext(ctx, o.goCmd, append([]string{"test", "-json"}, o.goTest...)...)
	// Its own process group, so that an interrupt reaches the test binaries
	// that go test started too, not go alone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return runResult{}, err
	}
	collected := make(chan error, 1)
	var s suite
	go func() {
		var err error
		s, err = collect(pr, log)
		_, _ = io.Copy(io.Discard, pr) // after an error, let go test finish
		collected <- err
	}()
	exitErr := cmd.Wait()
	pw.Close()
	collectErr := <-collected
	if ctx.Err() != nil {
		// Whatever of the group outlived the interrupt and WaitDelay.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exit *exec.ExitError
	if exitErr != nil && !errors.As(exitErr, &exit) {
		return runResult{}, fmt.Errorf("go test: %w", exitErr)
	}
	r := runResult{n: n, elapsed: time.Since(start), load: loadAverage(), suite: s}
	if exit != nil {
		r.exitErr = exit
	}
	return r, collectErr
}

// loadAverage is the one-minute load average, or "?" off Linux.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
