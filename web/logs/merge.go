package logs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"time"
)

const (
	// mergeWindow is how long a merged log holds a line back waiting for an
	// earlier one from a quieter source.
	mergeWindow = 250 * time.Millisecond
	// mergeQueued bounds the lines held for ordering; past it the earliest
	// is written regardless, so a flood never grows memory.
	mergeQueued = 1024
	// maxLogLine splits longer lines, so one runaway line cannot grow a buffer.
	maxLogLine = 64 << 10
	// logBatch is the most a single message or write carries.
	logBatch = 32 << 10
)

// logSource is one container's log, opened when the merge starts it.
type logSource struct {
	Name string
	Open func(context.Context) (io.ReadCloser, error)
}

type mergedLine struct {
	src     int
	at      time.Time // the line's own timestamp
	arrived time.Time
	text    []byte // the whole line, with its timestamp and newline
	done    bool
	err     error
}

// logMerger merges container logs, each prefixed with an RFC 3339
// timestamp, into one stream in timestamp order: a line is written once
// every live source has offered a later one, or after mergeWindow.
// Sources read upstream only as fast as the output drains, so a slow
// reader's backpressure reaches the API server.
type logMerger struct {
	write  func(batch []byte) error
	format func(dst []byte, source string, line []byte) []byte
	// notify reports a source that failed (a container that never started).
	notify func(msg string)
	// open keeps the merge running with no sources: more may join.
	open bool

	lines   chan mergedLine
	join    chan logSource
	names   []string
	queues  [][]mergedLine
	live    []bool
	running int
	queued  int
	batch   []byte
}

func newLogMerger(write func([]byte) error, format func([]byte, string, []byte) []byte) *logMerger {
	return &logMerger{
		write:  write,
		format: format,
		notify: func(string) {},
		lines:  make(chan mergedLine, 256),
		join:   make(chan logSource),
	}
}

// Join adds a source to a running merge; it blocks until the merge takes it.
func (m *logMerger) Join(ctx context.Context, src logSource) bool {
	select {
	case m.join <- src:
		return true
	case <-ctx.Done():
		return false
	}
}

// Run merges sources (and any that Join) until all ended, or until ctx
// ends when the merge is open.
func (m *logMerger) Run(ctx context.Context, sources []logSource) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, src := range sources {
		m.start(ctx, src)
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if err := m.emitReady(time.Now()); err != nil {
			return err
		}
		if m.running == 0 && m.queued == 0 && !m.open {
			return m.flush()
		}
		select {
		case l := <-m.lines:
			m.take(l)
			continue
		default:
		}
		// Nothing more is ready: send what is batched before waiting.
		if err := m.flush(); err != nil {
			return err
		}
		var wake <-chan time.Time
		if oldest, ok := m.oldestArrival(); ok {
			timer.Reset(time.Until(oldest.Add(mergeWindow)))
			wake = timer.C
		}
		select {
		case l := <-m.lines:
			m.take(l)
		case src := <-m.join:
			m.start(ctx, src)
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (m *logMerger) start(ctx context.Context, src logSource) {
	idx := len(m.names)
	m.names = append(m.names, src.Name)
	m.queues = append(m.queues, nil)
	m.live = append(m.live, true)
	m.running++
	go readSource(ctx, idx, src, m.lines)
}

func (m *logMerger) take(l mergedLine) {
	if l.done {
		m.live[l.src] = false
		m.running--
		if l.err != nil && !errors.Is(l.err, context.Canceled) {
			m.notify(m.names[l.src] + ": " + l.err.Error())
		}
		return
	}
	m.queues[l.src] = append(m.queues[l.src], l)
	m.queued++
}

// emitReady writes lines while the earliest queued line is known to be
// the earliest overall, or has waited long enough.
func (m *logMerger) emitReady(now time.Time) error {
	for m.queued > 0 {
		ready := m.queued >= mergeQueued
		if oldest, ok := m.oldestArrival(); ok && now.Sub(oldest) >= mergeWindow {
			ready = true
		}
		if !ready {
			ready = true
			for i, q := range m.queues {
				if m.live[i] && len(q) == 0 {
					ready = false
					break
				}
			}
		}
		if !ready {
			return nil
		}
		if err := m.emitEarliest(); err != nil {
			return err
		}
	}
	return nil
}

func (m *logMerger) emitEarliest() error {
	best := -1
	for i, q := range m.queues {
		if len(q) > 0 && (best < 0 || q[0].at.Before(m.queues[best][0].at)) {
			best = i
		}
	}
	l := m.queues[best][0]
	m.queues[best][0] = mergedLine{}
	m.queues[best] = m.queues[best][1:]
	m.queued--
	m.batch = m.format(m.batch, m.names[best], l.text)
	if len(m.batch) >= logBatch {
		return m.flush()
	}
	return nil
}

func (m *logMerger) oldestArrival() (time.Time, bool) {
	var oldest time.Time
	for _, q := range m.queues {
		if len(q) > 0 && (oldest.IsZero() || q[0].arrived.Before(oldest)) {
			oldest = q[0].arrived
		}
	}
	return oldest, !oldest.IsZero()
}

func (m *logMerger) flush() error {
	if len(m.batch) == 0 {
		return nil
	}
	err := m.write(m.batch)
	// The writer may keep the batch (a WebSocket queue does).
	m.batch = make([]byte, 0, logBatch)
	return err
}

// readSource reads one source line by line into the merge, then reports
// that it ended.
func readSource(ctx context.Context, idx int, src logSource, out chan<- mergedLine) {
	send := func(l mergedLine) bool {
		select {
		case out <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	rc, err := src.Open(ctx)
	if err != nil {
		send(mergedLine{src: idx, done: true, err: err})
		return
	}
	defer rc.Close()
	err = eachLine(rc, func(line []byte, _ bool) error {
		text := bytes.Clone(line)
		if !send(mergedLine{src: idx, at: lineTime(text), arrived: time.Now(), text: text}) {
			return ctx.Err()
		}
		return nil
	})
	send(mergedLine{src: idx, done: true, err: err})
}

// eachLine calls fn with every line of r, newline included, and whether
// more is already buffered; lines longer than maxLogLine arrive in pieces.
// fn must not keep line.
func eachLine(r io.Reader, fn func(line []byte, more bool) error) error {
	br := bufio.NewReaderSize(r, maxLogLine)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				// A full slice of bufio's buffer: appending in place would
				// overwrite what is buffered after it.
				line = append(line[:len(line):len(line)], '\n')
			}
			if ferr := fn(line, br.Buffered() > 0); ferr != nil {
				return ferr
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return nil
		default:
			return err
		}
	}
}

// lineTime is the RFC 3339 timestamp the API server put before a line.
func lineTime(line []byte) time.Time {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, string(line[:sp]))
	return t
}

// pumpLines copies r to write in batches of whole lines, sending what it
// has whenever upstream pauses, so a followed log shows each line at once.
// write may keep the batch.
func pumpLines(r io.Reader, write func(batch []byte) error) error {
	batch := make([]byte, 0, logBatch)
	return eachLine(r, func(line []byte, more bool) error {
		batch = append(batch, line...)
		if more && len(batch) < logBatch {
			return nil
		}
		err := write(batch)
		batch = make([]byte, 0, logBatch)
		return err
	})
}
