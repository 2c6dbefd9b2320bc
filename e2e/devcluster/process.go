package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// child is one supervised process. Its stdout and stderr go to a log file so
// that the terminal (and devcluster's own stdout) stays clean.
type child struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // exit error, valid after done is closed

	mu       sync.Mutex
	stopping bool
}

// startChild starts a process, with env as its whole environment unless env
// is nil. It gets its own process group, so a Ctrl-C on the terminal reaches
// only the supervisor, which stops children in order; and Pdeathsig kills it
// if the supervisor dies without cleaning up.
func startChild(name, logPath string, env []string, path string, args ...string) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logFile, "\n==== %s: starting %s\n", time.Now().Format(time.RFC3339), name)

	cmd := exec.Command(path, args...)
	cmd.Stdin = nil
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	slog.Info("started", "component", name, "pid", cmd.Process.Pid, "log", logPath)
	go func() {
		c.err = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	return c, nil
}

// expectedExit reports whether the child was asked to stop.
func (c *child) expectedExit() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// stop sends SIGTERM and, if the child has not exited within timeout,
// SIGKILL. It returns once the process is gone, and has killed what it left
// in its process group: the commands kwok ran for exec sessions, which
// would otherwise outlive the cluster.
func (c *child) stop(timeout time.Duration) {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	defer func() { _ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }()

	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		slog.Info("stopped", "component", c.name)
	case <-time.After(timeout):
		slog.Warn("did not stop in time, killing", "component", c.name, "timeout", timeout)
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// exitError describes how a child ended.
func (c *child) exitError() error {
	if c.err == nil {
		return fmt.Errorf("%s exited (status 0) unexpectedly; see %s", c.name, c.logPath)
	}
	var ee *exec.ExitError
	if errors.As(c.err, &ee) {
		return fmt.Errorf("%s exited unexpectedly (%s); see %s", c.name, ee.ProcessState, c.logPath)
	}
	return fmt.Errorf("%s: %w; see %s", c.name, c.err, c.logPath)
}
