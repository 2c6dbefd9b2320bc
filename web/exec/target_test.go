package exec

import (
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/kube"
)

func TestParseCommand(t *testing.T) {
	for in, want := range map[string][]string{
		"":                          nil,
		"   ":                       nil,
		"ls -la /tmp":               {"ls", "-la", "/tmp"},
		"sh -c 'echo hi; exit 3'":   {"sh", "-c", "echo hi; exit 3"},
		`printf '%s' "a b"`:         {"printf", "%s", "a b"},
		"echo $HOME":                {"echo", "$HOME"}, // no expansion: there is no shell
		`python3 -c 'print("x")'`:   {"python3", "-c", `print("x")`},
		"cat /etc/os-release ":      {"cat", "/etc/os-release"},
		`grep -r "needle" /var/log`: {"grep", "-r", "needle", "/var/log"},
	} {
		got, err := parseCommand(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"echo 'unclosed", "ls; rm -rf /", "a | b", "x && y", "sleep 1 &", strings.Repeat("a", maxCommandLength+1)} {
		_, err := parseCommand(in)
		var he *echo.HTTPError
		if !errors.As(err, &he) || he.Code != http.StatusBadRequest {
			t.Errorf("parseCommand(%q) = %v, want a 400", in, err)
		}
	}
}

func TestTerminalContainersAndTheDefault(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubectl.kubernetes.io/default-container": "app"}},
		Spec: corev1.PodSpec{
			InitContainers:      []corev1.Container{{Name: "setup"}, {Name: "proxy"}},
			Containers:          []corev1.Container{{Name: "sidecar"}, {Name: "app", Stdin: true, TTY: true}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-x", Stdin: true, TTY: true}}},
		},
		Status: corev1.PodStatus{
			InitContainerStatuses:      []corev1.ContainerStatus{{Name: "setup"}, {Name: "proxy", State: running}},
			ContainerStatuses:          []corev1.ContainerStatus{{Name: "sidecar", State: running}, {Name: "app", State: running}},
			EphemeralContainerStatuses: []corev1.ContainerStatus{{Name: "debugger-x"}},
		},
	}
	got, def := terminalContainers(pod)
	want := []kube.Container{
		{Name: "sidecar", Running: true, Started: true},
		{Name: "app", Running: true, Started: true, Attachable: true},
		{Name: "proxy", Kind: "init", Running: true, Started: true}, // a running init container is a sidecar
		{Name: "debugger-x", Kind: "ephemeral", Attachable: true},
	}
	if !slices.Equal(got, want) || def != "app" {
		t.Errorf("terminalContainers = %+v, %q\nwant %+v, app", got, def, want)
	}
	// An annotation naming no container falls back to the first.
	pod.Annotations["kubectl.kubernetes.io/default-container"] = "gone"
	if _, def := terminalContainers(pod); def != "sidecar" {
		t.Errorf("default = %q, want sidecar", def)
	}
	if _, err := pickContainer(got, def, "nope"); err == nil || !strings.Contains(err.Error(), "sidecar, app, proxy, debugger-x") {
		t.Errorf("pickContainer(nope) = %v, want a 404 listing the containers", err)
	}
}

func TestWindowsPodsGetCmd(t *testing.T) {
	win := &corev1.Pod{Spec: corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Windows}}}
	linuxOnWindowsNode := &corev1.Pod{Spec: corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Linux}}}
	bySelector := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{osLabel: "windows"}}}
	plain := &corev1.Pod{}
	for _, tc := range []struct {
		pod    *corev1.Pod
		nodeOS string
		want   bool
	}{
		{win, "", true}, {linuxOnWindowsNode, "windows", false}, {bySelector, "", true},
		{plain, "windows", true}, {plain, "linux", false}, {plain, "", false},
	} {
		if got := isWindows(tc.pod, tc.nodeOS); got != tc.want {
			t.Errorf("isWindows(%+v, %q) = %v", tc.pod.Spec, tc.nodeOS, got)
		}
	}
}

