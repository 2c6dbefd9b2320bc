package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// decodeCorpus is list bodies of every shape the stream must decode as
// encoding/json does: kube-apiserver's Tables and lists, and what foreign
// or broken servers may write.
func decodeCorpus(tb testing.TB) [][]byte {
	tb.Helper()
	marshal := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	const cols = `"columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"N","type":"integer","priority":1}]`
	const row = `{"cells":["a",1],"object":{"metadata":{"name":"a","namespace":"ns","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"web"}}}}`
	bodies := []string{
		// The fast decoder's corpus.
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7","continue":"c","remainingItemCount":3},
		  "columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"N","type":"integer","priority":1}],
		  "rows":[{"cells":["a\u00e9\n",1.5,true,null,{"k":[1,"x"]}],"conditions":[{"type":"Completed","status":"True"}],
		           "object":{"metadata":{"name":"a","namespace":"ns","uid":"u1","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"web"}}}}]}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","metadata":{},"columnDefinitions":[],"rows":[{"cells":["lone \ud800 surrogate"]}]}`,
		"{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":[],\"rows\":[{\"cells\":[\"bad \xff utf8\"]}]}",
		// Strings: escapes, pairs, lone halves, raw invalid UTF-8 in names and values.
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[{"cells":["\ud83d\ude00","\ud83d","\ude00\ud83d","\ud800\ud800\udc00","x\/y\"\\\b\f\n\r\t\u0000","\uDBFF\uDFFF"]}]}`,
		"{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":[],\"rows\":[{\"cells\":[\"\xed\xa0\x80\",\"\xe2\x82\",\"ok \xc3\xa9\"],\"object\":{\"metadata\":{\"name\":\"n\xff\",\"labels\":{\"k\xfe\":\"v\xc0\"}}}}]}",
		// Numbers and nested cells.
		`{"kind":"Table","metadata":{},"apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"a","priority":0}],"rows":[{"cells":[-0,1e3,-1.5E-3,123456789012345678901234567890,{"a":{"b":[{},[],null,{"a":1,"a":2}]}},[]]}]}`,
		// Names matched as encoding/json matches them.
		`{"Kind":"Table","APIVERSION":"meta.k8s.io/v1beta1","Metadata":{"ResourceVersion":"9"},"ColumnDefinitions":[{"NAME":"x","Priority":2}],"Rows":[{"CELLS":["a","b"],"Object":{"METADATA":{"NAME":"n","Labels":{"K":"v"}}}}]}`,
		`{"\u006bind":"Table","\u212aind2":"x","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[{"cell\u0073":["a"]}]}`,
		"{\"\u212aind\":\"Table\",\"apiVer\u017fion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":[],\"rows\":[{\"cells\":[\"a\"]}]}",
		// Unknown members everywhere; repeated ones that merge or replace.
		`{"x":1,"kind":"Table","y":[{"rows":[]}],"apiVersion":"meta.k8s.io/v1","metadata":{"selfLink":"s","x":{}},` + cols + `,"rows":[{"x":[1],"cells":["a",2],"cells":["b",3],"object":{"x":1,"metadata":{"name":"n","x":[],"managedFields":[{"a":{"b":{}}}],"name":"m"}}}],"z":null}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"1","resourceVersion":null,"remainingItemCount":4,"remainingItemCount":null},"columnDefinitions":[{"name":"a","name":null,"type":"t"}],
		  "rows":[{"object":{"metadata":{"labels":{"a":"1"},"labels":{"b":"2"},"name":"x","name":null,"uid":"u","creationTimestamp":"2026-01-02T03:04:05+02:00","creationTimestamp":null}},"cells":["a"]},
		          {"object":{"metadata":{"labels":{"a":"1"},"labels":null,"labels":{"c":null}}}},
		          {"object":{"metadata":{"name":"a"}},"object":{"metadata":{"namespace":"b"}}},
		          {"object":{"metadata":{"name":"a"}},"object":null},
		          {"object":{"metadata":{"name":"a"},"metadata":{"namespace":"b"},"metadata":null}}]}`,
		// Null and empty everywhere.
		`{"kind":"Table","apiVersion":null,"metadata":null,"columnDefinitions":null,"rows":null}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[]}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[null,{}],"rows":[null,{},{"cells":null,"conditions":null,"object":null},{"cells":[],"conditions":[],"object":{}},{"conditions":[null,{"type":"T","reason":null,"message":"m"}],"object":{"metadata":null}},{"object":{"metadata":{"labels":{},"creationTimestamp":null}}}]}`,
		`null`, `{}`, ` { } `, `{"kind":"Table"}`, `{"rows":[{"cells":["a"]}]}`,
		// Any key order: the rows before the head, which is then held back.
		`{"rows":[` + row + `,null],` + cols + `,"metadata":{"continue":"c"},"apiVersion":"meta.k8s.io/v1beta1","kind":"Table"}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"rows":[` + row + `],` + cols + `}`,
		`{"kind":"Table",` + cols + `,"rows":[` + row + `],"apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5"}}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1",` + cols + `,"rows":[` + row + `],"metadata":{"resourceVersion":"5"},"items":[{}]}`,
		`{"items":[{"metadata":{"name":"i"}}],"rows":[` + row + `],"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},` + cols + `}`,
		`{"items":[{"metadata":{"name":"i"}}],"rows":[` + row + `],"kind":"PodList","metadata":{}}`,
		`{"rows":[` + row + `],"items":[{"metadata":{"name":"i"}}]}`,
		`{"kind":"PodList","rows":[` + row + `],"metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"i","namespace":"n","creationTimestamp":"2026-01-02T03:04:05Z"}},null,{},{"metadata":null}]}`,
		// Lists, the fallbacks.
		`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"8","continue":"k","remainingItemCount":0},"items":[{"kind":"PartialObjectMetadata","metadata":{"name":"a","namespace":"x","uid":"u","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"l":"v"},"managedFields":[{"manager":"m"}]}},{"metadata":{"name":"b","namespace":"x"}}]}`,
		`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a","namespace":"x","creationTimestamp":"2026-01-02T03:04:05-07:00"},"spec":{"containers":[{"name":"c"}]},"status":{"phase":"Running"}}],"items2":[]}`,
		`{"kind":"PodList","metadata":{},"items":null}`,
	}
	out := make([][]byte, 0, len(bodies)+6)
	for _, b := range bodies {
		out = append(out, []byte(b))
	}
	none, meta := apitest.KwokPodTable(3), apitest.KwokPodTableMetadata(3)
	meta.Rows[1].Conditions = nil
	out = append(out, marshal(none), marshal(meta), marshal(apitest.KwokPodTable(0)))
	// The same pages indented, as kube-apiserver writes them for curl.
	for _, b := range out[len(out)-3 : len(out)-1] {
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "", "  "); err != nil {
			tb.Fatal(err)
		}
		out = append(out, ind.Bytes())
	}
	return out
}

func TestStreamDecodesAsEncodingJSON(t *testing.T) {
	// One pool for all, and the results checked at the end: what a stream
	// leaves behind must neither leak into the next nor change a kept page.
	pools := newDecodePools()
	corpus := decodeCorpus(t)
	type result struct {
		body      []byte
		wide      bool
		got, want *Table
	}
	var results []result
	for i, body := range append(corpus, corpus...) {
		for _, wide := range []bool{false, true} {
			want, err := referenceTable(body, wide)
			if err != nil {
				t.Fatalf("body %d: the reference fails: %v\n%s", i, err, body)
			}
			got, err := streamTableWith(pools, body, wide)
			if err != nil {
				t.Fatalf("body %d (wide %v): %v\n%s", i, wide, err, body)
			}
			results = append(results, result{body, wide, got, want})
		}
	}
	for _, r := range results {
		if !sameTable(r.got, r.want) {
			t.Errorf("wide %v:\n%s\nstream    %s\nreference %s", r.wide, r.body, dump(r.got), dump(r.want))
		}
	}
}

func dump(t *Table) string {
	b, _ := json.Marshal(canonical(t))
	return string(b)
}

// refusal reports whether err is one of the bodies the stream refuses on
// purpose where encoding/json would decode them (see errRepeated).
func refusal(err error) bool {
	return errors.Is(err, errRepeated) || errors.Is(err, errTooDeep) || errors.Is(err, errListTooLarge)
}

func FuzzTableStream(f *testing.F) {
	for _, body := range decodeCorpus(f) {
		f.Add(body, false)
	}
	f.Fuzz(func(t *testing.T, body []byte, wide bool) {
		got, err := streamTable(body, wide)
		want, refErr := referenceTable(body, wide)
		if refErr != nil {
			return // the stream may refuse or decode it; it must not panic or hang
		}
		if err != nil {
			if !refusal(err) {
				t.Fatalf("stream: %v; the reference decodes it", err)
			}
			return
		}
		if !sameTable(got, want) {
			t.Fatalf("stream    %s\nreference %s", dump(got), dump(want))
		}
	})
}

// Bodies encoding/json decodes but a stream will not.
func TestStreamRefusals(t *testing.T) {
	deep := strings.Repeat("[", maxCellDepth+1) + strings.Repeat("]", maxCellDepth+1)
	for _, body := range []string{
		`{"kind":"Table","kind":"Table"}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[],"ROWS":[]}`,
		`{"kind":"PodList","metadata":{},"items":[],"metadata":{}}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[{"conditions":[],"conditions":[]}]}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[{"cells":[` + deep + `]}]}`,
	} {
		if _, err := referenceTable([]byte(body), true); err != nil {
			t.Fatalf("the reference fails %s: %v", body, err)
		}
		if _, err := streamTable([]byte(body), true); !refusal(err) {
			t.Errorf("stream of %s: %v, want a refusal", body, err)
		}
	}
}

// Malformed bodies are errors, said as such, wherever they break.
func TestStreamMalformed(t *testing.T) {
	head := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[`
	for _, tc := range []struct{ body, want string }{
		{``, "the response is empty"},
		{`  `, "the response is empty"},
		{`[]`, "not an object"},
		{`"Table"`, "not an object"},
		{head, fmt.Sprintf("cut short after %d bytes", len(head))},
		{head + `{"cells":["a"]},{"cells":["b`, "cut short"},
		{head + `{"cells":["a"]},{"cells":["b"]]}`, "invalid character"},
		{head + `{"cells":["a"]}]}{}`, "a JSON object after the list"},
		{head + `{"cells":["a"]}]} x`, "invalid character"},
		{head + `{"cells":[1e999]}]}`, "value out of range"},
		{head + `{"cells":[NaN]}]}`, "invalid character"},
		{head + `{"cells":[01]}]}`, "invalid character '1' after array element"},
		{head + `{"cells":[1.]}]}`, "in number"},
		{head + `{"cells":[nul]}]}`, "in literal null"},
		{head + "{\"cells\":[\"a\x01\"]}]}", "in string (expecting non-control character)"},
		{head + `{"cells":["\u12G4"]}]}`, `invalid escape sequence`},
		{head + `{"cells":[],"object":{"metadata":{},"managedFields":[{"a":]}]}}]}`, "invalid character ']'"},
		{head + `{"cells" ["a"]}]}`, "after object name (expecting ':')"},
		{head + `{5:1}]}`, "object member name must be a string"},
		{head + `{"cells":{}}]}`, "cells is a JSON object, not an array"},
		{head + `5]}`, "row is a JSON number"},
		{head + `{"object":{"metadata":{"name":5}}}]}`, "a JSON number where a string belongs"},
		{head + `{"object":{"metadata":{"creationTimestamp":"yesterday"}}}]}`, "creationTimestamp"},
		{head + `{"object":{"metadata":{"labels":{"a":1}}}}]}`, "a JSON number where a string belongs"},
		{head + `{"object":[]}]}`, "object is a JSON array"},
		{`{"kind":"Table","metadata":{"remainingItemCount":1.5}}`, "not an integer"},
		{`{"kind":"Table","columnDefinitions":[{"priority":4294967296}]}`, "not an int32"},
		{`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":{}}`, "rows is a JSON object, not an array"},
	} {
		_, err := streamTable([]byte(tc.body), false)
		var bad *BadResponseError
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a BadResponseError with %q", tc.body, err, tc.want)
		}
	}
}

func TestStreamCapsTheBody(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTable(50))
	if err != nil {
		t.Fatal(err)
	}
	decode := func(limit int64) error {
		s, err := newTableStream(context.Background(), io.NopCloser(bytes.NewReader(body)), limit, false, newDecodePools())
		if err != nil {
			return err
		}
		_, err = s.collect()
		return err
	}
	if err := decode(int64(len(body))); err != nil {
		t.Errorf("a body of exactly the cap: %v", err)
	}
	for _, limit := range []int64{100, int64(len(body)) - 1} {
		var bad *BadResponseError
		if err := decode(limit); !errors.Is(err, errListTooLarge) || !errors.As(err, &bad) || !strings.Contains(err.Error(), "larger than 256 MiB") {
			t.Errorf("cap %d: %v, want it said", limit, err)
		}
	}
}

// slowBody is a response body the test writes piece by piece.
func slowBody() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// Head and the first rows come before the body's last byte: the test
// writes the rest only after the first Next has returned a row.
func TestStreamDecodesAsTheBodyArrives(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTableMetadata(200))
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.Index(body, []byte(`{"cells"`))
	cut := first + bytes.Index(body[first:], []byte(`,{"cells"`)) + 1 // after the first row
	r, w := slowBody()
	go func() {
		_, _ = w.Write(body[:cut])
	}()
	s, err := newTableStream(context.Background(), r, maxListBytes, false, newDecodePools())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Head.Columns) != 9 || s.Head.ResourceVersion != "123456" {
		t.Fatalf("head %+v", s.Head)
	}
	if !s.Next() || s.Row().Object.Name != "bulk-00000" || s.Row().Cells[0] != "bulk-00000" {
		t.Fatalf("first row %+v, err %v", s.Row(), s.Err())
	}
	written := make(chan error, 1)
	go func() {
		_, err := w.Write(body[cut:])
		written <- err
		_ = w.Close()
	}()
	n := 1
	for s.Next() {
		if want := fmt.Sprintf("bulk-%05d", n); s.Row().Object.Name != want || s.Row().Cells[5] != nil {
			t.Fatalf("row %d: %+v", n, s.Row())
		}
		n++
	}
	if err := s.Err(); err != nil || n != 200 {
		t.Fatalf("%d rows, err %v", n, err)
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
}

// A deadline that comes mid-body is reported as the deadline.
func TestStreamReportsTheContextCutting(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTable(20))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(body, []byte(`"bulk-00003"`))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	r, w := slowBody()
	go func() {
		_, _ = w.Write(body[:cut])
		<-ctx.Done()
		_ = w.CloseWithError(ctx.Err()) // as net/http's body does on cancellation
	}()
	s, err := newTableStream(ctx, r, maxListBytes, false, newDecodePools())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if !s.Next() {
			t.Fatalf("a row before the cut: %v", s.Err())
		}
	}
	cancel(context.DeadlineExceeded)
	for s.Next() {
	}
	if err := s.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err = %v, want the deadline", err)
	}
	s.Close()
	s.Close()
	if s.Next() || s.Row() != nil {
		t.Error("Next after Close")
	}
}

