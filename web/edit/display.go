package edit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/edit/yamltext"
	"github.com/tabula-console/tabula/web/textdiff"
)

// rows are a patch's changes as the review lists them.
type rows struct {
	fields, secret []views.ChangeRow
	arrays         bool // the patch sets a list, which replaces it whole
}

func changeRows(patch []byte, secret bool) (rows, error) {
	changes, err := Changes(patch)
	if err != nil {
		return rows{}, err
	}
	var out rows
	for _, ch := range changes {
		if _, ok := ch.Value.([]any); ok {
			out.arrays = true
		}
		row := rowOf(ch, secret)
		if secret && isSecretData(ch.Path) {
			out.secret = append(out.secret, row)
		} else {
			out.fields = append(out.fields, row)
		}
	}
	return out, nil
}

// rowsOfPatch lists every change of a patch in one list.
func rowsOfPatch(patch []byte, secret bool) ([]views.ChangeRow, error) {
	r, err := changeRows(patch, secret)
	return append(r.fields, r.secret...), err
}

func rowsOf(changes []Change, secret bool) []views.ChangeRow {
	out := make([]views.ChangeRow, 0, len(changes))
	for _, ch := range changes {
		out = append(out, rowOf(ch, secret))
	}
	return out
}

func rowOf(ch Change, secret bool) views.ChangeRow {
	row := views.ChangeRow{Path: ch.PathString(), Removed: ch.Removed}
	switch {
	case ch.Removed:
	case secret && isSecretData(ch.Path):
		row.Value = maskedValue(ch.Value)
	default:
		row.Value = yamltext.RenderValue(ch.Value)
	}
	return row
}

// isSecretData: a Secret's data and stringData values are never shown.
func isSecretData(path []string) bool {
	return len(path) >= 1 && (path[0] == "data" || path[0] == "stringData")
}

func maskedValue(v any) string {
	if s, ok := v.(string); ok {
		// data holds base64: say how long the value the user typed is.
		if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
			return "(new value, " + strconv.Itoa(len(raw)) + " bytes)"
		}
		return "(new value, " + strconv.Itoa(len(s)) + " characters)"
	}
	return "(new value)"
}

// displayPatch is a patch body for the page: indented, with a Secret's
// values masked.
func displayPatch(patch []byte, secret bool) string {
	var m map[string]any
	if secret && json.Unmarshal(patch, &m) == nil {
		for _, field := range []string{"data", "stringData"} {
			if data, ok := m[field].(map[string]any); ok {
				for k, v := range data {
					if v != nil {
						data[k] = maskedValue(v)
					}
				}
			}
		}
		if b, err := json.Marshal(m); err == nil {
			patch = b
		}
	} else if secret {
		var ops []map[string]any // a JSON Patch: mask every value under /data
		if json.Unmarshal(patch, &ops) == nil {
			for _, op := range ops {
				if p, _ := op["path"].(string); len(p) >= 5 && (p[:5] == "/data" || len(p) >= 11 && p[:11] == "/stringData") {
					if _, ok := op["value"]; ok {
						op["value"] = "(masked)"
					}
				}
			}
			if b, err := json.Marshal(ops); err == nil {
				patch = b
			}
		}
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, patch, "", "  "); err != nil {
		return string(patch)
	}
	return buf.String()
}

// diffOf is a titled line diff of two texts.
func diffOf(title, before, after, empty string) views.Diff {
	return textdiff.Titled(title, before, after, empty)
}