func TestTokenOpensOnlyItsTerminal(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	scope := tokenScope{User: "oidc:ada", Context: "dev", Namespace: "demo", Pod: "web-1", Container: "app", Subresource: "exec"}
	tok := issueToken("csrf-secret", scope, now)
	if !checkToken("csrf-secret", scope, tok, now.Add(time.Hour)) {
		t.Fatal("a fresh token is refused")
	}
	other := func(f func(*tokenScope)) tokenScope { s := scope; f(&s); return s }
	for name, tc := range map[string]struct {
		secret string
		scope  tokenScope
		token  string
		at     time.Time
	}{
		"another session":   {"other-secret", scope, tok, now},
		"another user":      {"csrf-secret", other(func(s *tokenScope) { s.User = "oidc:eve" }), tok, now},
		"another pod":       {"csrf-secret", other(func(s *tokenScope) { s.Pod = "db-0" }), tok, now},
		"another container": {"csrf-secret", other(func(s *tokenScope) { s.Container = "sidecar" }), tok, now},
		"attach":            {"csrf-secret", other(func(s *tokenScope) { s.Subresource = "attach" }), tok, now},
		"another context":   {"csrf-secret", other(func(s *tokenScope) { s.Context = "prod" }), tok, now},
		"expired":           {"csrf-secret", scope, tok, now.Add(tokenLifetime + time.Second)},
		"no secret":         {"", scope, issueToken("", scope, now), now},
		"none":              {"csrf-secret", scope, "", now},
		"garbage":           {"csrf-secret", scope, "not-base64!", now},
		"truncated":         {"csrf-secret", scope, tok[:20], now},
	} {
		if checkToken(tc.secret, tc.scope, tc.token, tc.at) {
			t.Errorf("%s: the token was accepted", name)
		}
	}
	// Masked afresh each time (BREACH): two pages of the same terminal in
	// the same second carry different tokens, and both open it; a token
	// with one bit changed, or the MAC unmasked, opens nothing.
	again := issueToken("csrf-secret", scope, now)
	if again == tok {
		t.Error("two pages carry the same token string")
	}
	if !checkToken("csrf-secret", scope, again, now) {
		t.Error("the second page's token is refused")
	}
	raw, _ := csrf.Unmask(tok)
	if checkToken("csrf-secret", scope, base64.RawURLEncoding.EncodeToString(raw), now) {
		t.Error("an unmasked token was accepted")
	}
	for i := range raw {
		b, _ := base64.RawURLEncoding.DecodeString(tok)
		b[len(raw)+i] ^= 1
		if checkToken("csrf-secret", scope, base64.RawURLEncoding.EncodeToString(b), now) {
			t.Errorf("a token with byte %d changed was accepted", i)
		}
	}
	// Fields are delimited: moving a character between two changes the MAC.
	a := tokenScope{Namespace: "ab", Pod: "c"}
	b := tokenScope{Namespace: "a", Pod: "bc"}
	if checkToken("s", b, issueToken("s", a, now), now) {
		t.Error("scopes that concatenate alike share a token")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]*apiclient.TerminalSize{
		`{"Width":120,"Height":40}`: {Width: 120, Height: 40},
		`{"Width":0,"Height":40}`:   nil,
		`{"Width":80}`:              nil,
		`{"Width":5000,"Height":1}`: nil,
		`{"Width":-3,"Height":10}`:  nil,
		`nonsense`:                  nil,
	} {
		got, ok := parseSize([]byte(in))
		if (want == nil) == ok || want != nil && *got != *want {
			t.Errorf("parseSize(%s) = %v, %v; want %v", in, got, ok, want)
		}
	}
}

func TestEndStatus(t *testing.T) {
	st, code := endStatus(nil)
	if code != 0 || st.Status != metav1.StatusSuccess {
		t.Errorf("exit 0: %+v %d", st, code)
	}
	st, code = endStatus(&apiclient.ExitError{Code: 3})
	if code != 3 || st.Reason != "NonZeroExitCode" || st.Details.Causes[0].Type != "ExitCode" || st.Details.Causes[0].Message != "3" {
		t.Errorf("exit 3: %+v %d", st, code)
	}
	st, code = endStatus(apierrors.NewForbidden(corev1.Resource("pods/exec"), "web-1", errors.New("no")))
	if code != -1 || st.Code != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden {
		t.Errorf("403: %+v %d", st, code)
	}
	st, code = endStatus(errors.New("connection reset"))
	// The mapper's Status: a 500 whose details stay in the server log.
	if code != -1 || st == nil || st.Status != metav1.StatusFailure || st.Code != http.StatusInternalServerError {
		t.Errorf("connection error: %+v %d", st, code)
	}
}

func TestSlotsCapEachIdentity(t *testing.T) {
	s := newSlots(2)
	r1, _ := s.acquire("ada")
	r2, _ := s.acquire("ada")
	if _, err := s.acquire("ada"); err == nil || !strings.Contains(err.Error(), "2 terminals") {
		t.Fatalf("third terminal: %v, want a 429", err)
	}
	if _, err := s.acquire("bob"); err != nil {
		t.Fatalf("another user is capped by ada's terminals: %v", err)
	}
	r1()
	r1() // releasing twice gives back one slot
	if _, err := s.acquire("ada"); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := s.acquire("ada"); err == nil {
		t.Fatal("a double release gave back two slots")
	}
	r2()
}
