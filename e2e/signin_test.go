//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/e2e/harness"
)

// The sign-in journeys: consoles in OIDC mode against the shared mock
// provider, signed in through Chromium. One console per identity mode
// serves all of that mode's journeys. The mock signs in whoever heads its
// user queue at once, so each sign-in queues its user just before, one
// browser context at a time.

// signInConsole is a console in OIDC sign-in, and the kubeconfig context
// its pages live under.
type signInConsole struct {
	*harness.Console
	context string
}

// url is the console's address of path.
func (c signInConsole) url(path string) string { return c.URL + path }

// startSignInConsole starts a console in OIDC mode with the given identity;
// its log goes to the artifacts directory, as signin-<identity>/tabula.log.
func startSignInConsole(t *testing.T, identity harness.OIDCIdentity) signInConsole {
	t.Helper()
	logDir := filepath.Join(env.artifacts, "signin-"+string(identity))
	key := filepath.Join(t.TempDir(), "session.key")
	must(t, harness.WriteSessionKey(key))
	kubeconfig := env.cluster.Kubeconfig
	if identity == harness.OIDCImpersonate {
		kubeconfig = env.cluster.ImpersonatorKubeconfig
	}
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	must(t, err)
	must(t, os.MkdirAll(logDir, 0o755))
	console, err := harness.StartConsole(context.Background(), logDir, kubeconfig, harness.OIDCConsoleArgs(env.oidc, identity, key)...)
	if err != nil {
		t.Fatalf("starting the %s console: %v", identity, err)
	}
	t.Cleanup(func() {
		if err := console.Stop(10 * time.Second); err != nil {
			t.Logf("%s console stop: %v", identity, err)
		}
	})
	t.Logf("%s console at %s (log %s)", identity, console.URL, console.LogPath)
	// kube-apiserver reads the provider's discovery document in the
	// background after it starts; until then ID tokens are refused.
	wantIdentity(t, whoAmI(t, bearerClient(t, login(t, alice))), alice)
	return signInConsole{Console: console, context: cfg.CurrentContext}
}

// signIn loads path in page as u: the console sends the browser to the
// provider, which signs u in at once, and back to path.
func signIn(t *testing.T, c signInConsole, page playwright.Page, u oidcUser, path string) playwright.Response {
	t.Helper()
	authorizations := env.oidc.Requests(harness.OIDCAuthorizePath)
	env.oidc.QueueUser(u.email, u.group)
	resp, err := page.Goto(c.url(path))
	must(t, err)
	if resp.Status() != http.StatusOK {
		t.Fatalf("signing in %s at %s: status %d", u.email, path, resp.Status())
	}
	must(t, expect.Page(page).ToHaveURL(c.url(path)))
	must(t, expect.Locator(page.GetByTestId("user-name")).ToHaveText(u.email))
	if env.oidc.Requests(harness.OIDCAuthorizePath) == authorizations {
		t.Fatalf("%s was signed in without a visit to the provider", u.email)
	}
	return resp
}

// redirects lists the URLs a response's request was redirected through,
// first to last, the response's own included.
func redirects(resp playwright.Response) []string {
	var urls []string
	for r := resp.Request(); r != nil; r = r.RedirectedFrom() {
		urls = append([]string{r.URL()}, urls...)
	}
	return urls
}

// wantRefused asserts that the page shows action disabled with reason.
func wantRefused(t *testing.T, page playwright.Page, testID, reason string) {
	t.Helper()
	action := page.GetByTestId(testID)
	must(t, expect.Locator(action).ToHaveAttribute("aria-disabled", "true"))
	must(t, expect.Locator(action).ToHaveAccessibleDescription(reason))
}

// wantAllowed asserts that the page offers action as a link to hrefSuffix.
func wantAllowed(t *testing.T, page playwright.Page, testID, hrefSuffix string) {
	t.Helper()
	action := page.GetByTestId(testID)
	must(t, expect.Locator(action).ToHaveAttribute("href", regexp.MustCompile(regexp.QuoteMeta(hrefSuffix)+`$`)))
	must(t, expect.Locator(action).Not().ToHaveAttribute("aria-disabled", "true"))
}

