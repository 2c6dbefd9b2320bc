package page

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
)

// Who names the request's identity in logs: the signed-in user with the
// mode they signed in by, or the kubeconfig context whose user every
// visitor acts as. Never a credential.
func Who(c echo.Context) string {
	r := RequesterOf(c)
	if r.User == "" {
		return "kubeconfig-context:" + contextNameOf(c)
	}
	return r.Mode + ":" + r.User
}

// LogWrite records a write the console sent on a user's behalf: who, what
// and the answer's status code; never the body.
func (e *Env) LogWrite(c echo.Context, verb string, r apiclient.Resource, namespace, name string, dryRun bool, err error) {
	code := http.StatusOK
	if err != nil {
		code = StatusOf(err)
	}
	e.Log.Info("write",
		"who", Who(c), "verb", verb,
		"group", r.Group, "version", r.Version, "resource", r.Name,
		"namespace", namespace, "name", name,
		"dryRun", dryRun, "code", code)
}
