package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// assets serves embedded files under content-hashed names
// ("app.3f2a9c1e.css"), so browsers may cache them forever.
type assets struct {
	byHashed map[string]asset
	urls     map[string]string // logical name → URL
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

const assetPrefix = "/static/"

func newAssets(files fs.FS) (*assets, error) {
	a := &assets{byHashed: map[string]asset{}, urls: map[string]string{}}
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
		a.byHashed[hashed] = asset{body: body, contentType: ctype, etag: `"` + hash + `"`}
		a.urls[name] = assetPrefix + hashed
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("indexing static assets: %w", err)
	}
	return a, nil
}

// URL returns the fingerprinted URL of a logical asset name.
func (a *assets) URL(name string) string { return a.urls[name] }

func (a *assets) handle(c echo.Context) error {
	f, ok := a.byHashed[c.Param("file")]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such asset")
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, f.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", f.etag)
	if c.Request().Header.Get("If-None-Match") == f.etag {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, f.contentType, f.body)
}
