package logs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func staticSource(name string, lines ...string) logSource {
	return logSource{Name: name, Open: func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(strings.Join(lines, ""))), nil
	}}
}

func collectMerge(t *testing.T, ctx context.Context, m *logMerger, sources []logSource) (string, error) {
	t.Helper()
	var mu sync.Mutex
	var out strings.Builder
	m.write = func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		out.Write(b)
		return nil
	}
	err := m.Run(ctx, sources)
	mu.Lock()
	defer mu.Unlock()
	return out.String(), err
}

func prefixFormat(dst []byte, src string, line []byte) []byte {
	dst = append(dst, src...)
	dst = append(dst, '\t')
	return append(dst, line...)
}

func TestMergeOrdersLinesByTimestampAcrossSources(t *testing.T) {
	a := staticSource("a/app",
		"2026-11-21T10:00:01Z one\n",
		"2026-11-21T10:00:03.5Z three\n",
		"2026-11-21T10:00:05Z five\n")
	b := staticSource("b/app",
		"2026-11-21T10:00:02.25Z two\n",
		"2026-11-21T10:00:04Z four\n")
	got, err := collectMerge(t, t.Context(), newLogMerger(nil, prefixFormat), []logSource{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := "a/app\t2026-11-21T10:00:01Z one\n" +
		"b/app\t2026-11-21T10:00:02.25Z two\n" +
		"a/app\t2026-11-21T10:00:03.5Z three\n" +
		"b/app\t2026-11-21T10:00:04Z four\n" +
		"a/app\t2026-11-21T10:00:05Z five\n"
	if got != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
}

func TestMergeReportsASourceThatFailsAndKeepsTheOthers(t *testing.T) {
	bad := logSource{Name: "b/app", Open: func(context.Context) (io.ReadCloser, error) {
		return nil, errors.New("container app is waiting to start")
	}}
	m := newLogMerger(nil, prefixFormat)
	var notes []string
	m.notify = func(s string) { notes = append(notes, s) }
	got, err := collectMerge(t, t.Context(), m, []logSource{staticSource("a/app", "2026-11-21T10:00:01Z ok\n"), bad})
	if err != nil {
		t.Fatal(err)
	}
	if got != "a/app\t2026-11-21T10:00:01Z ok\n" {
		t.Fatalf("merged %q", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "b/app: container app is waiting") {
		t.Fatalf("notes %q", notes)
	}
}

// An open merge (follow) takes sources that join later and writes a quiet
// source's lines after the merge window, without waiting for the others.
func TestOpenMergeTakesJoinersAndDoesNotWaitForeverOnQuietSources(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	quiet, quietW := io.Pipe()
	defer quietW.Close()
	m := newLogMerger(nil, prefixFormat)
	m.open = true
	lines := make(chan string, 16)
	m.write = func(b []byte) error {
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l != "" {
				lines <- l
			}
		}
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, []logSource{{Name: "quiet/app", Open: func(context.Context) (io.ReadCloser, error) { return quiet, nil }}})
	}()
	if !m.Join(ctx, staticSource("new/app", "2026-11-21T10:00:09Z hello\n")) {
		t.Fatal("join refused")
	}
	select {
	case l := <-lines:
		if l != "new/app\t2026-11-21T10:00:09Z hello\n" {
			t.Fatalf("line %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a joined source's line never came out while another source was quiet")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
}

// endlessLog serves one timestamped line per Read, counting them, up to
// limit lines and then EOF (so that a merge that never stops reading ends
// too, and fails the test rather than hang it). One line per Read means
// nothing is read ahead of the merge's demand.
type endlessLog struct {
	limit  int64
	served atomic.Int64
}

func (e *endlessLog) Read(p []byte) (int, error) {
	i := e.served.Load()
	if i == e.limit {
		return 0, io.EOF
	}
	line := fmt.Appendf(nil, "2026-11-21T10:00:00.%09dZ line %d\n", i, i)
	if len(p) < len(line) {
		return 0, io.ErrShortBuffer
	}
	e.served.Add(1)
	return copy(p, line), nil
}

// A reader that stops reading stops the merge from reading upstream: the
// source blocks, nothing piles up beyond the bounded queues.
func TestMergeBackpressureBoundsWhatIsRead(t *testing.T) {
	// What the merge may hold while its writer is blocked: the batch being
	// written (32 KiB of lines of at least 47 bytes with their prefix, and
	// the one that crossed 32 KiB), its queue, its channel, and the line
	// the source's reader holds.
	const bound = logBatch/47 + 1 + mergeQueued + 256 + 1
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		upstream := &endlessLog{limit: bound + 1}
		loud := logSource{Name: "loud/app", Open: func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(upstream), nil
		}}
		m := newLogMerger(func([]byte) error {
			<-ctx.Done() // a reader that stops reading
			return ctx.Err()
		}, prefixFormat)
		m.open = true
		if cap(m.lines) != 256 {
			t.Fatalf("the merge's channel holds %d lines: update the bound", cap(m.lines))
		}
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx, []logSource{loud}) }()
		// Wait until every goroutine of the merge is blocked: the writer,
		// and the source's reader on the full channel. Nothing is read
		// after this.
		synctest.Wait()
		if n := upstream.served.Load(); n > bound {
			t.Fatalf("%d lines were read while the writer was blocked, want at most %d", n, bound)
		}
		cancel()
		<-done
	})
}

func TestPumpLinesSendsWholeLinesAndSplitsRunaways(t *testing.T) {
	long := strings.Repeat("x", maxLogLine+10)
	var batches []string
	err := pumpLines(strings.NewReader("a\nb\n"+long+"\nlast-without-newline"), func(b []byte) error {
		batches = append(batches, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(batches, "")
	if !strings.HasPrefix(all, "a\nb\n") || !strings.HasSuffix(all, "last-without-newline\n") {
		t.Fatalf("pumped %q…%q", all[:10], all[len(all)-30:])
	}
	for _, b := range batches {
		if !strings.HasSuffix(b, "\n") {
			t.Fatalf("a batch ends mid-line: …%q", b[max(0, len(b)-20):])
		}
		if len(b) > logBatch+maxLogLine+1 {
			t.Fatalf("batch of %d bytes", len(b))
		}
	}
}
