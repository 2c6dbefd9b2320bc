package page_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/page"
)

// Behind web/auth's middleware, Client is the second line: in a sign-in
// mode a request that somehow carries no signed-in identity fails closed
// rather than acting with the kubeconfig's own credentials.
func TestClientFailsClosedWithoutAnIdentityInSignInModes(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode string
		who  page.Requester
		ok   bool
	}{
		{mode: page.ModeKubeconfig, who: page.Requester{Mode: page.ModeKubeconfig}, ok: true},
		{mode: page.ModeToken, who: page.Requester{Mode: page.ModeToken}},
		{mode: page.ModeOIDC, who: page.Requester{Mode: page.ModeOIDC, User: "alice"}},
		{mode: page.ModeToken, who: page.Requester{Mode: page.ModeToken, Identity: apiclient.Identity{BearerToken: "t"}}, ok: true},
		{mode: page.ModeOIDC, who: page.Requester{Mode: page.ModeOIDC, Identity: apiclient.Identity{Impersonate: apiclient.Impersonation{UserName: "alice"}}}, ok: true},
	} {
		env, err := page.New(page.Config{Clusters: clusters, Mode: tc.mode, Keys: [][]byte{make([]byte, 32)}})
		if err != nil {
			t.Fatal(err)
		}
		c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/c/dev/", nil), httptest.NewRecorder())
		c.SetParamNames("context")
		c.SetParamValues("dev")
		page.SetRequester(c, tc.who)
		if rerr := env.RequireContext(func(c echo.Context) error { _, err = env.Client(c); return nil })(c); rerr != nil {
			t.Fatal(rerr)
		}
		var he *echo.HTTPError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s %+v: %v", tc.mode, tc.who, err)
		case !tc.ok && (!errors.As(err, &he) || he.Code != http.StatusUnauthorized):
			t.Errorf("%s %+v: err %v, want 401", tc.mode, tc.who, err)
		}
	}
}
