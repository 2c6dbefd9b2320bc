package web

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/compress"
)

// assets serves embedded files under content-hashed names
// ("app.3f2a9c1e.css", "live/channel.5b0d1e2f.js"), so browsers may cache
// them forever.
type assets struct {
	byHashed  map[string]*asset
	urls      map[string]string // logical name → URL
	importMap string
	// styles is the stylesheet every page carries inline (inlineStyles).
	styles string
	// encoding decides each response's coding (page.Env.Encoding); nil
	// sends every asset as it is.
	encoding func(echo.Context, int) compress.Encoding
}

type asset struct {
	body        []byte
	contentType string
	etag        string
	// br and gzip are body compressed at the best level, once, when a
	// browser first asks for that coding: never per request.
	br, gzip encoded
}

// encoded is an asset in one coding, made on first use.
type encoded struct {
	once sync.Once
	body []byte // nil: the coding does not shrink the asset
}

// in returns the asset's body in enc and the coding it is really in: an
// asset that does not shrink, or fails to encode, goes as it is.
func (f *asset) in(enc compress.Encoding, log *slog.Logger) ([]byte, compress.Encoding) {
	var e *encoded
	switch enc {
	case compress.Brotli:
		e = &f.br
	case compress.Gzip:
		e = &f.gzip
	default:
		return f.body, compress.Identity
	}
	e.once.Do(func() {
		body, err := compress.CompressBest(enc, f.body)
		if err != nil {
			log.Error("compressing a static asset", "etag", f.etag, "encoding", enc, "error", err)
			return
		}
		if len(body) < len(f.body) {
			e.body = body
		}
	})
	if e.body == nil {
		return f.body, compress.Identity
	}
	return e.body, enc
}

const assetPrefix = "/static/"

// newAssets indexes files; their URLs, and the import map, carry the base
// path, as every URL the console writes does.
func newAssets(files fs.FS, base string) (*assets, error) {
	a := &assets{byHashed: map[string]*asset{}, urls: map[string]string{}}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(name, ".go") {
			return err
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])[:12]
		ext := path.Ext(name)
		hashed := strings.TrimSuffix(name, ext) + "." + hash + ext
		ctype := mime.TypeByExtension(ext)
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		a.byHashed[hashed] = &asset{body: body, contentType: ctype, etag: `"` + hash + `"`}
		a.urls[name] = base + assetPrefix + hashed
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("indexing static assets: %w", err)
	}
	if a.importMap, err = buildImportMap(base, a.urls); err != nil {
		return nil, err
	}
	if a.styles, err = inlineStyles(files, inlineStylesheet); err != nil {
		return nil, err
	}
	return a, nil
}

// inlineStylesheet is the stylesheet every page carries in a <style>
// element under the CSP nonce, rather than linking it: a linked one blocks
// rendering until it arrives, which in a new browser context (or once the
// cache let it go) is a request after the HTML's, by when a long list has
// been parsed whole and its first frame lays out every row. Inline, a page
// paints from its first chunk; the cost is about 11 KB (brotli) a page.
const inlineStylesheet = "app.css"

// inlineStyles reads the stylesheet pages carry inline: text that could
// end its <style> element, or an @import (which would resolve against
// each page), is refused at start rather than broken in the browser.
func inlineStyles(files fs.FS, name string) (string, error) {
	body, err := fs.ReadFile(files, name)
	if err != nil {
		return "", fmt.Errorf("reading the inline stylesheet: %w", err)
	}
	css := string(body)
	if i := strings.Index(css, "</"); i >= 0 {
		return "", fmt.Errorf("the inline stylesheet %s holds %q at byte %d, which would end its <style> element", name, "</", i)
	}
	if strings.Contains(strings.ToLower(css), "@import") {
		return "", fmt.Errorf("the inline stylesheet %s imports another: inline, it would resolve against each page", name)
	}
	return css, nil
}

// Styles is the stylesheet pages carry inline (inlineStylesheet).
func (a *assets) Styles() string { return a.styles }

// URL returns the fingerprinted URL of a logical asset name.
func (a *assets) URL(name string) string { return a.urls[name] }

// ImportMap returns the page's import map as JSON:
// {"imports":{"/static/live/channel.js":"/static/live/channel.<hash>.js",…}},
// one entry per JavaScript asset, both sides under the base path. Modules import each other by relative
// specifiers; the browser resolves "./live/channel.js" against the hashed
// URL of the importing module (/static/live.<hash>.js) to the logical
// /static/live/channel.js, which the map turns into the hashed URL. Hashed
// names keep their directory for that reason.
//
// The JSON goes inside a <script> element; encoding/json escapes <, > and
// &, so it cannot close the element.
func (a *assets) ImportMap() string { return a.importMap }

func buildImportMap(base string, urls map[string]string) (string, error) {
	imports := map[string]string{}
	for name, url := range urls {
		if path.Ext(name) == ".js" {
			imports[base+assetPrefix+name] = url
		}
	}
	b, err := json.Marshal(struct {
		Imports map[string]string `json:"imports"`
	}{imports})
	if err != nil {
		return "", fmt.Errorf("encoding the import map: %w", err)
	}
	return string(b), nil
}

// handle serves an asset, compressed as the browser accepts. Its codings
// share its ETag: they are the same immutable content, revalidation can
// only answer 304, and Vary keeps caches from mixing the bytes (there are
// no range requests for a strong validator to mislead).
func (a *assets) handle(log *slog.Logger) echo.HandlerFunc {
	return func(c echo.Context) error {
		// The wildcard keeps directories: "live/channel.<hash>.js".
		f, ok := a.byHashed[c.Param("*")]
		if !ok {
			return echo.NewHTTPError(http.StatusNotFound, "no such asset")
		}
		enc := compress.Identity
		if a.encoding != nil && compress.Compressible(f.contentType) {
			enc = a.encoding(c, len(f.body))
		}
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, f.contentType)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", f.etag)
		if c.Request().Header.Get("If-None-Match") == f.etag {
			return c.NoContent(http.StatusNotModified)
		}
		body, enc := f.in(enc, log)
		if enc != compress.Identity {
			h.Set(echo.HeaderContentEncoding, string(enc))
		}
		h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
		return c.Blob(http.StatusOK, f.contentType, body)
	}
}
