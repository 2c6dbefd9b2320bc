package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ExecDirEnv is the variable devcluster sets, to the work directory, in the
// environment of every process kwok runs for an exec session; children
// inherit it, so a process is found even after a cd.
const ExecDirEnv = "DEVCLUSTER_EXEC_DIR"

// PodWorkDir is the directory where exec sessions into a pod of the demo
// namespaces (demo, team-a) start, and their HOME. devcluster creates it,
// with the pod's kwok Exec, when the pod appears.
func (dc *DevCluster) PodWorkDir(namespace, pod string) string {
	return filepath.Join(dc.ExecDir, namespace, pod)
}

// SharedWorkDir is where exec sessions start in pods of other namespaces,
// and in a new demo pod until devcluster has configured it.
func (dc *DevCluster) SharedWorkDir() string {
	return filepath.Join(dc.ExecDir, "_shared")
}

// HostProcess is a process on this host.
type HostProcess struct {
	PID     int
	Cmdline []string
	// Cwd is its working directory.
	Cwd string
}

func (p HostProcess) String() string {
	return fmt.Sprintf("%d %q (in %s)", p.PID, strings.Join(p.Cmdline, " "), p.Cwd)
}

// ProcessesIn lists the processes on this host that belong to the exec
// sessions of a work directory: those whose working directory is dir or
// below it, and those whose environment has ExecDirEnv=dir. Processes this
// user may not inspect (another user's, unless the tests run as root) are
// not seen.
func ProcessesIn(dir string) ([]HostProcess, error) {
	return processesIn("/proc", dir, os.Getpid())
}

// ProcessesFoundIn is a condition for apitest.WaitFor: nil once a process
// is in dir (see ProcessesIn), which it then stores in *found.
func ProcessesFoundIn(dir string, found *[]HostProcess) func() error {
	return func() error {
		procs, err := ProcessesIn(dir)
		if err != nil {
			return err
		}
		if len(procs) == 0 {
			return fmt.Errorf("no process in %s", dir)
		}
		*found = procs
		return nil
	}
}

// NoProcessesIn is a condition for apitest.WaitFor: nil once no process is
// in dir (see ProcessesIn), else an error naming those still there.
func NoProcessesIn(dir string) func() error {
	return func() error {
		procs, err := ProcessesIn(dir)
		if err != nil || len(procs) == 0 {
			return err
		}
		lines := make([]string, len(procs))
		for i, p := range procs {
			lines[i] = p.String()
		}
		return fmt.Errorf("%d process(es) still in %s: %s", len(procs), dir, strings.Join(lines, "; "))
	}
}

// processesIn scans proc (a procfs mount) for the processes in dir, leaving
// out self.
func processesIn(proc, dir string, self int) ([]HostProcess, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil, err
	}
	marker := []byte(ExecDirEnv + "=" + dir)
	var found []HostProcess
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		base := filepath.Join(proc, e.Name())
		// Errors mean the process is gone, a zombie, or not ours to see.
		cwd, err := os.Readlink(filepath.Join(base, "cwd"))
		if err == nil {
			cwd = strings.TrimSuffix(cwd, " (deleted)")
		}
		if !(err == nil && within(cwd, dir)) && !hasEnv(filepath.Join(base, "environ"), marker) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(base, "cmdline"))
		if err != nil {
			continue
		}
		found = append(found, HostProcess{PID: pid, Cmdline: strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00"), Cwd: cwd})
	}
	slices.SortFunc(found, func(a, b HostProcess) int { return a.PID - b.PID })
	return found, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// hasEnv reports whether the NUL-separated environ file holds the exact
// entry NAME=value.
func hasEnv(path string, entry []byte) bool {
	raw, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for v := range bytes.SplitSeq(raw, []byte{0}) {
		if bytes.Equal(v, entry) {
			return true
		}
	}
	return false
}
