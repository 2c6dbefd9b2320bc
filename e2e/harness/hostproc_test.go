package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// fakeProc writes a /proc-like entry: cwd as a symlink, environ and cmdline
// NUL-separated, as the kernel shows them.
func fakeProc(t *testing.T, proc, pid, cwd string, environ, cmdline []string) {
	t.Helper()
	dir := filepath.Join(proc, pid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if cwd != "" {
		if err := os.Symlink(cwd, filepath.Join(dir, "cwd")); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, parts []string) {
		if parts == nil {
			return
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(parts, "\x00")+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("environ", environ)
	write("cmdline", cmdline)
}

func TestProcessesInMatchesCwdOrEnvironment(t *testing.T) {
	proc := t.TempDir()
	const work = "/data/exec/demo/web-1"
	fakeProc(t, proc, "10", work, []string{"HOME=/"}, []string{"bash"})
	fakeProc(t, proc, "11", work+"/src/deep", nil, []string{"make", "-j2"})
	fakeProc(t, proc, "12", "/tmp", []string{"PATH=/bin", ExecDirEnv + "=" + work}, []string{"sleep", "100"})
	fakeProc(t, proc, "13", work+" (deleted)", nil, []string{"sh"})
	// Near misses: a sibling whose name extends the directory's, another
	// pod's marker, a marker only as a prefix, and the scanner itself.
	fakeProc(t, proc, "20", work+"-other", nil, []string{"sh"})
	fakeProc(t, proc, "21", "/tmp", []string{ExecDirEnv + "=/data/exec/demo/web-2"}, []string{"sh"})
	fakeProc(t, proc, "22", "/tmp", []string{ExecDirEnv + "=" + work + "/x"}, []string{"sh"})
	fakeProc(t, proc, "30", work, nil, []string{"go", "test"})
	// A process that is gone between listing and reading: no cmdline.
	fakeProc(t, proc, "40", work, nil, nil)
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}

	got, err := processesIn(proc, work+"/", 30)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range got {
		pids = append(pids, p.PID)
	}
	if want := []int{10, 11, 12, 13}; !slices.Equal(pids, want) {
		t.Fatalf("pids %v, want %v (%v)", pids, want, got)
	}
	if !slices.Equal(got[1].Cmdline, []string{"make", "-j2"}) || got[1].Cwd != work+"/src/deep" {
		t.Errorf("process 11 = %+v", got[1])
	}
	if got[3].Cwd != work {
		t.Errorf("a deleted cwd reads %q, want %q", got[3].Cwd, work)
	}
}

func TestProcessConditionsSeeARealProcessComeAndLeave(t *testing.T) {
	dir := t.TempDir()
	var procs []HostProcess
	if err := ProcessesFoundIn(dir, &procs)(); err == nil {
		t.Fatalf("ProcessesFoundIn holds in an empty directory: %v", procs)
	}
	if err := NoProcessesIn(dir)(); err != nil {
		t.Fatalf("NoProcessesIn in an empty directory: %v", err)
	}

	cmd := exec.Command("sleep", "60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The child is in dir from its chdir, before its exec: until then its
	// command line is the test's, or empty. Wait for the exec too.
	apitest.WaitFor(t, 5*time.Second, func() error {
		if err := ProcessesFoundIn(dir, &procs)(); err != nil {
			return err
		}
		if len(procs) != 1 || procs[0].PID != cmd.Process.Pid || !slices.Equal(procs[0].Cmdline, []string{"sleep", "60"}) {
			return fmt.Errorf("processes in %s: %v, want sleep 60 as %d", dir, procs, cmd.Process.Pid)
		}
		return nil
	})
	if err := NoProcessesIn(dir)(); err == nil || !strings.Contains(err.Error(), "sleep 60") {
		t.Fatalf("NoProcessesIn with sleep running: %v, want an error naming it", err)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	apitest.WaitFor(t, 5*time.Second, NoProcessesIn(dir))
}

func TestPodWorkDir(t *testing.T) {
	dc := &DevCluster{ExecDir: "/data/exec"}
	if got := dc.PodWorkDir("demo", "web-1"); got != "/data/exec/demo/web-1" {
		t.Errorf("PodWorkDir = %q", got)
	}
	if got := dc.SharedWorkDir(); got != "/data/exec/_shared" {
		t.Errorf("SharedWorkDir = %q", got)
	}
}
