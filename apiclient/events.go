package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Event is one kind of happening about an object: events with the same type,
// reason and message are merged, their counts summed.
type Event struct {
	Type    string // Normal, Warning
	Reason  string
	Message string
	Source  string // the reporting component, e.g. "kubelet"
	Count   int32
	// FirstSeen and LastSeen bound the occurrences; either may be zero when
	// the server recorded no time at all.
	FirstSeen, LastSeen time.Time
}

// EventsForbiddenError says the user may not list events. It wraps the
// server's *apierrors.StatusError (so apierrors.IsForbidden still holds);
// pages show the object and a note such as "events hidden: forbidden"
// instead of failing.
type EventsForbiddenError struct{ Err error }

func (e *EventsForbiddenError) Error() string { return "events hidden: " + e.Err.Error() }

func (e *EventsForbiddenError) Unwrap() error { return e.Err }

// ErrNoEventsAPI says the server serves neither events.k8s.io/v1 events
// nor core v1 events (a non-Kubernetes server, for example): pages show the
// object without an events section.
var ErrNoEventsAPI = errors.New("the server serves no events API")

// EventsResource returns the events resource a page should list and watch:
// events.k8s.io/v1 when the server lists it, else core v1 events; false
// when it serves neither.
func (d *Discovery) EventsResource() (Resource, bool) {
	if rs := d.eventsResources(); len(rs) > 0 {
		return rs[0], true
	}
	return Resource{}, false
}

// eventsResources are the listable events resources, best first.
func (d *Discovery) eventsResources() []Resource {
	var out []Resource
	for _, gv := range []struct{ group, version string }{{"events.k8s.io", "v1"}, {"", "v1"}} {
		if r, ok := d.Lookup(gv.group, gv.version, "events"); ok && r.Can("list") {
			out = append(out, r)
		}
	}
	return out
}

// EventsFor lists the events about the object with uid in namespace
// (namespace "" for a cluster-scoped object: events in every namespace),
// newest first, merged by type, reason and message.
//
// It asks the events resources discovery lists (cached), best first:
// events.k8s.io/v1 (fieldSelector regarding.uid), then core/v1
// (fieldSelector involvedObject.uid) when the first lacks the field
// selector or the resource (404, 400, 405) or forbids it (403: a user may
// be allowed only the core events). A server serving neither gets
// ErrNoEventsAPI without any request. A 403 on the last comes back as
// *EventsForbiddenError; any other failure as the server's Status.
func (c *Client) EventsFor(ctx context.Context, namespace string, uid types.UID) ([]Event, error) {
	if err := checkNames(namespace); err != nil {
		return nil, err
	}
	d, err := c.Discovery(ctx)
	if err != nil {
		return nil, err
	}
	candidates := d.eventsResources()
	if len(candidates) == 0 {
		return nil, ErrNoEventsAPI
	}
	best, last := candidates[:len(candidates)-1], candidates[len(candidates)-1]
	for _, r := range best {
		events, err := c.eventsOf(ctx, r, namespace, uid)
		if err == nil {
			return mergeEvents(events), nil
		}
		if !apierrors.IsNotFound(err) && !apierrors.IsBadRequest(err) && !apierrors.IsMethodNotSupported(err) && !apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("listing events: %w", err)
		}
	}
	events, err := c.eventsOf(ctx, last, namespace, uid)
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, &EventsForbiddenError{Err: err}
		}
		return nil, fmt.Errorf("listing events: %w", err)
	}
	return mergeEvents(events), nil
}

// eventsOf lists the events about uid from r, an events resource of
// events.k8s.io or of the core group.
func (c *Client) eventsOf(ctx context.Context, r Resource, namespace string, uid types.UID) ([]Event, error) {
	if r.Group == "events.k8s.io" {
		body, err := c.listEvents(ctx, r, namespace, "regarding.uid", uid)
		if err != nil {
			return nil, err
		}
		var list eventsv1.EventList
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, fmt.Errorf("decoding events.k8s.io/v1 events: %w", err)
		}
		out := make([]Event, 0, len(list.Items))
		for i := range list.Items {
			out = append(out, fromEventsV1(&list.Items[i]))
		}
		return out, nil
	}
	body, err := c.listEvents(ctx, r, namespace, "involvedObject.uid", uid)
	if err != nil {
		return nil, err
	}
	var list corev1.EventList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decoding core/v1 events: %w", err)
	}
	out := make([]Event, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, fromCoreEvent(&list.Items[i]))
	}
	return out, nil
}

