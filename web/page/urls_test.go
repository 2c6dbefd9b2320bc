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
		ctx := WithBasePath(t.Context(), base)
		if got := BasePath(ctx); got != base {
			t.Errorf("BasePath = %q, want %q", got, base)
		}
		got := []string{
			string(ConsoleURL(ctx, "/")),
			string(ContextHome(ctx, "dev/x")),
			string(ContextURL(ctx, "dev/x", "/jump")),
			string(ResourceURL(ctx, "dev/x", deploys, "demo", "web")),
			string(ObjectActionURL(ctx, "dev/x", deploys, "demo", "web", "edit")),
			string(NewObjectURL(ctx, "dev/x", deploys, "demo")),
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("base %q: URL %d = %q, want %q", base, i, got[i], want[i])
			}
		}
	}
}
