package edit

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/page"
)

// ChangeMessage tells an open editor that the object changed on the
// server, and who changed it, before the user saves.
type ChangeMessage struct {
	Type            string    `json:"type"` // "changed" or "deleted"
	ResourceVersion string    `json:"resourceVersion,omitempty"`
	Manager         string    `json:"manager,omitempty"`
	Operation       string    `json:"operation,omitempty"`
	At              time.Time `json:"at,omitzero"`
}

// Live serves …/{name}/edit?rv= over WebSocket: it watches the object from
// the version the editor loaded and reports every later change.
func (h *Handler) Live(c echo.Context, t page.Target) error {
	loaded := c.QueryParam("rv")
	return h.env.FollowInSlot(c, t.Client.IdentityKey(), func(stream *page.Stream) error { return h.follow(stream, t, loaded) })
}

func (h *Handler) follow(stream *page.Stream, t page.Target, loaded string) error {
	ctx := stream.Context
	opts := apiclient.WatchOptions{Namespace: t.Path.Namespace, FieldSelector: fields.OneTermEqualSelector("metadata.name", t.Path.Name).String()}
	var sendErr error
	emit := func(ev apiclient.WatchEvent) {
		// Without a loaded version there is nothing to compare a relist's
		// ADDED with.
		if sendErr != nil || ev.ResourceVersion == loaded || ev.Type == apiclient.WatchBookmark || loaded == "" && ev.Type == "ADDED" {
			return
		}
		msg := ChangeMessage{Type: "changed", ResourceVersion: ev.ResourceVersion}
		if ev.Type == "DELETED" {
			msg = ChangeMessage{Type: "deleted"}
		}
		if ch := ev.Change; ch != nil && msg.Type == "changed" {
			msg.Manager, msg.Operation, msg.At = ch.Manager, ch.Operation, ch.Time
		}
		sendErr = stream.SendJSON(ctx, streaming.ChannelData, msg)
	}
	// From the loaded version: a change made between loading the editor
	// and opening this stream is reported too. An expired version relists
	// (ADDED of the current object), which reports it if it differs.
	first := true
	err := streaming.KeepWatching(ctx, page.Watches(), func(ctx context.Context, from string, emit func(apiclient.WatchEvent)) error {
		if first {
			from, first = loaded, false
		}
		opts.ResourceVersion = from
		return t.Client.WatchMeta(ctx, t.Resource, opts, emit)
	}, emit)
	if sendErr != nil {
		return nil // the browser left
	}
	return err
}