// A body cut short without a deadline is a bad answer, said as such.
func TestStreamCutShort(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTable(20))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(body, []byte(`"bulk-00003"`))
	s, err := newTableStream(context.Background(), io.NopCloser(bytes.NewReader(body[:cut])), maxListBytes, false, newDecodePools())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for s.Next() {
		n++
	}
	var bad *BadResponseError
	if err := s.Err(); n != 3 || !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &bad) || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("%d rows, Err = %v", n, err)
	}
}

// closeCounter is a body that counts how it is read and closed.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// Close mid-page closes the body once, and what is pooled stays small.
func TestStreamCloseEarly(t *testing.T) {
	body, err := json.Marshal(apitest.KwokPodTableMetadata(100))
	if err != nil {
		t.Fatal(err)
	}
	rest := bytes.NewReader(body)
	rc := &closeCounter{Reader: rest}
	pools := newDecodePools()
	s, err := newTableStream(context.Background(), rc, maxListBytes, true, pools)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Next() {
		t.Fatal(s.Err())
	}
	kept := s.Row().Clone()
	s.Close()
	s.Close()
	if rc.closed != 1 || s.Next() || s.Err() != nil {
		t.Errorf("closed %d times, Next after Close, Err %v", rc.closed, s.Err())
	}
	if rest.Len() != 0 && int64(len(body))-int64(rest.Len()) < maxDrain {
		t.Errorf("%d bytes left unread of %d", rest.Len(), len(body))
	}
	if kept.Object.Name != "bulk-00000" || kept.Object.Labels["app.kubernetes.io/name"] != "bulk" {
		t.Errorf("a cloned row changed after Close: %+v", kept)
	}
}

