package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilremotecommand "k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"
)

// Session is one exec or attach: which container, what runs, and the
// streams it is wired to.
type Session struct {
	Namespace, Pod, Container string
	// Command runs in the container (exec); Attach ignores it.
	Command []string
	// Attach joins the container's main process (pods/attach) instead of
	// starting one (pods/exec).
	Attach bool
	TTY    bool
	Stdin  io.Reader // nil: no stdin
	Stdout io.Writer
	Stderr io.Writer // ignored with TTY: a terminal has one output
	// Resize gives the terminal's sizes, the first one before the process
	// starts; nil keeps the server's default. It returns nil when done.
	Resize remotecommand.TerminalSizeQueue
}

// TerminalSize is the size of a terminal, in character cells.
type TerminalSize = remotecommand.TerminalSize

// ExitError is a process that ended with a non-zero exit code.
type ExitError struct{ Code int }

func (e *ExitError) Error() string {
	return fmt.Sprintf("command terminated with exit code %d", e.Code)
}

// Stream runs the session until the process ends, ctx ends, or the
// connection fails. It speaks the WebSocket protocol (v5.channel.k8s.io)
// and falls back to SPDY for servers that cannot upgrade to it, as kubectl
// does; both upgrade over HTTP/1.1, which is the only HTTP that carries a
// 101. It returns nil for exit code 0, an *ExitError for another exit code,
// the server's *apierrors.StatusError when it refused (403, 404, 400 for a
// container that is not running), or the connection's error.
//
// Ending ctx closes the connection at once; the process may live on (kwok
// leaves it running, as do some runtimes), so a caller that wants it gone
// ends it through stdin first (see web/exec).
func (c *Client) Stream(ctx context.Context, s Session) error {
	if err := requireNames(s.Namespace, s.Pod); err != nil {
		return err
	}
	if err := checkNames(s.Container); err != nil {
		return err
	}
	sub := "exec"
	if s.Attach {
		sub = "attach"
	}
	stderr := s.Stderr != nil && !s.TTY
	var opts runtime.Object = &corev1.PodAttachOptions{
		Container: s.Container, Stdin: s.Stdin != nil, Stdout: s.Stdout != nil, Stderr: stderr, TTY: s.TTY,
	}
	if !s.Attach {
		if len(s.Command) == 0 {
			return errors.New("exec: no command")
		}
		opts = &corev1.PodExecOptions{
			Container: s.Container, Stdin: s.Stdin != nil, Stdout: s.Stdout != nil, Stderr: stderr, TTY: s.TTY,
			Command: s.Command,
		}
	}
	// Encoded for core/v1 here: the client is unversioned, on which
	// Request.VersionedParams fails, and Request.URL drops that error.
	params, err := scheme.ParameterCodec.EncodeParameters(opts, corev1.SchemeGroupVersion)
	if err != nil {
		return fmt.Errorf("%s of pod %q: %w", sub, s.Pod, err)
	}
	u := c.rest.Post().AbsPath(podsResource.PathSegments(s.Namespace, s.Pod)...).SubResource(sub).URL()
	u.RawQuery = params.Encode()

	cfg := rest.CopyConfig(c.config)
	// A 101 exists only in HTTP/1.1: never offer h2 on an upgrade, which a
	// proxy in between might pick and then fail the stream.
	cfg.TLSClientConfig.NextProtos = []string{"http/1.1"}
	ws, err := remotecommand.NewWebSocketExecutor(cfg, http.MethodGet, u.String())
	if err != nil {
		return fmt.Errorf("%s of pod %q: %w", sub, s.Pod, err)
	}
	spdy, err := remotecommand.NewSPDYExecutor(cfg, http.MethodPost, u)
	if err != nil {
		return fmt.Errorf("%s of pod %q: %w", sub, s.Pod, err)
	}
	executor, err := remotecommand.NewFallbackExecutor(ws, spdy, shouldFallBack)
	if err != nil {
		return fmt.Errorf("%s of pod %q: %w", sub, s.Pod, err)
	}
	streamOpts := remotecommand.StreamOptions{Stdin: s.Stdin, Stdout: s.Stdout, Tty: s.TTY}
	if stderr {
		streamOpts.Stderr = s.Stderr
	}
	if s.Resize != nil && s.TTY {
		streamOpts.TerminalSizeQueue = s.Resize
	}
	return streamError(executor.StreamWithContext(ctx, streamOpts))
}

// shouldFallBack tries SPDY when the WebSocket upgrade failed for a reason
// SPDY could avoid (an older server, a proxy), not when the server refused
// the request itself with a 4xx Status (401, 403, 404, 429, and 400 for an
// unknown container or a pod without a node): asking twice would get the
// same answer, and through SPDY only as text, which Stream could no longer
// return as the server's Status. (A server older than the WebSocket
// protocol fails the upgrade with a bare 403, no Status, and falls back.)
func shouldFallBack(err error) bool {
	if !httpstream.IsUpgradeFailure(err) && !httpstream.IsHTTPSProxyError(err) {
		return false
	}
	if st, ok := upgradeStatus(err); ok && st.Code >= 400 && st.Code < 500 {
		return false
	}
	return true
}

// upgradeStatus is the server's Status when it refused the upgrade with
// one.
func upgradeStatus(err error) (metav1.Status, bool) {
	var upgrade *httpstream.UpgradeFailureError
	if !errors.As(err, &upgrade) {
		return metav1.Status{}, false
	}
	var status apierrors.APIStatus
	if !errors.As(upgrade.Cause, &status) {
		return metav1.Status{}, false
	}
	return status.Status(), true
}

// exitStatusMessage is how kwok (and other servers that run the command
// as a local process) report an exit code: an InternalError whose message
// ends in Go's *exec.ExitError text, rather than the NonZeroExitCode Status
// a kubelet sends.
var exitStatusMessage = regexp.MustCompile(`exit status (\d{1,3})$`)

// streamError turns what the executors return into Stream's contract.
func streamError(err error) error {
	if err == nil {
		return nil
	}
	var code exec.CodeExitError
	if errors.As(err, &code) {
		return &ExitError{Code: code.Code}
	}
	if st, ok := upgradeStatus(err); ok {
		return &apierrors.StatusError{ErrStatus: st}
	}
	// The v4/v5 error channel carries a Status, but the executors keep
	// only its message for anything but an exit code.
	if m := exitStatusMessage.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n <= 255 {
			return &ExitError{Code: n}
		}
	}
	return err
}

// ExitStatus is the channel-3 Status a process's end is reported with, as
// the kubelet reports it: Success, or Failure with reason NonZeroExitCode
// and an ExitCode cause.
func ExitStatus(code int) metav1.Status {
	if code == 0 {
		return metav1.Status{Status: metav1.StatusSuccess}
	}
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Reason:  utilremotecommand.NonZeroExitCodeReason,
		Message: fmt.Sprintf("command terminated with non-zero exit code: exit status %d", code),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{
			Type:    utilremotecommand.ExitCodeCauseType,
			Message: strconv.Itoa(code),
		}}},
	}
}