// wantForbiddenPage loads path and asserts the 403 page, with the API
// server's own message naming u.
func wantForbiddenPage(t *testing.T, c signInConsole, page playwright.Page, path string, u oidcUser, resource string) {
	t.Helper()
	resp, err := page.Goto(c.url(path))
	must(t, err)
	if resp.Status() != http.StatusForbidden {
		t.Fatalf("GET %s as %s: status %d, want 403", path, u.email, resp.Status())
	}
	must(t, expect.Locator(page.GetByTestId("error-code")).ToHaveText("403"))
	must(t, expect.Locator(page.GetByTestId("error-message")).ToContainText(`User "`+u.email+`" cannot list resource "`+resource+`"`))
	// Still signed in: a refusal is not a sign-out.
	must(t, expect.Locator(page.GetByTestId("user-name")).ToHaveText(u.email))
}

// screenshotHeaderThemes takes the page header, light and dark.
func screenshotHeaderThemes(t *testing.T, page playwright.Page, base string) {
	t.Helper()
	header := page.GetByTestId("topbar")
	for _, theme := range []string{"light", "dark"} {
		_, err := page.Evaluate(`(theme) => { document.documentElement.dataset.theme = theme }`, theme)
		must(t, err)
		path := filepath.Join(env.artifacts, base+"-"+theme+".png")
		if _, err := header.Screenshot(playwright.LocatorScreenshotOptions{Path: &path}); err != nil {
			t.Fatalf("screenshot %s: %v", path, err)
		}
		t.Logf("screenshot: %s", path)
	}
	_, err := page.Evaluate(`() => document.documentElement.removeAttribute("data-theme")`)
	must(t, err)
}

// markNoReload sets a marker a reload would drop; reloaded says whether it
// is gone.
func markNoReload(t *testing.T, page playwright.Page) {
	t.Helper()
	_, err := page.Evaluate(`() => { window.tabulaNoReload = true }`)
	must(t, err)
}

func reloaded(t *testing.T, page playwright.Page) bool {
	t.Helper()
	v, err := page.Evaluate(`() => window.tabulaNoReload === true`)
	must(t, err)
	return v != true
}

// waitRefreshGrants polls the mock until it has had more than n refresh
// grants.
func waitRefreshGrants(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return env.oidc.RefreshGrants() > n, nil
	})
	if err != nil {
		t.Fatalf("no refresh grant within %s (still %d)", timeout, env.oidc.RefreshGrants())
	}
}

// createConfigMap creates demo/name as admin, deleted at the end.
func createConfigMap(t *testing.T, name string, data map[string]string) {
	t.Helper()
	cs, _ := clientset(t, "admin")
	editConfigMap(t, cs, name, data)
}

// shortTokenTTL is the ID token lifetime of the refresh journeys: the
// console refreshes at 80% of it, in real time. The mock's clock is not
// fast-forwarded: kube-apiserver refuses tokens from its future (nbf).
const shortTokenTTL = 20 * time.Second

