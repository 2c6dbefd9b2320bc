package list

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/compress"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// An export (…/{resource}?export=csv|tsv|json|yaml) downloads the whole
// collection the list's query selects, every page of it, never the page
// shown: CSV and TSV in the list's columns, JSON and YAML as a List of the
// objects. It is streamed as it is read, one page of the upstream list
// asked ahead, so its memory is bounded by a page's decoder, not by the
// collection.
const (
	// exportPageSize is the upstream page of an export: large, to spend
	// few round trips on a long collection, yet a page's body is decoded
	// as it arrives, never held.
	exportPageSize = 1000
	// exportDeadline bounds a whole export; the setup (until the first
	// byte) has the page deadline (page.Env.Timeout).
	exportDeadline = 5 * time.Minute
	// maxExportObjects bounds an export: past it, the file ends with an
	// error line saying to export a narrower selection.
	maxExportObjects = 1_000_000
	// exportBuffer is what is written to the browser at once.
	exportBuffer = 64 << 10
)

// exportFormat is one format an export is written in.
type exportFormat struct {
	ext, contentType string
	// comma separates a CSV or TSV record's fields; 0 for JSON and YAML.
	comma rune
}

var exportFormats = map[string]exportFormat{
	"csv":  {ext: "csv", contentType: "text/csv; charset=utf-8", comma: ','},
	"tsv":  {ext: "tsv", contentType: "text/tab-separated-values; charset=utf-8", comma: '\t'},
	"json": {ext: "json", contentType: "application/json"},
	"yaml": {ext: "yaml", contentType: "application/yaml; charset=utf-8"},
}

// exportOrder is the order of the formats in the list's Export menu.
var exportOrder = []string{"csv", "tsv", "json", "yaml"}

// exportLabels name the formats in the Export menu.
var exportLabels = map[string]string{"csv": "CSV", "tsv": "TSV", "json": "JSON (a List)", "yaml": "YAML (a List)"}

// exportLinks are the Export menu of a list page: its query without what
// an export ignores (paging, the page size, sorting).
func exportLinks(base templ.SafeURL, lq Query, permits kube.Permits, r apiclient.Resource, ns string) []views.ExportLink {
	q := lq.FirstPage()
	q.Sort, q.Limit, q.Reveal = "", defaultLimit, false
	links := make([]views.ExportLink, 0, len(exportOrder))
	for _, f := range exportOrder {
		q.Export = f
		label := exportLabels[f]
		if !exportFilters(f) && len(lq.Filter) > 0 {
			// Objects are exported as the selectors select them: row
			// filters match printed cells, which a List of objects has not.
			q.Filter = nil
			label += ", without the row filters"
		}
		links = append(links, views.ExportLink{Format: f, Label: label, Href: page.WithQuery(base, q.Values())})
	}
	// A Secret list's Lists come masked; who the server says may get the
	// Secrets is offered them with their values too, asked for explicitly.
	if checks := exportChecks(r, ns); len(checks) > 0 && permits.Allowed(checks[0]) {
		q.Filter, q.Reveal = nil, true
		for _, f := range []string{"json", "yaml"} {
			q.Export = f
			links = append(links, views.ExportLink{Format: f + "-reveal", Label: exportLabels[f] + ", Secret values revealed", Href: page.WithQuery(base, q.Values())})
		}
	}
	return links
}

// parseExport reads ?export=; "" when the request is not an export.
func parseExport(q url.Values) (string, error) {
	if _, ok := q["export"]; !ok {
		return "", nil
	}
	v := q.Get("export")
	if _, ok := exportFormats[v]; !ok {
		return "", echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("export must be csv, tsv, json or yaml, not %q.", clip(v, 64)))
	}
	if !exportFilters(v) && len(q["filter"]) > 0 {
		return "", echo.NewHTTPError(http.StatusBadRequest, "Row filters (filter=) match the cells a list prints, so they apply to CSV and TSV exports; a JSON or YAML export holds the objects the label and field selectors select. Leave out filter= or export CSV.")
	}
	return v, nil
}

