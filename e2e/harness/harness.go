// Package harness starts the processes the integration and end-to-end tests
// run against: the dev control plane (bin/devcluster) and the console
// (bin/tabula), each as a real child process.
package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// BinDir is where `make build` puts the binaries; TABULA_BIN_DIR overrides it.
func BinDir() (string, error) {
	if dir := os.Getenv("TABULA_BIN_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	// Tests run with the package directory as working directory: e2e/.
	return filepath.Abs(filepath.Join("..", "bin"))
}

// Process is a started child whose output is kept in a log file.
type Process struct {
	cmd     *exec.Cmd
	LogPath string
	done    chan struct{}
	waitErr error
}

// stream names the child output that carries its ready line.
type stream int

const (
	stdout stream = iota
	stderr
)

// start runs bin with args, in the test's environment or, when env is not
// nil, in env alone. The ready stream is returned for reading and copied,
// like the other stream, into logPath.
func start(ctx context.Context, logPath string, ready stream, env []string, bin string, args ...string) (*Process, io.Reader, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, nil, fmt.Errorf("%s is missing (run `make build` first): %w", bin, err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	// The child dies with the test binary even if the test is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pr, pw := io.Pipe()
	piped := io.MultiWriter(logFile, pw)
	if ready == stdout {
		cmd.Stdout, cmd.Stderr = piped, logFile
	} else {
		cmd.Stdout, cmd.Stderr = logFile, piped
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &Process{cmd: cmd, LogPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		pw.CloseWithError(errors.New("process exited"))
		logFile.Close()
		close(p.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Stop(10 * time.Second)
		case <-p.done:
		}
	}()
	return p, pr, nil
}

// Stop sends SIGTERM and waits, killing the process after grace.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		return p.waitErr
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within %s and was killed", p.cmd.Path, grace)
	}
	return p.waitErr
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// waitForLine reads stdout lines until accept returns true, the process
// exits, or the timeout passes. Remaining output is drained in the background.
func waitForLine(p *Process, stdout io.Reader, timeout time.Duration, accept func(string) bool) error {
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		signalled := false
		for sc.Scan() {
			if !signalled && accept(sc.Text()) {
				close(found)
				signalled = true
			}
		}
	}()
	select {
	case <-found:
		return nil
	case <-p.done:
		return fmt.Errorf("%s exited before it was ready (%v); its log is %s:\n%s", p.cmd.Path, p.waitErr, p.LogPath, tail(p.LogPath, 40))
	case <-time.After(timeout):
		return fmt.Errorf("%s was not ready after %s; its log is %s:\n%s", p.cmd.Path, timeout, p.LogPath, tail(p.LogPath, 40))
	}
}

func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// DevCluster is a running dev control plane.
type DevCluster struct {
	*Process
	Kubeconfig string
	Server     string
	DataDir    string
	// Etcd is the embedded etcd's client URL.
	Etcd string
	// ImpersonatorKubeconfig acts as the ServiceAccount
	// tabula-system/tabula-impersonator, which may only impersonate users
	// and groups: the console's identity in OIDC impersonation mode.
	ImpersonatorKubeconfig string
	// ExecDir holds the work directories of exec sessions (see PodWorkDir).
	ExecDir string

	// opts started it; Restart starts it again with them.
	opts DevClusterOptions
}

// DevClusterOptions configure StartDevCluster.
type DevClusterOptions struct {
	DataDir string
	Seed    bool
	Nodes   int
	Pods    int
	// Port is kube-apiserver's port on 127.0.0.1 (devcluster --port); 0
	// picks a free one.
	Port int
	// LogBenchMB > 0 serves a log of that many MiB for pod logbench/big
	// (devcluster --log-bench-mb).
	LogBenchMB int
	// CRDs > 0 adds that many bench CRDs with a few objects each
	// (devcluster --crds).
	CRDs int
	// OIDC, when set, makes kube-apiserver accept that issuer's ID tokens
	// (devcluster --oidc-issuer-url, --oidc-ca-file, --oidc-client-id).
	OIDC *OIDCTrust
	// Timeout bounds the wait for the ready line.
	Timeout time.Duration
	// ReadyTimeout, when set, is devcluster's own --ready-timeout (default
	// 5 min): with many pods, the ready line waits until all are Running.
	ReadyTimeout time.Duration
}

// OIDCTrust is what kube-apiserver needs to accept an issuer's ID tokens.
type OIDCTrust struct {
	IssuerURL string
	CAFile    string
	ClientID  string
}

// StartDevCluster starts bin/devcluster and waits for its ready line.
func StartDevCluster(ctx context.Context, opts DevClusterOptions) (*DevCluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	if opts.Timeout == 0 {
		opts.Timeout = 3 * time.Minute
	}
	args := []string{"--data-dir", opts.DataDir}
	if opts.Port > 0 {
		args = append(args, fmt.Sprintf("--port=%d", opts.Port))
	}
	if opts.Seed {
		args = append(args, "--seed")
	}
	if opts.Nodes > 0 {
		args = append(args, fmt.Sprintf("--nodes=%d", opts.Nodes))
	}
	if opts.Pods > 0 {
		args = append(args, fmt.Sprintf("--pods=%d", opts.Pods))
	}
	if opts.LogBenchMB > 0 {
		args = append(args, fmt.Sprintf("--log-bench-mb=%d", opts.LogBenchMB))
	}
	if opts.CRDs > 0 {
		args = append(args, fmt.Sprintf("--crds=%d", opts.CRDs))
	}
	if opts.ReadyTimeout > 0 {
		args = append(args, "--ready-timeout="+opts.ReadyTimeout.String())
	}
	if o := opts.OIDC; o != nil {
		args = append(args, "--oidc-issuer-url="+o.IssuerURL, "--oidc-client-id="+o.ClientID)
		if o.CAFile != "" {
			args = append(args, "--oidc-ca-file="+o.CAFile)
		}
	}
	if err := os.MkdirAll(opts.DataDir, 0o755); err != nil {
		return nil, err
	}
	p, out, err := start(ctx, filepath.Join(opts.DataDir, "devcluster.out.log"), stdout, nil, filepath.Join(bin, "devcluster"), args...)
	if err != nil {
		return nil, err
	}
	dc := &DevCluster{Process: p, opts: opts}
	err = waitForLine(p, out, opts.Timeout, func(line string) bool {
		var ready struct {
			Ready      bool   `json:"ready"`
			Kubeconfig string `json:"kubeconfig"`
			Server     string `json:"server"`
			DataDir    string `json:"dataDir"`
			Etcd       string `json:"etcd"`
			Imp        string `json:"impersonatorKubeconfig"`
			ExecDir    string `json:"execDir"`
		}
		if json.Unmarshal([]byte(line), &ready) != nil || !ready.Ready {
			return false
		}
		dc.Kubeconfig, dc.Server, dc.DataDir, dc.Etcd = ready.Kubeconfig, ready.Server, ready.DataDir, ready.Etcd
		dc.ImpersonatorKubeconfig, dc.ExecDir = ready.Imp, ready.ExecDir
		return true
	})
	if err != nil {
		_ = p.Stop(10 * time.Second)
		return nil, err
	}
	return dc, nil
}

// Restart starts a stopped dev control plane again, in its place: the same
// data directory (so the same etcd data, certificates and tokens) and the same
// kube-apiserver port, so every kubeconfig written for it, and every client
// built from one, reaches it again. It returns once the new one is ready.
// Other ports (etcd's among them) change. Should another process take the
// port while it is down, the restart fails.
func (dc *DevCluster) Restart(ctx context.Context) error {
	select {
	case <-dc.Done():
	default:
		return errors.New("the dev control plane is still running: stop it first")
	}
	server, err := url.Parse(dc.Server)
	if err != nil {
		return fmt.Errorf("its server URL %q: %w", dc.Server, err)
	}
	port, err := strconv.Atoi(server.Port())
	if err != nil {
		return fmt.Errorf("its server URL %q has no port: %w", dc.Server, err)
	}
	opts := dc.opts
	opts.DataDir, opts.Port = dc.DataDir, port
	// The log of the run that stopped stays beside the new one.
	if err := os.Rename(dc.LogPath, dc.LogPath+".previous"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	again, err := StartDevCluster(ctx, opts)
	if err != nil {
		return err
	}
	*dc = *again
	return nil
}

// Console is a running bin/tabula.
type Console struct {
	*Process
	URL string
}

// StartConsole starts bin/tabula on a free port against kubeconfig.
func StartConsole(ctx context.Context, logDir, kubeconfig string, extraArgs ...string) (*Console, error) {
	return StartConsoleWith(ctx, ConsoleOptions{LogDir: logDir, Args: append([]string{"--kubeconfig", kubeconfig}, extraArgs...)})
}

// ConsoleOptions configure StartConsoleWith.
type ConsoleOptions struct {
	// LogDir receives tabula.log.
	LogDir string
	// Args come after --listen 127.0.0.1:0 --log-format json.
	Args []string
	// Env, when not nil, is the console's whole environment, for tests
	// that must keep the test's own KUBECONFIG, HOME and TABULA_* away.
	Env []string
}

// StartConsoleWith starts bin/tabula on a free port and waits until it
// serves.
func StartConsoleWith(ctx context.Context, opts ConsoleOptions) (*Console, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	args := append([]string{"--listen", "127.0.0.1:0", "--log-format", "json"}, opts.Args...)
	// The console logs to stderr; its "serving" line carries the URL.
	p, out, err := start(ctx, filepath.Join(opts.LogDir, "tabula.log"), stderr, opts.Env, filepath.Join(bin, "tabula"), args...)
	if err != nil {
		return nil, err
	}
	c := &Console{Process: p}
	err = waitForLine(p, out, 30*time.Second, func(line string) bool {
		var rec struct {
			Msg string `json:"msg"`
			URL string `json:"url"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "serving" {
			return false
		}
		c.URL = strings.TrimSuffix(rec.URL, "/")
		return true
	})
	if err != nil {
		_ = p.Stop(10 * time.Second)
		return nil, err
	}
	return c, nil
}

// CompactEtcd compacts the dev control plane's etcd up to its current
// revision, through etcd's JSON gateway, so every older resourceVersion is
// gone: watches from one that skip the watch cache answer 410.
func (dc *DevCluster) CompactEtcd(ctx context.Context) (int64, error) {
	post := func(path, body string, out any) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, dc.Etcd+path, strings.NewReader(body))
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("etcd %s: %s: %s", path, resp.Status, b)
		}
		return json.NewDecoder(resp.Body).Decode(out)
	}
	var rng struct {
		Header struct {
			Revision int64 `json:"revision,string"`
		} `json:"header"`
	}
	if err := post("/v3/kv/range", `{"key":"AA=="}`, &rng); err != nil {
		return 0, err
	}
	rev := rng.Header.Revision
	var ignored map[string]any
	return rev, post("/v3/kv/compaction", fmt.Sprintf(`{"revision":"%d","physical":true}`, rev), &ignored)
}
