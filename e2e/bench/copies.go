package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"sync"
)

// staticCopies serves copies of console pages from the floor's server:
// each page as the console sent it, and the same without its scripts
// (the import map and the module scripts) and its sidebar. Loaded beside
// the live pages, they tell the browser's cost of a page, with no server
// work beside it, from what the server adds; and what the scripts and
// the sidebar add to it. The console's assets are proxied, so a whole
// copy loads what its page does.
type staticCopies struct {
	console string

	mu    sync.Mutex
	pages [][]byte // served at /copy/{index}
}

// maxCopy bounds a copied page (the 5,000-row list is about 2.6 MB).
const maxCopy = 64 << 20

// add copies the page at pageURL and returns the paths of its whole copy
// and of its copy without scripts and sidebar.
func (c *staticCopies) add(ctx context.Context, pageURL string) (whole, bare string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return "", "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("%s answered %s", pageURL, resp.Status)
	}
	page, err := io.ReadAll(io.LimitReader(resp.Body, maxCopy+1))
	if err != nil {
		return "", "", err
	}
	if len(page) > maxCopy {
		return "", "", fmt.Errorf("%s is over %d bytes", pageURL, maxCopy)
	}
	stripped, err := withoutScriptsAndSidebar(page)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", pageURL, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.pages)
	c.pages = append(c.pages, page, stripped)
	return "/copy/" + strconv.Itoa(n), "/copy/" + strconv.Itoa(n+1), nil
}

var (
	pageScripts    = regexp.MustCompile(`(?s)<script type="(?:module|importmap)"[^>]*>.*?</script>`)
	pageSidebar    = regexp.MustCompile(`(?s)<nav id="sidebar".*?</nav>`)
	pageNavToggle  = regexp.MustCompile(`(?s)<button type="button" class="nav-toggle".*?</button>`)
	pageShellOfNav = regexp.MustCompile(`class="shell shell-with-nav"`)
)

// withoutScriptsAndSidebar is page less its import map, its module
// scripts and its sidebar, laid out as a page without one (views.Base
// writes them so); an error if any of them is left, or missing.
func withoutScriptsAndSidebar(page []byte) ([]byte, error) {
	if !pageScripts.Match(page) || !pageSidebar.Match(page) || !pageShellOfNav.Match(page) {
		return nil, errors.New("the page has no module scripts or no sidebar to take out: has views.Base changed?")
	}
	bare := pageScripts.ReplaceAll(page, nil)
	bare = pageSidebar.ReplaceAll(bare, nil)
	bare = pageNavToggle.ReplaceAll(bare, nil)
	bare = pageShellOfNav.ReplaceAll(bare, []byte(`class="shell"`))
	// (The stylesheet names .nav-toggle and #sidebar too: look for the
	// elements.)
	if pageScripts.Match(bare) || bytes.Contains(bare, []byte(`<nav id="sidebar"`)) || bytes.Contains(bare, []byte(`class="nav-toggle"`)) {
		return nil, errors.New("a script or the sidebar is left in the page: has views.Base changed?")
	}
	return bare, nil
}

// handler serves the copies, the console's assets, and floor for the rest.
func (c *staticCopies) handler(floor http.Handler) http.Handler {
	mux := http.NewServeMux()
	if u, err := url.Parse(c.console); err == nil {
		mux.Handle("/static/", httputil.NewSingleHostReverseProxy(u))
	}
	mux.HandleFunc("GET /copy/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		c.mu.Lock()
		ok := err == nil && n >= 0 && n < len(c.pages)
		var page []byte
		if ok {
			page = c.pages[n]
		}
		c.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin") // as the console's pages
		_, _ = w.Write(page)
	})
	mux.Handle("/", floor)
	return mux
}