// exportFilters says whether an export in format f keeps only the rows the
// page's row filters keep: the tables do, Lists of objects do not.
func exportFilters(f string) bool { return f == "csv" || f == "tsv" }

// clip shortens a value a user sent to quote it in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// IsExport says whether a list request asks for an export (valid or not):
// the route table sends those to Export, which is not bound by the page
// deadline.
func IsExport(q url.Values) bool { return q.Has("export") }

// errSetupTimeout ends an export whose upstream did not start answering
// within the page deadline.
var errSetupTimeout = errors.New("export setup timed out")

// Export serves …/{resource}?export=…: the whole collection, streamed as a
// download. Errors before the first byte are error pages; an upstream that
// ends the collection early (410 on a continue token, the deadline, a cut
// connection) ends the file with an "# ERROR:" line, and the response is
// then aborted, so that no one mistakes a short file for the collection.
func (h *Handler) Export(c echo.Context, t page.Target) error {
	r, ns := t.Resource, t.Path.Namespace
	lq, err := ParseQuery(c.QueryParams())
	if err != nil {
		return err
	}
	if lq.Export == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "export must be csv, tsv, json or yaml.")
	}
	format := exportFormats[lq.Export]
	req := c.Request()
	// The export's own deadline; until its first byte, the page deadline
	// (the setup timer) as well.
	ctx, cancelDeadline := context.WithTimeout(req.Context(), exportDeadline)
	defer cancelDeadline()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	setup := time.AfterFunc(h.env.Timeout, func() { cancel(errSetupTimeout) })
	defer setup.Stop()

	release, err := h.env.AcquireStream(t.Client.IdentityKey())
	if err != nil {
		return err
	}
	defer release()

	e := &exporter{
		c: c, env: h.env, format: format, setup: setup, started: time.Now(),
		filename: exportFilename(t.Client.ContextName(), ns, r, format.ext),
	}
	secrets := r.Kind == "Secret"
	if secrets && format.comma == 0 {
		e.secrets = "masked"
		if lq.Reveal {
			if denied := h.mayReveal(ctx, t.Client, r, ns); denied != "" {
				return echo.NewHTTPError(http.StatusForbidden, denied+" Export without reveal=1 to get the objects with their values masked.")
			}
			e.secrets = "revealed"
		}
	}
	if format.comma != 0 {
		err = h.exportTable(ctx, e, t, lq)
	} else {
		err = h.exportObjects(ctx, e, t, lq)
	}
	return h.endExport(c, ctx, e, t, lq, err)
}

// revealCheck is the access check behind reveal=1: get on the Secrets
// exported.
func revealCheck(r apiclient.Resource, ns string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "get", Group: r.Group, Resource: r.Name, Namespace: ns}
}

// exportChecks are the access checks of a list page's Export menu: of a
// Secret list, whether it may offer the values revealed.
func exportChecks(r apiclient.Resource, ns string) []apiclient.AccessCheck {
	if r.Kind != "Secret" {
		return nil
	}
	return []apiclient.AccessCheck{revealCheck(r, ns)}
}

// mayReveal says why the user may not have Secret values exported ("" when
// they may): only a user the server says may get them there.
func (h *Handler) mayReveal(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns string) string {
	check := revealCheck(r, ns)
	permits := h.env.Permits(ctx, client, []apiclient.AccessCheck{check})
	if permits.Allowed(check) {
		return ""
	}
	if denied := permits.Denied(check); denied != "" {
		return denied + "."
	}
	where := "at the cluster scope"
	if ns != "" {
		where = "in namespace " + ns
	}
	return fmt.Sprintf("The server could not confirm that you may get %s %s, so their values are not revealed.", r.Name, where)
}