func TestPooledMemoryIsCapped(t *testing.T) {
	m := &rowMemory{
		cells:   make([]any, 10*maxPooledCells),
		labels:  map[string]string{},
		scratch: make([]byte, 2*maxPooledScratch),
	}
	for i := range 2 * maxPooledLabels {
		m.labels[fmt.Sprint(i)] = "v"
	}
	m.reset()
	if m.cells != nil || m.scratch != nil || len(m.labels) != 0 {
		t.Errorf("kept %d cells, %d scratch bytes, %d labels", cap(m.cells), cap(m.scratch), len(m.labels))
	}
	m = &rowMemory{cells: make([]any, 3, 8), prev: []any{"x"}, prevRaw: make([][]byte, 1, 4), prevNS: "ns", prevTS: time.Now()}
	m.prevRaw[0] = []byte(`"x"`)
	m.prevRaw[:2][1] = make([]byte, 2*maxPooledCell)
	m.reset()
	if cap(m.cells) != 8 || m.cells[:1][0] != nil || m.prev[:1][0] != nil || m.prevNS != "" || !m.prevTS.IsZero() {
		t.Errorf("a reset keeps the memory, not the values: %+v", m)
	}
	if raws := m.prevRaw[:2]; len(raws[0]) != 0 || cap(raws[0]) == 0 || raws[1] != nil {
		t.Errorf("prevRaw after a reset: %q", raws)
	}
}
