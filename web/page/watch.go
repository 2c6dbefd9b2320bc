package page

import (
	"net/http"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
)

// Watches is how the console keeps an upstream watch going, alone
// (streaming.KeepWatching) or shared (the list's streaming.Hub): it
// resumes from the last event's version, and stops at a refusal that
// retrying cannot fix.
func Watches() streaming.Policy[apiclient.WatchEvent] {
	return streaming.Policy[apiclient.WatchEvent]{
		Version:  func(e apiclient.WatchEvent) string { return e.ResourceVersion },
		Expired:  apiclient.IsExpired,
		Fatal:    permanentWatchError,
		Bookmark: func(e apiclient.WatchEvent) bool { return e.Type == apiclient.WatchBookmark },
	}
}

// permanentWatchError is an upstream refusal that retrying cannot fix.
func permanentWatchError(err error) bool {
	switch StatusOf(err) {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnprocessableEntity:
		return true
	}
	return false
}
