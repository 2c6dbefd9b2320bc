package auth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
)

// wantWithheld checks that a page of context prod is refused with a 403
// that says why, and that nothing went upstream for it.
func wantWithheld(t *testing.T, c *console, b *browser, allowed string) {
	t.Helper()
	c.fake.ResetRequests()
	p := b.get("/c/prod/api/v1/namespaces/demo/pods")
	if p.code() != http.StatusForbidden || p.testid(t, "error-code") != "403" {
		t.Fatalf("a page of context prod: %d, want 403; body:\n%s", p.code(), clip(p.body))
	}
	if msg := p.testid(t, "error-message"); !strings.Contains(msg, `"prod"`) || !strings.Contains(msg, allowed) {
		t.Errorf("the refusal does not say why: %q", msg)
	}
	if n := len(c.fake.Requests()); n != 0 {
		t.Errorf("%d upstream requests for a context the token is not for, want none", n)
	}
}

// A pasted token was checked against the current context's API server:
// it goes there, and to no other cluster the console offers.
func TestAPastedTokenGoesOnlyToTheContextItWasCheckedAgainst(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, contexts: []string{"dev", "prod"}})
	b := c.browser()
	b.tokenLogin("alice-token", "/c/dev/")
	if p := b.get("/c/dev/api/v1/namespaces/demo/pods"); p.code() != http.StatusOK {
		t.Fatalf("the token's own context: %d", p.code())
	}
	wantWithheld(t, c, b, "dev")
}

// In passthrough mode the ID token goes to the contexts configured to
// trust the provider: by default only the console's current context.
func TestAnIDTokenGoesOnlyToTheContextsThatTrustTheProvider(t *testing.T) {
	c := newConsole(t, options{contexts: []string{"dev", "prod"}})
	b := c.browser()
	b.login(alice, "/c/dev/")
	wantWithheld(t, c, b, "dev")

	both := newConsole(t, options{contexts: []string{"dev", "prod"}, oidcContexts: []string{"dev", "prod"}})
	bb := both.browser()
	bb.login(alice, "/c/dev/")
	both.fake.ResetRequests()
	if p := bb.get("/c/prod/api/v1/namespaces/demo/pods"); p.code() != http.StatusOK {
		t.Fatalf("a context configured to trust the provider: %d", p.code())
	}
	if bearers := both.bearers(); len(bearers) == 0 || bearers[0] != bb.session("tabula_session").Token {
		t.Error("the ID token was not sent to a context that trusts the provider")
	}
}

// Impersonation sends no user token anywhere: every context is reached
// with its own credentials.
func TestImpersonationReachesEveryContext(t *testing.T) {
	c := newConsole(t, options{identity: web.OIDCImpersonate, contexts: []string{"dev", "prod"}})
	b := c.browser()
	b.login(alice, "/c/dev/")
	if p := b.get("/c/prod/api/v1/namespaces/demo/pods"); p.code() != http.StatusOK {
		t.Errorf("another context, impersonating: %d", p.code())
	}
}

// A context named in the setting that the console does not offer is a
// mistake to say at start, not a page that never works.
func TestOIDCContextsMustExist(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS, Auth: web.AuthConfig{
		Mode: web.ModeOIDC, Keys: testKeys,
		OIDC: web.OIDCConfig{IssuerURL: "https://idp.example.com", ClientID: "tabula", Contexts: []string{"dev", "nope"}},
	}})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("err = %v, want it to name the unknown context", err)
	}
}
