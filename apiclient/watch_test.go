package apiclient_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// watching runs a watch in the background, collecting its events.
type watching struct {
	t *testing.T
	// events is closed when the watch returns, after its last event, so
	// that every event is read before the end is seen.
	events chan apiclient.WatchEvent
	err    error // what the watch returned, set before events is closed
	cancel context.CancelFunc
}

func startWatch(t *testing.T, run func(ctx context.Context, emit func(apiclient.WatchEvent)) error) *watching {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watching{t: t, events: make(chan apiclient.WatchEvent, 100), cancel: cancel}
	go func() {
		defer close(w.events)
		w.err = run(ctx, func(ev apiclient.WatchEvent) { w.events <- ev })
	}()
	t.Cleanup(func() {
		cancel()
		for range w.events {
		}
	})
	return w
}

func (w *watching) next() apiclient.WatchEvent {
	w.t.Helper()
	select {
	case ev, open := <-w.events:
		if !open {
			w.t.Fatalf("watch ended (%v) while waiting for an event", w.err)
		}
		return ev
	case <-time.After(5 * time.Second):
		w.t.Fatal("no event within 5s")
	}
	return apiclient.WatchEvent{}
}

// result waits for the watch to return, dropping the events on the way.
func (w *watching) result() error {
	w.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, open := <-w.events:
			if !open {
				return w.err
			}
		case <-timeout:
			w.t.Fatal("watch still running after 5s")
		}
	}
}

func seedPods(fake *apitest.Server) {
	fake.Add(
		apitest.Pod("demo", "web-a", map[string]string{"app": "web"}),
		apitest.Pod("demo", "web-b", map[string]string{"app": "web"}),
		apitest.Pod("demo", "db-0", map[string]string{"app": "db"}),
		apitest.Pod("other", "web-z", map[string]string{"app": "web"}),
	)
}

func setPhase(phase string) func(*unstructured.Unstructured) {
	return func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, phase, "status", "phase")
	}
}

func watchTable(c *apiclient.Client, r apiclient.Resource, opts apiclient.WatchOptions) func(context.Context, func(apiclient.WatchEvent)) error {
	return func(ctx context.Context, emit func(apiclient.WatchEvent)) error {
		return c.WatchTable(ctx, r, opts, emit)
	}
}

func TestWatchTable(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	c := clientFor(t, fake)
	w := startWatch(t, watchTable(c, podsRes, apiclient.WatchOptions{Namespace: "demo", LabelSelector: "app=web"}))
	for _, name := range []string{"web-a", "web-b"} {
		ev := w.next()
		if ev.Type != apiclient.WatchAdded || ev.Name != name || ev.Namespace != "demo" || ev.UID != string(apitest.UIDFor("Pod", "demo", name)) {
			t.Fatalf("initial event %+v", ev)
		}
		if ev.Table == nil || ev.Table.Served != apiclient.TableV1 || len(ev.Table.Columns) != 7 || len(ev.Table.Rows) != 1 || ev.Table.Rows[0].Cells[0] != name {
			t.Fatalf("initial table %+v", ev.Table)
		}
		if ev.ResourceVersion == "" || ev.Table.Rows[0].Object == nil || ev.Table.Rows[0].Object.Labels["app"] != "web" {
			t.Fatalf("event rv %q object %+v", ev.ResourceVersion, ev.Table.Rows[0].Object)
		}
	}
	req := fake.Requests()[len(fake.Requests())-1]
	q := req.URL.Query()
	if q.Get("watch") != "true" || q.Get("includeObject") != "Metadata" || q.Get("allowWatchBookmarks") != "true" || q.Get("labelSelector") != "app=web" || q.Has("resourceVersion") {
		t.Errorf("query %s", req.URL.RawQuery)
	}
	if got := req.Header.Get("Accept"); got != "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"+apiclient.MediaTypePartialObjectMetadata+",application/json" {
		t.Errorf("Accept %q", got)
	}

	// Later events carry no columns on the wire: the first one's come along.
	fake.Modify(podGVK, "demo", "web-a", setPhase("Failed"))
	ev := w.next()
	if ev.Type != apiclient.WatchModified || ev.Name != "web-a" || ev.ResourceVersion != fake.ResourceVersion() {
		t.Fatalf("modified %+v (store at %s)", ev, fake.ResourceVersion())
	}
	if len(ev.Table.Columns) != 7 || ev.Table.Columns[2].Name != "Status" || ev.Table.Rows[0].Cells[2] != "Failed" || ev.Table.Rows[0].Cells[5] != "10.0.0.1" {
		t.Fatalf("modified table %+v", ev.Table)
	}
	fake.Delete(podGVK, "demo", "web-b")
	if ev := w.next(); ev.Type != apiclient.WatchDeleted || ev.Name != "web-b" || ev.ResourceVersion != fake.ResourceVersion() {
		t.Fatalf("deleted %+v", ev)
	}
}

func TestWatchTableFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         apitest.Options
		wantServed   apiclient.Representation
		wantRequests int
	}{
		{"v1beta1", apitest.Options{Table: apitest.TableV1Beta1Only}, apiclient.TableV1Beta1, 1},
		// A server that ignores as= answers the first Accept entry plainly.
		{"no Tables", apitest.Options{Table: apitest.TableNone}, apiclient.JSONFallback, 1},
		{"406", apitest.Options{Table: apitest.TableNotAcceptable}, apiclient.MetadataList, 2},
		{"406 without metadata", apitest.Options{Table: apitest.TableNotAcceptable, NoPartialMetadata: true}, apiclient.JSONFallback, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, tc.opts, apitest.CoreV1())
			seedPods(fake)
			c := clientFor(t, fake)
			fake.ResetRequests()
			w := startWatch(t, watchTable(c, podsRes, apiclient.WatchOptions{Namespace: "demo", FieldSelector: "metadata.name=web-a"}))
			first := w.next()
			fake.Modify(podGVK, "demo", "web-a", setPhase("Failed"))
			second := w.next()
			for _, ev := range []apiclient.WatchEvent{first, second} {
				tab := ev.Table
				if tab.Served != tc.wantServed || len(tab.Rows) != 1 || tab.Rows[0].Cells[0] != "web-a" || ev.Name != "web-a" || ev.UID == "" || ev.ResourceVersion == "" {
					t.Fatalf("%s: served %s rows %+v event %+v", ev.Type, tab.Served, tab.Rows, ev)
				}
				if tc.wantServed != apiclient.TableV1Beta1 && (len(tab.Columns) != 3 || tab.Columns[2].Name != "Age" || tab.Rows[0].Cells[1] != "demo") {
					t.Fatalf("generic row: %+v %+v", tab.Columns, tab.Rows[0])
				}
				if tc.wantServed == apiclient.TableV1Beta1 && len(tab.Columns) != 7 {
					t.Fatalf("v1beta1 columns %+v", tab.Columns)
				}
			}
			if second.ResourceVersion != fake.ResourceVersion() {
				t.Errorf("rv %s, want %s", second.ResourceVersion, fake.ResourceVersion())
			}
			if n := len(fake.Requests()); n != tc.wantRequests {
				t.Errorf("%d requests, want %d", n, tc.wantRequests)
			}
		})
	}
}

func TestWatchBookmarkResumeAndExpiry(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	c := clientFor(t, fake)
	rv := fake.ResourceVersion()
	fake.Modify(podGVK, "demo", "web-b", setPhase("Failed"))
	fake.Modify(podGVK, "other", "web-z", setPhase("Failed"))

	// Resuming replays what came after rv, and nothing before.
	w := startWatch(t, watchTable(c, podsRes, apiclient.WatchOptions{ResourceVersion: rv}))
	if a, b := w.next(), w.next(); a.Name != "web-b" || b.Name != "web-z" || a.Type != apiclient.WatchModified || b.Table.Rows[0].Cells[2] != "Failed" {
		t.Fatalf("replayed %+v, %+v", a, b)
	}
	fake.SendBookmarks()
	if ev := w.next(); ev.Type != apiclient.WatchBookmark || ev.ResourceVersion != fake.ResourceVersion() || ev.Table != nil {
		t.Fatalf("bookmark %+v", ev)
	}
	fake.Modify(podGVK, "demo", "db-0", setPhase("Failed"))
	if ev := w.next(); ev.Name != "db-0" || len(ev.Table.Columns) != 7 {
		t.Fatalf("after the bookmark %+v", ev)
	}

	// A version older than the history: the ERROR event's 410.
	fake.ExpireWatchHistory()
	err := c.WatchTable(context.Background(), podsRes, apiclient.WatchOptions{ResourceVersion: rv}, func(ev apiclient.WatchEvent) {
		t.Errorf("event from an expired watch: %+v", ev)
	})
	var st *apierrors.StatusError
	if !apiclient.IsExpired(err) || !apierrors.IsResourceExpired(err) || !errors.As(err, &st) || st.ErrStatus.Message != "too old resource version: "+rv+" ("+fake.ResourceVersion()+")" {
		t.Fatalf("expired watch: %v", err)
	}
}