// exporter writes one export's response.
type exporter struct {
	c        echo.Context
	env      *page.Env
	format   exportFormat
	filename string
	// secrets is "masked" or "revealed" for an export of Secret objects,
	// "" otherwise.
	secrets string
	setup   *time.Timer
	started time.Time

	w *bufio.Writer // nil until the headers are sent
	// z compresses the body as the browser accepts; nil sends it as it is.
	z    *compress.Stream
	rows int
	// writeErr is the browser's connection failing: nothing more can reach
	// it, so the export stops without an error line.
	writeErr error
}

// begin sends the headers: from here on, an error can only end the file.
// It stops the setup deadline: the export has the rest of its own.
func (e *exporter) begin() {
	if e.w != nil {
		return
	}
	e.setup.Stop()
	h := e.c.Response().Header()
	h.Set(echo.HeaderContentType, e.format.contentType)
	h.Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": e.filename}))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if e.secrets != "" {
		h.Set("X-Tabula-Secret-Values", e.secrets)
	}
	e.z = e.env.CompressStream(e.c)
	e.c.Response().WriteHeader(http.StatusOK)
	e.w = bufio.NewWriterSize(browserWriter{e}, exportBuffer)
}

// flush sends what was written so far to the browser (and, compressed, in
// a form it decodes at once).
func (e *exporter) flush() error {
	if err := e.w.Flush(); err != nil {
		return err
	}
	if e.z != nil {
		e.z.Flush()
	} else {
		e.c.Response().Flush()
	}
	return e.writeErr
}

// end ends the body: what is buffered, then the compression's end.
func (e *exporter) end() error {
	err := e.w.Flush()
	if e.z != nil {
		err = cmp.Or(err, e.z.Close())
	}
	return cmp.Or(err, e.writeErr)
}

// browserWriter is the response (through the compression, if any),
// remembering its first failure.
type browserWriter struct{ e *exporter }

func (b browserWriter) Write(p []byte) (int, error) {
	var n int
	var err error
	if b.e.z != nil {
		n, err = b.e.z.Write(p)
	} else {
		n, err = b.e.c.Response().Write(p)
	}
	if err != nil && b.e.writeErr == nil {
		b.e.writeErr = err
	}
	return n, err
}

// exportTable writes the collection as CSV or TSV: the list's columns as
// the header, then each row's cells as the list page builds them
// (kube.NewListView), so columns the query adds or hides apply here too.
func (h *Handler) exportTable(ctx context.Context, e *exporter, t page.Target, lq Query) error {
	r, ns := t.Resource, t.Path.Namespace
	lq = lq.FirstPage()
	lq.Sort = "" // the server's order: sorting needs the whole collection
	opts := Options(lq, r, ns)
	opts.Limit = exportPageSize
	rows := newCollectionRows(ctx, t.Client, r, opts)
	defer rows.Close()
	head, err := rows.Open()
	if err != nil {
		return page.WithAction(err, "list", r, ns, "")
	}
	in := Input{URLs: t.URLs, Resource: r, Namespace: ns, Query: lq, Table: head}
	view := kube.NewListView(in.table())
	// The whole collection is read, so the rows the page's filters keep
	// are exported whatever the filtered pages' scan budget.
	filter, err := bindFilters(lq.Filter, view.Columns)
	if err != nil {
		return err
	}
	e.begin()
	w := csv.NewWriter(e.w)
	w.Comma = e.format.comma
	record := make([]string, len(view.Columns))
	for i, col := range view.Columns {
		record[i] = neutralized(col.Name)
	}
	if err := w.Write(record); err != nil {
		return err
	}
	// What was written so far reaches the browser while the next page
	// is awaited: a slow upstream shows as a slow download, not a stalled one.
	rows.pageEnded = func() {
		w.Flush()
		_ = e.flush()
	}
	built := view.Stream(rows)
	for built.Next() {
		if !filter.Match(built.Row()) {
			continue
		}
		record = record[:0]
		for _, cell := range built.Row().Cells {
			record = append(record, neutralized(cell.Text))
		}
		if err := w.Write(record); err != nil {
			return err
		}
		e.rows++
	}
	w.Flush()
	if err := built.Err(); err != nil {
		return err
	}
	return w.Error()
}