// IsEventsForbidden reports whether err is (or wraps) an EventsForbiddenError.
func IsEventsForbidden(err error) bool {
	var e *EventsForbiddenError
	return errors.As(err, &e)
}

func (c *Client) listEvents(ctx context.Context, r Resource, namespace, field string, uid types.UID) ([]byte, error) {
	req := c.get(r, namespace, "", MediaTypeJSON).
		Param("fieldSelector", fields.OneTermEqualSelector(field, string(uid)).String())
	body, err := doRaw(ctx, req)
	return body, err
}

func fromEventsV1(e *eventsv1.Event) Event {
	out := Event{Type: e.Type, Reason: e.Reason, Message: e.Note, Source: e.ReportingController}
	if out.Source == "" {
		out.Source = e.DeprecatedSource.Component
	}
	switch {
	case e.Series != nil:
		out.Count = e.Series.Count
	case e.DeprecatedCount > 0:
		out.Count = e.DeprecatedCount
	default:
		out.Count = 1
	}
	out.FirstSeen = firstTime(e.DeprecatedFirstTimestamp, e.EventTime, e.CreationTimestamp)
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		out.LastSeen = e.Series.LastObservedTime.Time
	case !e.DeprecatedLastTimestamp.IsZero():
		out.LastSeen = e.DeprecatedLastTimestamp.Time
	default:
		out.LastSeen = out.FirstSeen
	}
	return out
}

func fromCoreEvent(e *corev1.Event) Event {
	out := Event{Type: e.Type, Reason: e.Reason, Message: e.Message, Source: e.Source.Component}
	if out.Source == "" {
		out.Source = e.ReportingController
	}
	switch {
	case e.Series != nil:
		out.Count = e.Series.Count
	case e.Count > 0:
		out.Count = e.Count
	default:
		out.Count = 1
	}
	out.FirstSeen = firstTime(e.FirstTimestamp, e.EventTime, e.CreationTimestamp)
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		out.LastSeen = e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		out.LastSeen = e.LastTimestamp.Time
	default:
		out.LastSeen = out.FirstSeen
	}
	return out
}

// firstTime is the deprecated first timestamp, else the event time, else
// when the Event object was created.
func firstTime(deprecated metav1.Time, eventTime metav1.MicroTime, created metav1.Time) time.Time {
	switch {
	case !deprecated.IsZero():
		return deprecated.Time
	case !eventTime.IsZero():
		return eventTime.Time
	default:
		return created.Time
	}
}

// mergeEvents merges events with the same type, reason and message (counts
// summed, first and last seen widened) and sorts them newest first.
func mergeEvents(in []Event) []Event {
	type key struct{ typ, reason, message string }
	index := map[key]int{}
	var out []Event
	for _, e := range in {
		k := key{e.Type, e.Reason, e.Message}
		i, ok := index[k]
		if !ok {
			index[k] = len(out)
			out = append(out, e)
			continue
		}
		m := &out[i]
		m.Count += e.Count
		if !e.FirstSeen.IsZero() && (m.FirstSeen.IsZero() || e.FirstSeen.Before(m.FirstSeen)) {
			m.FirstSeen = e.FirstSeen
		}
		if e.LastSeen.After(m.LastSeen) {
			m.LastSeen = e.LastSeen
			if e.Source != "" {
				m.Source = e.Source // the latest reporter
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	return out
}

// EventAbout is one Event object as Problems reads it from a list or a
// watch of r (an events resource): what happened, and to which object.
type EventAbout struct {
	Event
	// Regarding is the object the event is about.
	Regarding corev1.ObjectReference
}

// EventOf reads an item of r (events.k8s.io/v1 or core v1 events) as an
// EventAbout.
func EventOf(r Resource, obj *unstructured.Unstructured) (EventAbout, error) {
	if r.Group == "events.k8s.io" {
		var e eventsv1.Event
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &e); err != nil {
			return EventAbout{}, fmt.Errorf("reading an events.k8s.io/v1 event: %w", err)
		}
		return EventAbout{Event: fromEventsV1(&e), Regarding: e.Regarding}, nil
	}
	var e corev1.Event
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &e); err != nil {
		return EventAbout{}, fmt.Errorf("reading a core/v1 event: %w", err)
	}
	return EventAbout{Event: fromCoreEvent(&e), Regarding: e.InvolvedObject}, nil
}