func TestWatchEnds(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.CSMGroup())
	seedPods(fake)
	c := clientFor(t, fake)

	// Ending ctx returns promptly with ctx's error, and the upstream watch goes.
	w := startWatch(t, watchTable(c, podsRes, apiclient.WatchOptions{Namespace: "demo"}))
	w.next()
	start := time.Now()
	w.cancel()
	if err := w.result(); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("after cancel: %v in %s", err, time.Since(start))
	}
	if !fake.AwaitOpenWatches(0, 5*time.Second) {
		t.Errorf("open watches: %d", fake.OpenWatches())
	}

	// A cut connection ends the watch without error: resume from the last event.
	w = startWatch(t, watchTable(c, podsRes, apiclient.WatchOptions{ResourceVersion: fake.ResourceVersion()}))
	if !fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatalf("open watches: %d", fake.OpenWatches())
	}
	fake.CloseWatches()
	if err := w.result(); err != nil {
		t.Fatalf("after a cut: %v", err)
	}

	// Errors before the stream are the server's Status.
	fake.FailResource("", "services", apitest.Forbidden("alice", "watch", "", "services", ""))
	err := c.WatchTable(context.Background(), servicesRes, apiclient.WatchOptions{}, func(apiclient.WatchEvent) {})
	if !apierrors.IsForbidden(err) {
		t.Errorf("forbidden: %v", err)
	}
	err = c.WatchMeta(context.Background(), sessionsRes, apiclient.WatchOptions{}, func(apiclient.WatchEvent) {})
	if !apierrors.IsMethodNotSupported(err) {
		t.Errorf("no watch verb: %v", err)
	}
	err = c.WatchTable(context.Background(), podsRes, apiclient.WatchOptions{Namespace: ".."}, func(apiclient.WatchEvent) {})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("bad namespace: %v", err)
	}
}

func TestWatchMeta(t *testing.T) {
	for _, opts := range []apitest.Options{{}, {NoPartialMetadata: true}} {
		fake := apitest.NewServerWith(t, opts, apitest.CoreV1())
		seedPods(fake)
		c := clientFor(t, fake)
		w := startWatch(t, func(ctx context.Context, emit func(apiclient.WatchEvent)) error {
			return c.WatchMeta(ctx, podsRes, apiclient.WatchOptions{Namespace: "other"}, emit)
		})
		if ev := w.next(); ev.Type != apiclient.WatchAdded || ev.Name != "web-z" || ev.Namespace != "other" || ev.UID == "" || ev.ResourceVersion == "" || ev.Table != nil {
			t.Fatalf("%+v: %+v", opts, ev)
		}
		fake.Modify(podGVK, "other", "web-z", setPhase("Failed"))
		if ev := w.next(); ev.Type != apiclient.WatchModified || ev.ResourceVersion != fake.ResourceVersion() {
			t.Fatalf("%+v: %+v", opts, ev)
		}
		if got := fake.Requests()[len(fake.Requests())-1].Header.Get("Accept"); got != apiclient.MediaTypePartialObjectMetadata+",application/json" {
			t.Errorf("Accept %q", got)
		}
	}
}

func TestWatchMetaChange(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	entry := func(manager, operation, subresource string, ago time.Duration) metav1.ManagedFieldsEntry {
		at := metav1.NewTime(now.Add(-ago))
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationType(operation), Subresource: subresource, Time: &at,
			APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte("{}")}}
	}
	for _, opts := range []apitest.Options{{}, {NoPartialMetadata: true}} {
		fake := apitest.NewServerWith(t, opts, apitest.CoreV1())
		seedPods(fake)
		fake.Modify(podGVK, "demo", "web-a", func(o *unstructured.Unstructured) {
			o.SetManagedFields([]metav1.ManagedFieldsEntry{
				entry("kubectl-create", "Update", "", time.Hour),
				entry("kubelet", "Update", "status", 20*time.Second),
				entry("kubectl-edit", "Update", "", 20*time.Second), // as late: the later entry wins
				entry("tabula", "Apply", "", time.Minute),
			})
		})
		c := clientFor(t, fake)
		w := startWatch(t, func(ctx context.Context, emit func(apiclient.WatchEvent)) error {
			return c.WatchMeta(ctx, podsRes, apiclient.WatchOptions{Namespace: "demo"}, emit)
		})
		got := map[string]*apiclient.FieldsChange{}
		for range 3 {
			ev := w.next()
			got[ev.Name] = ev.Change
		}
		want := apiclient.FieldsChange{Manager: "kubectl-edit", Operation: "Update", Time: now.Add(-20 * time.Second)}
		if ch := got["web-a"]; ch == nil || ch.Manager != want.Manager || ch.Operation != want.Operation || ch.Subresource != "" || !ch.Time.Equal(want.Time) {
			t.Errorf("%+v: change %+v, want %+v", opts, ch, want)
		}
		if ch := got["web-b"]; ch != nil {
			t.Errorf("%+v: without managedFields, change %+v", opts, ch)
		}
	}
}

type recordingObserver struct {
	mu    sync.Mutex
	calls []string
}

func (o *recordingObserver) ObserveAPICall(verb, resource, code string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, verb+" "+resource+" "+code)
}

func TestWatchAndLogsAreObserved(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	obs := &recordingObserver{}
	c := clientWith(t, fake, apiclient.LoadOptions{Observer: obs})
	w := startWatch(t, func(ctx context.Context, emit func(apiclient.WatchEvent)) error {
		return c.WatchPods(ctx, "demo", "", "", func(typ string, _ *corev1.Pod) {
			emit(apiclient.WatchEvent{Type: typ})
		})
	})
	w.next()
	rc, err := c.Logs(context.Background(), "demo", "web-a", apiclient.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.calls) != 2 || obs.calls[0] != "watch pods 200" || obs.calls[1] != "get pods/log 200" {
		t.Errorf("observed %q", obs.calls)
	}
}
