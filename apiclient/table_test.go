package apiclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Every server kind gives the same page through OpenTable as through
// ListTable, negotiated in as few requests as it allows.
func TestOpenTableNegotiates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     apitest.Options
		served   apiclient.Representation
		requests int
	}{
		{"kube-apiserver", apitest.Options{}, apiclient.TableV1, 1},
		{"v1beta1", apitest.Options{Table: apitest.TableV1Beta1Only}, apiclient.TableV1Beta1, 1},
		{"no Tables", apitest.Options{Table: apitest.TableNone}, apiclient.JSONFallback, 1},
		{"406", apitest.Options{Table: apitest.TableNotAcceptable}, apiclient.MetadataList, 2},
		{"406 without metadata lists", apitest.Options{Table: apitest.TableNotAcceptable, NoPartialMetadata: true}, apiclient.JSONFallback, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, tc.opts, apitest.CoreV1())
			seedPods(fake)
			c := clientFor(t, fake)
			opts := apiclient.ListOptions{Namespace: "demo", LabelSelector: "app=web", IncludeObject: apiclient.IncludeMetadata}
			fake.ResetRequests()
			s, err := c.OpenTable(context.Background(), podsRes, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if n := len(fake.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			got := s.Head
			if got.Served != tc.served || got.Rows != nil || got.ResourceVersion == "" {
				t.Fatalf("head %+v", got)
			}
			for s.Next() {
				got.Rows = append(got.Rows, s.Row().Clone())
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			want, err := c.ListTable(context.Background(), podsRes, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, want) {
				t.Errorf("OpenTable %+v\nListTable %+v", got, want)
			}
			if len(got.Rows) != 2 || got.Rows[0].Cells[0] != "web-a" || got.Rows[1].Object.Name != "web-b" || got.Rows[1].Object.Namespace != "demo" || got.Rows[0].Object.Labels["app"] != "web" {
				t.Errorf("rows %+v", got.Rows)
			}
		})
	}
}

func TestGetTable(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	tab, err := clientFor(t, fake).GetTable(context.Background(), podsRes, "demo", "db-0")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Served != apiclient.TableV1 || len(tab.Rows) != 1 || tab.Rows[0].Cells[0] != "db-0" || tab.Rows[0].Object != nil {
		t.Fatalf("%+v", tab)
	}
}

// Errors before the body are the server's Status, as client-go gives them.
func TestOpenTableStatusErrors(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	c := clientFor(t, fake)
	ctx := context.Background()

	first, err := c.ListTable(ctx, podsRes, apiclient.ListOptions{Limit: 1})
	if err != nil || first.Continue == "" || first.RemainingItemCount == nil || *first.RemainingItemCount != 3 {
		t.Fatalf("first page %+v: %v", first, err)
	}
	fake.ExpireContinueTokens()
	if _, err := c.OpenTable(ctx, podsRes, apiclient.ListOptions{Limit: 1, Continue: first.Continue}); !apiclient.IsExpired(err) {
		t.Errorf("an expired continue: %v", err)
	}

	fake.FailResource("", "pods", apitest.Forbidden("alice", "list", "", "pods", "demo"))
	if _, err := c.OpenTable(ctx, podsRes, apiclient.ListOptions{Namespace: "demo"}); !apierrors.IsForbidden(err) {
		t.Errorf("a 403: %v", err)
	}
	if _, err := c.ListTable(ctx, podsRes, apiclient.ListOptions{Namespace: "demo"}); !apierrors.IsForbidden(err) {
		t.Errorf("a 403 through ListTable: %v", err)
	}
}

// pageServer serves a pod Table from a handler the test paces: first the
// body up to cut, then, once the test says so, the rest.
func pageServer(t *testing.T, body []byte, cut int, rest <-chan struct{}) *apiclient.Client {
	t.Helper()
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api/v1/namespaces/bulk/pods", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		_, _ = w.Write(body[:cut])
		w.(http.Flusher).Flush()
		select {
		case <-rest:
			_, _ = w.Write(body[cut:])
		case <-r.Context().Done():
		}
	})
	return clientFor(t, fake)
}

// Over HTTP, the head and first row are read while the server still holds
// back the rest of the body.
func TestOpenTableStreamsOverHTTP(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTableMetadata(300))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(body, []byte(`"bulk-00001"`))
	rest := make(chan struct{})
	c := pageServer(t, body, cut, rest)
	s, err := c.OpenTable(context.Background(), podsRes, apiclient.ListOptions{Namespace: "bulk"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Head.Served != apiclient.TableV1 || len(s.Head.Columns) != 9 || s.Head.Continue == "" {
		t.Fatalf("head %+v", s.Head)
	}
	if !s.Next() || s.Row().Object.Name != "bulk-00000" {
		t.Fatalf("first row %+v: %v", s.Row(), s.Err())
	}
	close(rest)
	n := 1
	for s.Next() {
		n++
	}
	if err := s.Err(); err != nil || n != 300 {
		t.Errorf("%d rows: %v", n, err)
	}
	// The whole body was decoded, and closing keeps the count.
	if got := s.BytesRead(); got != int64(len(body)) {
		t.Errorf("BytesRead %d, want the body's %d", got, len(body))
	}
	s.Close()
	if got := s.BytesRead(); got != int64(len(body)) {
		t.Errorf("BytesRead after Close %d, want %d", got, len(body))
	}
}

// A body cut short because the page's deadline came is the deadline's
// doing: the page must say the server was too slow (504), not that it
// answered nonsense (500).
func TestOpenTableReportsTheDeadlineNotABadBody(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTable(50))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(body, []byte(`"bulk-00002"`))
	c := pageServer(t, body, cut, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s, err := c.OpenTable(ctx, podsRes, apiclient.ListOptions{Namespace: "bulk"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if !s.Next() {
			t.Fatalf("a row before the cut: %v", s.Err())
		}
	}
	cancel(context.DeadlineExceeded)
	if s.Next() {
		t.Fatal("a row after the deadline")
	}
	var bad *apiclient.BadResponseError
	if err := s.Err(); !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &bad) {
		t.Errorf("Err = %v, want the deadline", err)
	}

	// Without a deadline, an empty body is a bad answer, said as such.
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api/v1/pods", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
	})
	_, err = clientFor(t, fake).ListTable(context.Background(), podsRes, apiclient.ListOptions{})
	if !errors.As(err, &bad) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty body: %v, want a BadResponseError", err)
	}
}
