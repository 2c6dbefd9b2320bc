package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
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
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.pages)
	c.pages = append(c.pages, page, withoutScriptsAndSidebar(page))
	return "/copy/" + strconv.Itoa(n), "/copy/" + strconv.Itoa(n+1), nil
}

var (
	pageScripts = regexp.MustCompile(`(?s)<script type="(?:module|importmap)"[^>]*>.*?</script>`)
	pageSidebar = regexp.MustCompile(`(?s)<nav id="sidebar".*?</nav>`)
)

// withoutScriptsAndSidebar is page less its import map, its module
// scripts and its sidebar (views.Base writes them so).
func withoutScriptsAndSidebar(page []byte) []byte {
	return pageSidebar.ReplaceAll(pageScripts.ReplaceAll(page, nil), nil)
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

// cpuStalled is how long, in all, some runnable task of this machine has
// waited for a core (Linux's pressure stall information), and false
// where the kernel does not say.
func cpuStalled() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "some "); ok {
			for field := range strings.FieldsSeq(rest) {
				if v, ok := strings.CutPrefix(field, "total="); ok {
					us, err := strconv.ParseInt(v, 10, 64)
					return time.Duration(us) * time.Microsecond, err == nil
				}
			}
		}
	}
	return 0, false
}
