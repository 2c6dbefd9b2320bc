package web

import (
	"time"

	"github.com/labstack/echo/v4"
)

// What the external tests (package web_test, over web/webtest) reach
// inside the server.

// NewAssets builds the fingerprinted asset set of fsys under base.
var NewAssets = newAssets

// AssetURLs are the served URLs of every static file, by name.
func (s *Server) AssetURLs() map[string]string { return s.assets.urls }

// Echo is the server's router, for tests that add a route or a middleware.
func (s *Server) Echo() *echo.Echo { return s.echo }

// RequireContext is the middleware of the /c/:context routes.
func (s *Server) RequireContext(next echo.HandlerFunc) echo.HandlerFunc {
	return s.env.RequireContext(next)
}

// ReadyTTL is how long a readiness answer is kept.
const ReadyTTL = readyTTL

// SetReadyClock sets the clock the readiness answer is aged by.
func (s *Server) SetReadyClock(now func() time.Time) { s.ready.now = now }

// SetBodyTimeout sets how long a request body may take to arrive.
func (s *Server) SetBodyTimeout(d time.Duration) { s.bodyTimeout = d }

// MaxSmallForm is the most a form other than the editor's may carry.
const MaxSmallForm = maxSmallForm
