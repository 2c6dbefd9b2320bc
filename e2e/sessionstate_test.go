//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/e2e/harness"
)

// Two replicas of the console, each in a pod's shoes as the deploy/
// service account with deploy/session-state.yaml applied, share logouts
// through the Secret on a real API server: a copy of the cookies taken
// before a logout at one replica stops opening the session at the other.
// This checks the Role (get, list and watch by field selector, update, of
// one Secret by name) against kube-apiserver's own authorizer, and the
// console's default: its pod's namespace.
func TestReplicasShareALogoutThroughTheAPIServer(t *testing.T) {
	cs, adminCfg := clientset(t, "admin")
	ctx := t.Context()
	cleanupCtx := context.WithoutCancel(ctx)
	deploy := filepath.Join("..", "deploy")
	_, err := cs.CoreV1().ServiceAccounts(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if saExisted := err == nil; !saExisted {
		t.Cleanup(func() {
			_ = cs.CoreV1().ServiceAccounts(deployNamespace).Delete(cleanupCtx, "tabula", metav1.DeleteOptions{})
		})
	}
	mustKubectl(t, "apply", "-f", filepath.Join(deploy, "namespace.yaml"))
	mustKubectl(t, "apply", "-n", deployNamespace, "-f", filepath.Join(deploy, "serviceaccount.yaml"), "-f", filepath.Join(deploy, "session-state.yaml"))
	t.Cleanup(func() {
		_ = cs.CoreV1().Secrets(deployNamespace).Delete(cleanupCtx, "tabula-session-state", metav1.DeleteOptions{})
		_ = cs.RbacV1().RoleBindings(deployNamespace).Delete(cleanupCtx, "tabula-session-state", metav1.DeleteOptions{})
		_ = cs.RbacV1().Roles(deployNamespace).Delete(cleanupCtx, "tabula-session-state", metav1.DeleteOptions{})
	})
	const user = "e2e-session-user"
	if _, err := cs.CoreV1().ServiceAccounts("demo").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: user}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().ServiceAccounts("demo").Delete(cleanupCtx, user, metav1.DeleteOptions{}) })
	token := func(ns, name string) string {
		expiry := int64(3600)
		tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}

	saDir, dir := t.TempDir(), t.TempDir()
	for file, body := range map[string][]byte{"token": []byte(token(deployNamespace, "tabula")), "ca.crt": adminCfg.CAData, "namespace": []byte(deployNamespace)} {
		if err := os.WriteFile(filepath.Join(saDir, file), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keyFile := filepath.Join(dir, "session.key")
	if err := harness.WriteSessionKey(keyFile); err != nil {
		t.Fatal(err)
	}
	server, err := url.Parse(env.cluster.Server)
	if err != nil {
		t.Fatal(err)
	}
	start := func(name string) (*harness.Console, string) {
		logDir := filepath.Join(dir, name)
		if err := os.MkdirAll(logDir, 0o700); err != nil {
			t.Fatal(err)
		}
		c, err := harness.StartConsoleWith(ctx, harness.ConsoleOptions{
			LogDir: logDir,
			Args:   []string{"--auth=token", "--session-key-file=" + keyFile},
			Env: []string{
				"HOME=" + t.TempDir(), "KUBECONFIG=",
				"KUBERNETES_SERVICE_HOST=" + server.Hostname(), "KUBERNETES_SERVICE_PORT=" + server.Port(),
				"TABULA_SERVICE_ACCOUNT_DIR=" + saDir,
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Stop(10 * time.Second) })
		return c, filepath.Join(logDir, "tabula.log")
	}
	first, firstLog := start("first")
	second, secondLog := start("second")
	firstURL, secondURL := strings.TrimSuffix(first.URL, "/")+"/", strings.TrimSuffix(second.URL, "/")+"/"
	for _, log := range []string{firstLog, secondLog} {
		b, _ := os.ReadFile(log)
		if !strings.Contains(string(b), `"secret":"`+deployNamespace+`/tabula-session-state"`) {
			t.Fatalf("the console does not say it shares its session state through %s/tabula-session-state:\n%s", deployNamespace, b)
		}
	}

	// Sign in at the first replica with a pasted token.
	browser := newJarClient(t)
	login := getPage(t, browser, firstURL+"auth/login", http.StatusOK)
	csrf, _ := login.Find("input[name=_csrf]").Attr("value")
	resp := postForm(t, browser, firstURL, "auth/token", url.Values{"token": {token("demo", user)}, "_csrf": {csrf}, "return": {"/c/in-cluster/"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("token sign-in: %d", resp.StatusCode)
	}
	home := getPage(t, browser, firstURL+"c/in-cluster/", http.StatusOK)
	signOut, _ := home.Find("form.sign-out-form input[name=_csrf]").Attr("value")

	// A copy of the cookies, taken now, opens the session at the second.
	thief := newJarClient(t)
	u, _ := url.Parse(firstURL)
	thief.Jar.SetCookies(u, browser.Jar.Cookies(u))
	getPage(t, thief, secondURL+"c/in-cluster/", http.StatusOK)

	if resp := postForm(t, browser, firstURL, "auth/logout", url.Values{"_csrf": {signOut}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout at the first replica: %d", resp.StatusCode)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := thief.Get(secondURL + "c/in-cluster/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusFound && strings.Contains(resp.Header.Get("Location"), "/auth/login") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(secondLog)
			t.Fatalf("10 s after the logout at the first replica, the copied cookies still open the session at the second (%d); its log:\n%s", resp.StatusCode, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newJarClient is a browser-like client: its own cookie jar, redirects not
// followed.
func newJarClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func getPage(t *testing.T, c *http.Client, u string, want int) *goquery.Document {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d\n%s", u, resp.StatusCode, want, body)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// postForm posts a form to base+path as a same-origin page does.
func postForm(t *testing.T, c *http.Client, base, path string, v url.Values) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(v.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", strings.TrimSuffix(base, "/"))
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