// neutralized keeps a cell from being read as a formula by a spreadsheet
// (CSV injection): a cell that begins with =, +, -, @, a tab or a carriage
// return gets a leading apostrophe, as OWASP advises, unless it is a
// number ("-1").
func neutralized(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s
		}
		return "'" + s
	}
	return s
}

// exportObjects writes the collection as a List of its objects, JSON or
// YAML, one object at a time as each is decoded: never the whole list.
func (h *Handler) exportObjects(ctx context.Context, e *exporter, t page.Target, lq Query) error {
	r, ns := t.Resource, t.Path.Namespace
	apiVersion := r.GroupVersion().String()
	q := apiclient.ListQuery{
		LabelSelector: lq.LabelSelector, FieldSelector: lq.FieldSelector, PageSize: exportPageSize, MaxObjects: maxExportObjects,
		// As kubectl get -o yaml and the object page's YAML leave them out:
		// bookkeeping of who wrote which field, often most of an object.
		Omit: []string{"metadata.managedFields"},
	}
	yamlOut := e.format.ext == "yaml"
	var item []byte
	_, err := t.Client.EachObject(ctx, r, ns, q, func(obj *unstructured.Unstructured) error {
		if e.w == nil {
			e.begin()
			if err := e.prologue(t, lq, yamlOut); err != nil {
				return err
			}
		}
		// Items of built-in lists carry no apiVersion or kind (clients
		// must not rely on them); an exported List's items need them.
		if obj.GetAPIVersion() == "" {
			obj.SetAPIVersion(apiVersion)
		}
		if obj.GetKind() == "" {
			obj.SetKind(r.Kind)
		}
		if obj.GetKind() == "Secret" && e.secrets != "revealed" {
			kube.MaskSecret(obj)
		}
		var err error
		if yamlOut {
			if e.rows == 0 {
				err = e.w.WriteByte('\n') // after "items:"
			}
			if err == nil {
				err = yamlItem(e.w, obj.Object)
			}
		} else {
			item, err = json.Marshal(obj.Object)
			if err == nil {
				if e.rows > 0 {
					_ = e.w.WriteByte(',')
				}
				_ = e.w.WriteByte('\n')
				_, err = e.w.Write(item)
			}
		}
		if err != nil {
			return err
		}
		e.rows++
		return nil
	})
	if errors.Is(err, apiclient.ErrListCut) {
		err = fmt.Errorf("the collection has more than %d objects, the most one export holds: export a narrower selection", maxExportObjects)
	}
	if err != nil {
		if e.w == nil {
			return page.WithAction(err, "list", r, ns, "")
		}
		return err
	}
	if e.w == nil {
		e.begin()
		if err := e.prologue(t, lq, yamlOut); err != nil {
			return err
		}
	}
	if yamlOut {
		if e.rows == 0 {
			_, err = e.w.WriteString(" []\n")
		}
		return err
	}
	_, err = e.w.WriteString("\n]}\n")
	return err
}