func TestSignInPassthrough(t *testing.T) {
	c := startSignInConsole(t, harness.OIDCPassthrough)
	t.Cleanup(env.oidc.Reset)
	deployments := "/c/" + c.context + "/apis/apps/v1/namespaces/demo/deployments"
	web := deployments + "/web"
	configMaps := "/c/" + c.context + "/api/v1/namespaces/demo/configmaps"

	t.Run("DeepLinkComesBackSignedIn", func(t *testing.T) {
		page := newPage(t)
		resp := signIn(t, c, page, alice, deployments)
		chain := redirects(resp)
		want := []string{
			c.url(deployments),
			c.url("/auth/login?return="),
			env.oidc.Issuer() + "/authorize?",
			c.url("/auth/callback?"),
			c.url(deployments),
		}
		if len(chain) != len(want) {
			t.Fatalf("redirects %v, want %d steps like %v", chain, len(want), want)
		}
		for i, w := range want {
			if !strings.HasPrefix(chain[i], w) {
				t.Errorf("redirect %d: %s, want %s…", i, chain[i], w)
			}
		}
		// The list itself is there, and live for this user.
		must(t, expect.Locator(page.Locator(`[data-testid=list-table] tr[data-key="demo/web"]`)).ToBeVisible())
		must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
		must(t, expect.Locator(page.GetByTestId("identity-mode")).ToHaveCount(0))
		screenshotHeaderThemes(t, page, "signin-header")
		checkA11y(t, page, "signin-deployments")
	})

	t.Run("ViewerSeesRefusals", func(t *testing.T) {
		page := newPage(t)
		signIn(t, c, page, alice, web)
		wantRefused(t, page, "edit-link", "You may not patch deployments.apps in namespace demo (verb patch)")
		wantRefused(t, page, "delete-link", "You may not delete deployments.apps in namespace demo (verb delete)")
		must(t, page.GetByTestId("edit-link").Click(playwright.LocatorClickOptions{Force: playwright.Bool(true)}))
		must(t, expect.Page(page).ToHaveURL(c.url(web)))
		wantForbiddenPage(t, c, page, "/c/"+c.context+"/api/v1/namespaces/demo/secrets", alice, "secrets")
		screenshot(t, page, "signin-viewer-secrets-403-light.png")
	})

	t.Run("EditorEdits", func(t *testing.T) {
		const name = "e2e-signin-edit"
		createConfigMap(t, name, map[string]string{"greeting": "hello"})
		object := configMaps + "/" + name
		page := newPage(t)
		signIn(t, c, page, bob, object)
		wantAllowed(t, page, "edit-link", "/edit")
		must(t, page.GetByTestId("edit-link").Click())
		must(t, expect.Page(page).ToHaveURL(c.url(object+"/edit")))
		editorReady(t, page)
		setEditorText(t, page, replaceOnce(t, editorText(t, page), "greeting: hello", "greeting: hello from bob"))
		wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusOK)
		must(t, expect.Locator(page.GetByTestId("patch-changes")).ToContainText("data.greeting"))
		must(t, page.GetByTestId("apply").Click())
		must(t, expect.Page(page).ToHaveURL(c.url(object)))
		must(t, expect.Locator(page.GetByTestId("notice")).ToContainText(`Saved configmap "`+name+`"`))
		cs, _ := clientset(t, "admin")
		cm, err := cs.CoreV1().ConfigMaps("demo").Get(t.Context(), name, metav1.GetOptions{})
		must(t, err)
		if cm.Data["greeting"] != "hello from bob" {
			t.Fatalf("data after bob's save: %v", cm.Data)
		}
		must(t, expect.Locator(page.Locator("main")).ToContainText("hello from bob"))
	})

	t.Run("RefreshGoesUnnoticed", func(t *testing.T) {
		t.Cleanup(env.oidc.Reset)
		env.oidc.SetTokenTTL(shortTokenTTL)
		page := newPage(t)
		signIn(t, c, page, alice, configMaps)
		must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
		markNoReload(t, page)
		authorizations := env.oidc.Requests(harness.OIDCAuthorizePath)
		grants := env.oidc.RefreshGrants()

		// At 80% of the token's life the live list's stream ends (4001)
		// and reconnects with the refreshed token.
		waitRefreshGrants(t, grants, 2*shortTokenTTL)
		must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
		const name = "e2e-signin-after-refresh"
		createConfigMap(t, name, map[string]string{"k": "v"})
		must(t, expect.Locator(page.Locator(`[data-testid=list-table] tr[data-key="demo/`+name+`"]`)).ToBeVisible())
		if reloaded(t, page) {
			t.Fatal("the page reloaded across the refresh")
		}
		must(t, expect.Locator(page.GetByTestId("session-ended")).ToBeHidden())

		resp, err := page.Reload()
		must(t, err)
		if resp.Status() != http.StatusOK {
			t.Fatalf("reload after the refresh: status %d", resp.Status())
		}
		must(t, expect.Page(page).ToHaveURL(c.url(configMaps)))
		must(t, expect.Locator(page.GetByTestId("user-name")).ToHaveText(alice.email))
		if n := env.oidc.Requests(harness.OIDCAuthorizePath); n != authorizations {
			t.Fatalf("the refresh sent the browser to the provider (%d authorizations, was %d)", n, authorizations)
		}
	})

	t.Run("FailedRefreshSignsInAgain", func(t *testing.T) {
		t.Cleanup(env.oidc.Reset)
		env.oidc.SetTokenTTL(shortTokenTTL)
		page := newPage(t)
		signIn(t, c, page, alice, configMaps)
		must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
		grants := env.oidc.RefreshGrants()
		env.oidc.FailRefreshes(1)

		waitRefreshGrants(t, grants, 2*shortTokenTTL)
		ended := page.GetByTestId("session-ended")
		must(t, expect.Locator(ended).ToBeVisible())
		must(t, expect.Locator(ended).ToContainText("Your session ended"))
		screenshot(t, page, "signin-session-ended-light.png")

		// Its link signs in again and comes back here.
		env.oidc.QueueUser(alice.email, alice.group)
		authorizations := env.oidc.Requests(harness.OIDCAuthorizePath)
		must(t, ended.GetByRole("link").Click())
		must(t, expect.Page(page).ToHaveURL(c.url(configMaps)))
		must(t, expect.Locator(page.GetByTestId("user-name")).ToHaveText(alice.email))
		must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
		if env.oidc.Requests(harness.OIDCAuthorizePath) == authorizations {
			t.Fatal("signed in again without the provider")
		}
	})

	t.Run("SignOut", func(t *testing.T) {
		page := newPage(t)
		signIn(t, c, page, bob, web)
		logouts := len(env.oidc.EndSessions())
		must(t, page.GetByTestId("sign-out").Click())
		must(t, expect.Page(page).ToHaveURL(c.url("/auth/signed-out")))
		must(t, expect.Locator(page.GetByTestId("signed-out")).ToContainText("You are signed out"))
		must(t, expect.Locator(page.GetByTestId("user-name")).ToHaveCount(0))
		screenshotThemes(t, page, "signin-signed-out")
		checkA11y(t, page, "signin-signed-out")

		ends := env.oidc.EndSessions()
		if len(ends) != logouts+1 {
			t.Fatalf("the provider saw %d end-session requests, want %d", len(ends), logouts+1)
		}
		end := ends[len(ends)-1]
		if end.PostLogoutRedirectURI != c.url("/auth/signed-out") || end.ClientID != env.oidc.ClientID {
			t.Errorf("end-session request %+v", end)
		}

		// The session is gone: the probe says so, and a page needs the
		// provider again.
		probe, err := page.Request().Get(c.url("/auth/session"))
		must(t, err)
		if probe.Status() != http.StatusUnauthorized {
			t.Fatalf("session probe after sign-out: %d, want 401", probe.Status())
		}
		signIn(t, c, page, alice, web)
	})

	t.Run("TwoUsersAtOnce", func(t *testing.T) {
		viewer, editor := newPage(t), newPage(t)
		signIn(t, c, viewer, alice, configMaps)
		signIn(t, c, editor, bob, configMaps)
		wantRefused(t, viewer, "create-link", "You may not create configmaps in namespace demo (verb create)")
		wantAllowed(t, editor, "create-link", "/configmaps/new")
		must(t, expect.Locator(viewer.GetByTestId("live-status")).ToHaveText("Live"))
		markNoReload(t, viewer)

		// Bob creates a ConfigMap; it appears in Alice's open list.
		const name = "e2e-signin-by-bob"
		cs, _ := clientset(t, "admin")
		t.Cleanup(func() {
			_ = cs.CoreV1().ConfigMaps("demo").Delete(context.Background(), name, metav1.DeleteOptions{})
		})
		must(t, editor.GetByTestId("create-link").Click())
		editorReady(t, editor)
		setEditorText(t, editor, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+name+"\n  namespace: demo\ndata:\n  by: bob\n")
		wantStatus(t, submit(t, editor, editor.GetByTestId("review")), http.StatusOK)
		must(t, editor.GetByTestId("apply").Click())
		must(t, expect.Page(editor).ToHaveURL(c.url(configMaps+"/"+name)))
		must(t, expect.Locator(editor.GetByTestId("notice")).ToContainText(`Created configmap "`+name+`"`))

		row := viewer.Locator(`[data-testid=list-table] tr[data-key="demo/` + name + `"]`)
		must(t, expect.Locator(row).ToBeVisible())
		if reloaded(t, viewer) {
			t.Fatal("the viewer's list reloaded; the row should arrive live")
		}
		// Each page still speaks for its own user.
		must(t, expect.Locator(viewer.GetByTestId("user-name")).ToHaveText(alice.email))
		wantRefused(t, viewer, "create-link", "You may not create configmaps in namespace demo (verb create)")
		must(t, expect.Locator(editor.GetByTestId("user-name")).ToHaveText(bob.email))

		// The same object page, each with their own actions.
		goToSignedIn(t, c, viewer, configMaps+"/"+name)
		goToSignedIn(t, c, editor, configMaps+"/"+name)
		wantRefused(t, viewer, "edit-link", "You may not patch configmaps in namespace demo (verb patch)")
		wantAllowed(t, editor, "edit-link", "/edit")
		must(t, expect.Locator(viewer.GetByTestId("live-status")).ToHaveText("Live"))
		must(t, expect.Locator(editor.GetByTestId("live-status")).ToHaveText("Live"))
	})
}

