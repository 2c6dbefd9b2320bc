package logs

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/page"
)

const (
	defaultTailLines = 500
	defaultKeepLines = 5000
	maxKeepLines     = 100000
)

// Query is a log page's controls, parsed from its URL. Booleans take the
// API's own spellings ("true") as well as the form's ("1").
type Query struct {
	Container string
	Follow    bool
	// TailLines is nil for the whole log.
	TailLines  *int64
	Since      time.Duration
	SinceTime  time.Time // where a reconnecting page resumes
	Timestamps bool
	Previous   bool
	Wrap       bool
	Search     string
	Filter     bool
	Keep       int
	Download   bool
}

// ParseQuery reads a log page's controls.
func ParseQuery(q url.Values) (Query, error) {
	lq := Query{
		Container:  q.Get("container"),
		Follow:     page.Bool(q, "follow"),
		Timestamps: page.Bool(q, "timestamps"),
		Previous:   page.Bool(q, "previous"),
		Wrap:       page.Bool(q, "wrap"),
		Search:     q.Get("q"),
		Filter:     page.Bool(q, "filter"),
		Keep:       defaultKeepLines,
		Download:   page.Bool(q, "download"),
	}
	// A first visit follows the last 500 lines, as an operator expects; once
	// the form was submitted, an unchecked box means off. A reconnecting
	// page always says follow=0 or follow=1.
	if _, submitted := q["tailLines"]; !submitted && !q.Has("follow") {
		lq.Follow = true
	}
	// A download is a file of what is there now: it never follows, so no
	// request can hold an upstream stream open by downloading.
	if lq.Download {
		lq.Follow = false
	}
	tail := int64(defaultTailLines)
	lq.TailLines = &tail
	if v, ok := q["tailLines"]; ok {
		switch s := strings.TrimSpace(v[0]); s {
		case "", "all":
			lq.TailLines = nil
		default:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 {
				return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Tail lines must be a whole number or \"all\", not %q.", s))
			}
			lq.TailLines = &n
		}
	}
	if s := strings.TrimSpace(q.Get("since")); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Since must be a duration such as 10m or 2h, not %q.", s))
		}
		lq.Since = d
	}
	if s := q.Get("sinceTime"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("sinceTime must be an RFC 3339 time, not %q.", s))
		}
		lq.SinceTime = t
	}
	if s := q.Get("max"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 || n > maxKeepLines {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Keep lines must be a number from 10 to %d.", maxKeepLines))
		}
		lq.Keep = n
	}
	return lq, nil
}

// upstream are the pods/log options for one container. Streams always ask
// for timestamps: merging orders by them and a reconnecting page resumes
// from them; the page hides them unless asked.
func (lq Query) upstream(container string, stream bool) apiclient.LogOptions {
	o := apiclient.LogOptions{
		Container:  container,
		Follow:     lq.Follow && stream,
		Previous:   lq.Previous,
		Timestamps: stream || lq.Timestamps,
		TailLines:  lq.TailLines,
	}
	switch {
	case !lq.SinceTime.IsZero():
		// The API takes whole seconds; the page drops what it has seen.
		// An absolute time, unlike sinceSeconds, does not depend on the
		// console's clock agreeing with the node's.
		since := lq.SinceTime.Truncate(time.Second)
		o.SinceTime, o.TailLines = &since, nil
	case lq.Since > 0:
		secs := int64(math.Ceil(lq.Since.Seconds()))
		o.SinceSeconds = &secs
	}
	return o
}
