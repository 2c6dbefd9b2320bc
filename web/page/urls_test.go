package page

import (
	"testing"

	"github.com/tabula-console/tabula/apiclient"
)

func TestURLBuildersCarryTheBasePath(t *testing.T) {
	deploys := apiclient.Resource{Group: "apps", Version: "v1", Name: "deployments", Namespaced: true}
	for base, want := range map[string][]string{
		"":        {"/", "/c/dev%2Fx/", "/c/dev%2Fx/jump", "/c/dev%2Fx/apis/apps/v1/namespaces/demo/deployments/web", "/c/dev%2Fx/apis/apps/v1/namespaces/demo/deployments/web/edit", "/c/dev%2Fx/apis/apps/v1/namespaces/demo/deployments/new"},
		"/tabula": {"/tabula/", "/tabula/c/dev%2Fx/", "/tabula/c/dev%2Fx/jump", "/tabula/c/dev%2Fx/apis/apps/v1/namespaces/demo/deployments/web", "/tabula/c/dev%2Fx/apis/apps/v1/namespaces/demo/deployments/web/edit", "/tabula/c/dev%2Fx/apis/apps/v1/namespaces/demo/deployments/new"},
	} {
		u := URLsOf(WithBasePath(t.Context(), base)).In("dev/x")
		if got := u.Base(); got != base {
			t.Errorf("Base = %q, want %q", got, base)
		}
		got := []string{
			string(u.Console("/")),
			string(u.Home()),
			string(u.Path("/jump")),
			string(u.Resource(deploys, "demo", "web")),
			string(u.Action(deploys, "demo", "web", "edit")),
			string(u.New(deploys, "demo")),
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("base %q: URL %d = %q, want %q", base, i, got[i], want[i])
			}
		}
	}
}
