package auth_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/tabula-console/tabula/web"
)

// impersonated are the Impersonate-User and -Group headers of the upstream
// requests a page made.
func impersonated(t *testing.T, c *console) (users []string, groups [][]string) {
	t.Helper()
	reqs := c.fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("no upstream requests")
	}
	for _, r := range reqs {
		users = append(users, r.Header.Get("Impersonate-User"))
		groups = append(groups, r.Header.Values("Impersonate-Group"))
	}
	return users, groups
}

// "-" names no prefix, as kube-apiserver's --oidc-username-prefix does.
func TestImpersonationPrefixesCanBeTurnedOff(t *testing.T) {
	c := newConsole(t, options{identity: web.OIDCImpersonate, consoleToken: "console-sa-token", usernamePrefix: "-", groupsPrefix: "corp:"})
	b := c.browser()
	b.login(bob, "/c/dev/")
	c.fake.ResetRequests()
	if p := b.get(podsPage); p.code() != http.StatusOK {
		t.Fatalf("page: %d", p.code())
	}
	users, groups := impersonated(t, c)
	for i := range users {
		if users[i] != "bob@example.com" || !slices.Equal(groups[i], []string{"corp:tabula:editors"}) {
			t.Errorf("impersonated %q %q, want bob@example.com and corp:tabula:editors", users[i], groups[i])
		}
	}
}

// Names under system: are Kubernetes' own (system:masters is cluster-admin,
// system:serviceaccount:… are service accounts, system:node:… kubelets).
// A provider's user named so is refused at sign-in (403, saying why); a
// provider's group named so is dropped, as the authenticator's documented
// userValidationRules would refuse it, and logged; whatever the prefixes.
func TestImpersonationRefusesReservedSystemNames(t *testing.T) {
	c := newConsole(t, options{identity: web.OIDCImpersonate, consoleToken: "console-sa-token", usernamePrefix: "-", groupsPrefix: "-"})
	b := c.browser()
	root := &mockoidc.MockUser{Subject: "u-root", Email: "system:admin", EmailVerified: true, Groups: []string{"tabula:editors"}}
	p := b.get(b.startLogin(root, "/c/dev/").String())
	assertRejected(t, p, http.StatusForbidden)
	if msg := p.testid(t, "error-message"); !strings.Contains(msg, `"system:admin"`) || !strings.Contains(msg, "reserved") {
		t.Errorf("the refusal does not say why: %q", msg)
	}

	sneaky := &mockoidc.MockUser{Subject: "u-eve", Email: "eve@example.com", EmailVerified: true,
		Groups: []string{"tabula:viewers", "system:masters", "system:serviceaccounts:kube-system"}}
	b.login(sneaky, "/c/dev/")
	c.fake.ResetRequests()
	if p := b.get(podsPage); p.code() != http.StatusOK {
		t.Fatalf("page: %d", p.code())
	}
	users, groups := impersonated(t, c)
	for i := range users {
		if users[i] != "eve@example.com" || !slices.Equal(groups[i], []string{"tabula:viewers"}) {
			t.Errorf("impersonated %q %q, want eve@example.com and tabula:viewers alone", users[i], groups[i])
		}
	}
	if !strings.Contains(c.logs.String(), "system:masters") {
		t.Error("the dropped groups were not logged")
	}
}
