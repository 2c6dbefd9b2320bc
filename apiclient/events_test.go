package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

// seedEvents adds, in the given shape, events about pod and one about other:
// a Scheduled event, and a BackOff recorded twice (merged by EventsFor).
func seedEvents(fake *apitest.Server, event func(string, *unstructured.Unstructured, apitest.EventSpec) *unstructured.Unstructured, pod, other *unstructured.Unstructured) {
	fake.Add(
		event("web.1", pod, apitest.EventSpec{Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned demo/web to node-1", First: at(0), Source: "default-scheduler"}),
		event("web.2", pod, apitest.EventSpec{Type: "Warning", Reason: "BackOff", Message: "Back-off restarting failed container", Count: 5, First: at(10), Last: at(30), Source: "kubelet", Series: true}),
		event("web.3", pod, apitest.EventSpec{Type: "Warning", Reason: "BackOff", Message: "Back-off restarting failed container", Count: 2, First: at(5), Last: at(20), Source: "kubelet"}),
		event("other.1", other, apitest.EventSpec{Type: "Normal", Reason: "Pulled", Message: "pulled", First: at(40), Source: "kubelet"}),
	)
}

func TestEventsFor(t *testing.T) {
	pod := apitest.Pod("demo", "web", nil)
	other := apitest.Pod("demo", "other", nil)
	want := []apiclient.Event{
		{Type: "Warning", Reason: "BackOff", Message: "Back-off restarting failed container", Source: "kubelet", Count: 7, FirstSeen: at(5), LastSeen: at(30)},
		{Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned demo/web to node-1", Source: "default-scheduler", Count: 1, FirstSeen: at(0), LastSeen: at(0)},
	}
	for _, tc := range []struct {
		name      string
		gvs       []apitest.GroupVersion
		event     func(string, *unstructured.Unstructured, apitest.EventSpec) *unstructured.Unstructured
		wantPaths []string
		wantField []string
	}{
		{
			name: "events.k8s.io/v1", gvs: []apitest.GroupVersion{apitest.CoreV1(), apitest.EventsV1()}, event: apitest.EventV1,
			wantPaths: []string{"/apis/events.k8s.io/v1/namespaces/demo/events"},
			wantField: []string{"regarding.uid=" + string(apitest.UID(pod))},
		},
		{
			// Discovery says there is no events.k8s.io: it is not asked.
			name: "core/v1 without events.k8s.io", gvs: []apitest.GroupVersion{apitest.CoreV1()}, event: apitest.Event,
			wantPaths: []string{"/api/v1/namespaces/demo/events"},
			wantField: []string{"involvedObject.uid=" + string(apitest.UID(pod))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServer(t, tc.gvs...)
			seedEvents(fake, tc.event, pod, other)
			c := clientFor(t, fake)
			if _, err := c.Discovery(context.Background()); err != nil {
				t.Fatal(err)
			}
			fake.ResetRequests()

			got, err := c.EventsFor(context.Background(), "demo", apitest.UID(pod))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("events = %+v", got)
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Type != w.Type || g.Reason != w.Reason || g.Message != w.Message || g.Source != w.Source || g.Count != w.Count ||
					!g.FirstSeen.Equal(w.FirstSeen) || !g.LastSeen.Equal(w.LastSeen) {
					t.Errorf("event %d = %+v\nwant       %+v", i, g, w)
				}
			}
			reqs := fake.Requests()
			if len(reqs) != len(tc.wantPaths) {
				t.Fatalf("%d requests, want %d", len(reqs), len(tc.wantPaths))
			}
			for i, r := range reqs {
				if r.URL.Path != tc.wantPaths[i] || r.URL.Query().Get("fieldSelector") != tc.wantField[i] {
					t.Errorf("request %d: %s ?fieldSelector=%s", i, r.URL.Path, r.URL.Query().Get("fieldSelector"))
				}
			}
		})
	}
}

func TestEventsForClusterScopedObjectsListsAllNamespaces(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.EventsV1(), apitest.CSMGroup())
	session := apitest.CSMSession("s-1", "boot", "compute", "running")
	fake.Add(apitest.EventV1("s-1.1", session, apitest.EventSpec{Type: "Normal", Reason: "Started", Message: "boot started", First: at(1), Source: "bos", Series: true}))
	c := clientFor(t, fake)
	if _, err := c.Discovery(context.Background()); err != nil {
		t.Fatal(err)
	}
	fake.ResetRequests()
	got, err := c.EventsFor(context.Background(), "", apitest.UID(session))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Reason != "Started" || got[0].Count != 1 || !got[0].LastSeen.Equal(at(1)) || got[0].Source != "bos" {
		t.Errorf("events = %+v", got)
	}
	if p := fake.Requests()[0].URL.Path; p != "/apis/events.k8s.io/v1/events" {
		t.Errorf("path = %s", p)
	}
}

func TestEventsForErrors(t *testing.T) {
	pod := apitest.Pod("demo", "web", nil)
	forbidden := func(group string) metav1.Status { return apitest.Forbidden("viewer", "list", group, "events", "") }
	t.Run("forbidden on events.k8s.io only: core events", func(t *testing.T) {
		fake := apitest.NewServer(t, apitest.CoreV1(), apitest.EventsV1())
		fake.Add(apitest.Event("web.1", pod, apitest.EventSpec{Type: "Normal", Reason: "Pulled", Message: "pulled", First: at(0)}))
		fake.FailResource("events.k8s.io", "events", forbidden("events.k8s.io"))
		got, err := clientFor(t, fake).EventsFor(context.Background(), "demo", apitest.UID(pod))
		if err != nil || len(got) != 1 {
			t.Fatalf("events = %+v, err %v", got, err)
		}
	})
	t.Run("forbidden everywhere: events hidden", func(t *testing.T) {
		fake := apitest.NewServer(t, apitest.CoreV1(), apitest.EventsV1())
		fake.FailResource("events.k8s.io", "events", forbidden("events.k8s.io"))
		fake.FailResource("", "events", forbidden(""))
		_, err := clientFor(t, fake).EventsFor(context.Background(), "demo", apitest.UID(pod))
		var hidden *apiclient.EventsForbiddenError
		if !errors.As(err, &hidden) || !apiclient.IsEventsForbidden(err) {
			t.Fatalf("err = %v (%T), want *EventsForbiddenError", err, err)
		}
		if !apierrors.IsForbidden(err) {
			t.Error("the Status is not reachable through the wrapper")
		}
		wantStatus(t, err, http.StatusForbidden, metav1.StatusReasonForbidden)
	})
	t.Run("other failures come back as the server's Status", func(t *testing.T) {
		fake := apitest.NewServer(t, apitest.CoreV1(), apitest.EventsV1())
		fake.FailResource("events.k8s.io", "events", metav1.Status{Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "token expired"})
		_, err := clientFor(t, fake).EventsFor(context.Background(), "demo", apitest.UID(pod))
		wantStatus(t, err, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
		if apiclient.IsEventsForbidden(err) {
			t.Error("401 reported as events hidden")
		}
	})
}

func TestEventsForAServerWithoutAnEventsAPI(t *testing.T) {
	// A CSM-style server: no core group, no events.k8s.io.
	fake := apitest.NewServer(t, apitest.CSMGroup())
	session := apitest.CSMSession("s-1", "boot", "compute", "running")
	fake.Add(session)
	c := clientFor(t, fake)
	d, err := c.Discovery(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := d.EventsResource(); ok {
		t.Errorf("EventsResource = %+v, want none", r)
	}
	fake.ResetRequests()
	if _, err := c.EventsFor(context.Background(), "", apitest.UID(session)); !errors.Is(err, apiclient.ErrNoEventsAPI) {
		t.Errorf("err = %v, want ErrNoEventsAPI", err)
	}
	if reqs := fake.Requests(); len(reqs) != 0 {
		t.Errorf("%d requests (first %s), want none", len(reqs), reqs[0].URL.Path)
	}
}

func TestEventsResourcePrefersEventsK8sIO(t *testing.T) {
	for _, tc := range []struct {
		name      string
		gvs       []apitest.GroupVersion
		wantGroup string
	}{
		{"both", []apitest.GroupVersion{apitest.CoreV1(), apitest.EventsV1()}, "events.k8s.io"},
		{"only core events", []apitest.GroupVersion{apitest.CoreV1()}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := clientFor(t, apitest.NewServer(t, tc.gvs...)).Discovery(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			r, ok := d.EventsResource()
			if !ok || r.Group != tc.wantGroup || r.Version != "v1" || r.Name != "events" || !r.Can("watch") {
				t.Errorf("EventsResource = %+v, %v; want events in group %q", r, ok, tc.wantGroup)
			}
		})
	}
}