// prologue starts a List: for YAML, comment lines saying what was exported
// and whether Secret values are masked.
func (e *exporter) prologue(t page.Target, lq Query, yamlOut bool) error {
	if !yamlOut {
		_, err := e.w.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`)
		return err
	}
	where := "all namespaces"
	if t.Path.Namespace != "" {
		where = "namespace " + t.Path.Namespace
	} else if !t.Resource.Namespaced {
		where = "cluster-scoped"
	}
	what := fmt.Sprintf("%s (%s) in context %s, %s", t.Resource.Name, t.Resource.GroupVersion(), t.Client.ContextName(), where)
	if lq.LabelSelector != "" {
		what += ", labelSelector " + lq.LabelSelector
	}
	if lq.FieldSelector != "" {
		what += ", fieldSelector " + lq.FieldSelector
	}
	// One comment line, whatever the names and selectors hold.
	what = strings.Map(func(r rune) rune {
		if r < ' ' || r == '\u2028' || r == '\u2029' || r == 0x7f || r == 0x85 {
			return ' '
		}
		return r
	}, what)
	fmt.Fprintf(e.w, "# %s; exported by Tabula at %s.\n", what, e.started.UTC().Format(time.RFC3339))
	switch e.secrets {
	case "masked":
		_, _ = e.w.WriteString("# Secret values are masked (keys kept). Ask with reveal=1, as a user who may get them, to export them.\n")
	case "revealed":
		_, _ = e.w.WriteString("# Secret values are revealed, as asked (reveal=1). Keep this file as you would the Secrets.\n")
	}
	_, err := e.w.WriteString("apiVersion: v1\nkind: List\nmetadata: {}\nitems:")
	return err
}

// endExport finishes an export. Before the first byte an error is an
// error page. After it, an upstream error ends the file with an error line,
// which is flushed, and then the response is aborted, so a browser or
// curl marks the download failed rather than keep a silently short file.
// Each export is logged: who, what, how many rows, how it ended.
func (h *Handler) endExport(c echo.Context, ctx context.Context, e *exporter, t page.Target, lq Query, err error) error {
	if err != nil && e.w == nil && context.Cause(ctx) == errSetupTimeout {
		err = echo.NewHTTPError(http.StatusGatewayTimeout, fmt.Sprintf("The API server did not start answering within %s; nothing was exported.", h.env.Timeout))
	}
	result := "complete"
	var line string
	switch {
	case err == nil && e.w != nil:
		err = e.end()
		if err != nil {
			result = "the browser went away"
		}
	case e.writeErr != nil || (err != nil && c.Request().Context().Err() != nil):
		result = "the browser went away"
	case err != nil && e.w == nil:
		result = fmt.Sprintf("refused (%d)", page.StatusOf(err))
	case err != nil:
		result = "cut short: " + exportErrorMessage(ctx, err)
		what := "rows"
		if e.format.comma == 0 {
			what = "objects"
		}
		line = fmt.Sprintf("\n# ERROR: the export ended after %d %s: %s\n", e.rows, what, exportErrorMessage(ctx, err))
	}
	r := t.Resource
	h.env.Log.Info("export",
		"who", page.Who(c), "context", t.Client.ContextName(),
		"group", r.Group, "version", r.Version, "resource", r.Name, "namespace", t.Path.Namespace,
		"labelSelector", lq.LabelSelector, "fieldSelector", lq.FieldSelector,
		"format", e.format.ext, "secretValues", e.secrets, "rows", e.rows,
		"result", result, "duration", time.Since(e.started).Round(time.Millisecond))
	switch {
	case e.w == nil:
		return err
	case line != "":
		_, _ = e.w.WriteString(line)
		_ = e.flush()
		panic(http.ErrAbortHandler)
	case result != "complete":
		// The browser is gone: nothing to tell it.
		panic(http.ErrAbortHandler)
	}
	return nil
}

// exportErrorMessage is what the error line says: the server's message, or
// which deadline ended the export.
func exportErrorMessage(ctx context.Context, err error) string {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return fmt.Sprintf("it took longer than %s, the most an export may take", exportDeadline)
	}
	msg := page.StatusFor(err).Message
	var bad *apiclient.BadResponseError
	if errors.As(err, &bad) {
		// Not the page's words ("nothing of it is shown"): the file holds
		// what was read of the answer before it was cut.
		msg = bad.Error()
	}
	if msg == "" {
		msg = err.Error()
	}
	return strings.ReplaceAll(msg, "\n", " ")
}

// exportFilename names the download after what it holds:
// admin-demo-pods.csv, admin-deployments.apps.yaml (all namespaces).
func exportFilename(context, namespace string, r apiclient.Resource, ext string) string {
	parts := []string{context}
	if namespace != "" {
		parts = append(parts, namespace)
	}
	name := r.Name
	if r.Group != "" {
		name += "." + r.Group
	}
	parts = append(parts, name)
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			return c
		}
		return '_'
	}, strings.Join(parts, "-")) + "." + ext
}
