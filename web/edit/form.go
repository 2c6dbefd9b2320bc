package edit

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/views"
)

// The editor form's actions (the submit button's name=action value).
const (
	actionReview    = "review"    // dry run, then the review page
	actionApply     = "apply"     // the real write
	actionEdit      = "edit"      // back to the editor with the text
	actionReapply   = "reapply"   // after a conflict: my patch on the live object
	actionOverwrite = "overwrite" // after a conflict: my text over theirs, reviewed first
	revealPrefix    = "reveal:"   // show one Secret value
)

// Form field names (see views.stateFields).
const (
	fieldRV          = "resourceVersion"
	fieldBase        = "base"
	fieldText        = "yaml"
	fieldNamespace   = "namespace"
	fieldSecretSet   = "secret.set:"
	fieldSecretDel   = "secret.remove"
	fieldSecretKey   = "secret.newkey"
	fieldSecretValue = "secret.newvalue"
)

// editForm is a posted editor, review or conflict form.
type editForm struct {
	action string
	state  views.EditState
}

// parseEditForm reads the form. A body over the server's limit is a 413
// with a message; nothing has been sent upstream.
func parseEditForm(c echo.Context) (editForm, error) {
	req := c.Request()
	if err := req.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return editForm{}, echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The form is too large; nothing was sent to the API server.")
		}
		return editForm{}, echo.NewHTTPError(http.StatusBadRequest, "The form could not be read: "+err.Error())
	}
	f := req.PostForm
	st := views.EditState{
		ResourceVersion: f.Get(fieldRV),
		Base:            normalizeNewlines(f.Get(fieldBase)),
		Text:            normalizeNewlines(f.Get(fieldText)),
		Namespace:       f.Get(fieldNamespace),
	}
	for k, vs := range f {
		if key, ok := strings.CutPrefix(k, fieldSecretSet); ok && key != "" && len(vs) > 0 && vs[0] != "" {
			st.SecretSet = append(st.SecretSet, views.SecretValue{Key: key, Value: vs[0]})
		}
	}
	if key := strings.TrimSpace(f.Get(fieldSecretKey)); key != "" {
		st.SecretSet = append(st.SecretSet, views.SecretValue{Key: key, Value: f.Get(fieldSecretValue)})
	}
	slices.SortFunc(st.SecretSet, func(a, b views.SecretValue) int { return strings.Compare(a.Key, b.Key) })
	st.SecretSet = slices.CompactFunc(st.SecretSet, func(a, b views.SecretValue) bool { return a.Key == b.Key })
	st.SecretRemove = slices.Compact(slices.Sorted(slices.Values(f[fieldSecretDel])))
	return editForm{action: f.Get("action"), state: st}, nil
}

// normalizeNewlines undoes the CRLF a browser sends for a textarea, so the
// text compares equal to what was loaded.
func normalizeNewlines(s string) string {
	return strings.ReplaceAll(s, "\r\n", "\n")
}
