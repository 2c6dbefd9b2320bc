package apiclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// A paged read asks for the next page while it decodes this one, and never
// for a page it will not read.
func TestEachObjectPagesAheadWithinItsBounds(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("pod-%d", i)
		fake.Add(apitest.Pod("demo", name, nil))
		want = append(want, name)
	}
	c := clientOf(t, openAPIClusters(t, fake), Identity{})
	ctx := context.Background()
	pages := func() int {
		n := 0
		for _, r := range fake.Requests() {
			if strings.HasSuffix(r.URL.Path, "/namespaces/demo/pods") {
				n++
			}
		}
		return n
	}
	var got []string
	read, err := c.EachObject(ctx, podRes, "demo", ListQuery{PageSize: 2, MaxObjects: 100}, func(o *unstructured.Unstructured) error {
		got = append(got, o.GetName())
		return nil
	})
	if err != nil || read.Objects != 7 || read.ResourceVersion == "" || !slices.Equal(got, want) {
		t.Fatalf("read %+v, %v: %v", read, err, got)
	}
	if n := pages(); n != 4 {
		t.Errorf("%d requests for 4 pages", n)
	}

	// Cut at 4: the third page is never asked for.
	fake.ResetRequests()
	read, err = c.EachObject(ctx, podRes, "demo", ListQuery{PageSize: 2, MaxObjects: 4}, func(*unstructured.Unstructured) error { return nil })
	if !errors.Is(err, ErrListCut) || read.Objects != 4 {
		t.Errorf("cut: read %+v, %v", read, err)
	}
	if n := pages(); n != 2 {
		t.Errorf("%d requests for a read cut after 2 pages", n)
	}

	// Stopped at the first object: the page asked ahead is dropped.
	stop := errors.New("enough")
	fake.ResetRequests()
	read, err = c.EachObject(ctx, podRes, "demo", ListQuery{PageSize: 2, MaxObjects: 100}, func(*unstructured.Unstructured) error { return stop })
	if !errors.Is(err, stop) || read.Objects != 1 {
		t.Errorf("stopped: read %+v, %v", read, err)
	}
	if n := pages(); n > 2 {
		t.Errorf("%d requests for a read stopped in its first page", n)
	}
}

// A page asked ahead that fails (its continue token expired) ends the read
// with that error.
func TestEachObjectReportsAFailedNextPage(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	for i := range 5 {
		fake.Add(apitest.Pod("demo", fmt.Sprintf("pod-%d", i), nil))
	}
	c := clientOf(t, openAPIClusters(t, fake), Identity{})
	first := true
	read, err := c.EachObject(context.Background(), podRes, "demo", ListQuery{PageSize: 2, MaxObjects: 100}, func(*unstructured.Unstructured) error {
		if first {
			// The next page is asked for by now, or will be: expire the
			// tokens either way, for this page's and any later request.
			fake.ExpireContinueTokens()
			first = false
		}
		return nil
	})
	if err == nil || read.Objects >= 5 {
		t.Fatalf("read %+v, %v: an expired continue token went unnoticed", read, err)
	}
}