// goToSignedIn loads path in a page that is signed in already.
func goToSignedIn(t *testing.T, c signInConsole, page playwright.Page, path string) {
	t.Helper()
	resp, err := page.Goto(c.url(path))
	must(t, err)
	if resp.Status() != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, resp.Status())
	}
	must(t, expect.Page(page).ToHaveURL(c.url(path)))
}

// In impersonation mode the console acts with its own ServiceAccount, which
// may only impersonate, on the user's behalf: the RBAC answers are the
// same as with the user's own token.
func TestSignInImpersonation(t *testing.T) {
	c := startSignInConsole(t, harness.OIDCImpersonate)
	t.Cleanup(env.oidc.Reset)
	web := "/c/" + c.context + "/apis/apps/v1/namespaces/demo/deployments/web"

	t.Run("Viewer", func(t *testing.T) {
		page := newPage(t)
		signIn(t, c, page, alice, web)
		wantRefused(t, page, "edit-link", "You may not patch deployments.apps in namespace demo (verb patch)")
		must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
		wantForbiddenPage(t, c, page, "/c/"+c.context+"/api/v1/namespaces/demo/secrets", alice, "secrets")
	})

	t.Run("Editor", func(t *testing.T) {
		page := newPage(t)
		signIn(t, c, page, bob, web)
		wantAllowed(t, page, "edit-link", "/edit")
		wantAllowed(t, page, "delete-link", "/delete")

		// An edit is authorized as bob, the review's dry run and the save.
		const name = "e2e-signin-impersonated"
		createConfigMap(t, name, map[string]string{"greeting": "hello"})
		object := "/c/" + c.context + "/api/v1/namespaces/demo/configmaps/" + name
		goToSignedIn(t, c, page, object+"/edit")
		editorReady(t, page)
		setEditorText(t, page, replaceOnce(t, editorText(t, page), "greeting: hello", "greeting: impersonated"))
		wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusOK)
		must(t, expect.Locator(page.GetByTestId("patch-changes")).ToContainText("data.greeting"))
		must(t, page.GetByTestId("apply").Click())
		must(t, expect.Page(page).ToHaveURL(c.url(object)))
		must(t, expect.Locator(page.GetByTestId("notice")).ToContainText(`Saved configmap "`+name+`"`))
		cs, _ := clientset(t, "admin")
		cm, err := cs.CoreV1().ConfigMaps("demo").Get(t.Context(), name, metav1.GetOptions{})
		must(t, err)
		if cm.Data["greeting"] != "impersonated" {
			t.Fatalf("data after bob's save: %v", cm.Data)
		}
		// The Secrets of demo are the editor's to list.
		goToSignedIn(t, c, page, "/c/"+c.context+"/api/v1/namespaces/demo/secrets")
	})
}
