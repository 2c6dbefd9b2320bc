package page

import (
	"context"
	"net/http"
	"time"

	"github.com/tabula-console/tabula/apiclient"
)

// PermanentWatchError is an upstream refusal that retrying cannot fix.
func PermanentWatchError(err error) bool {
	switch StatusOf(err) {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// WatchFunc runs one upstream watch from a resourceVersion ("" for now),
// emitting its events until it ends.
type WatchFunc func(ctx context.Context, resourceVersion string, emit func(apiclient.WatchEvent)) error

// KeepWatching runs a watch that only signals change, resuming from the
// last version seen after drops and from now after a 410. Bookmarks are not
// passed on. It returns only for a refusal retrying cannot fix, or nil
// when ctx ends.
func KeepWatching(ctx context.Context, watch WatchFunc, emit func(apiclient.WatchEvent)) error {
	rv := ""
	backoff := 250 * time.Millisecond
	for {
		started := time.Now()
		err := watch(ctx, rv, func(e apiclient.WatchEvent) {
			rv = e.ResourceVersion
			if e.Type != apiclient.WatchBookmark {
				emit(e)
			}
		})
		switch {
		case ctx.Err() != nil:
			return nil
		case apiclient.IsExpired(err):
			rv = ""
		case PermanentWatchError(err):
			return err
		}
		if time.Since(started) > 10*time.Second {
			backoff = 250 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}
