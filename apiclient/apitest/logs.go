package apitest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// LogTimeFormat is how timestamps=true prefixes each log line (then a
// space): RFC 3339 with fixed nanoseconds, as the kubelet writes them.
const LogTimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

type logLine struct {
	at   time.Time
	text string
}

// containerLog is the log of one container: its current instance and, after
// RestartLog, the previous one.
type containerLog struct {
	lines       []logLine
	previous    []logLine
	hasPrevious bool
	instance    int  // bumped by RestartLog: streams of older ones end
	ended       bool // the container stopped: follow streams end
}

func logKey(namespace, pod, container string) string {
	return namespace + "/" + pod + "/" + container
}

func (s *Server) logLocked(namespace, pod, container string) *containerLog {
	k := logKey(namespace, pod, container)
	l := s.store.logs[k]
	if l == nil {
		l = &containerLog{}
		s.store.logs[k] = l
	}
	return l
}

// AppendLog appends lines to a container's log, timestamped now. Each string
// is a line (one with newlines is several). Requests following the log get
// them. The pod need not be stored yet.
func (s *Server) AppendLog(namespace, pod, container string, lines ...string) {
	s.AppendLogAt(namespace, pod, container, time.Now(), lines...)
}

// AppendLogAt is AppendLog with the lines timestamped at.
func (s *Server) AppendLogAt(namespace, pod, container string, at time.Time, lines ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.logLocked(namespace, pod, container)
	for _, line := range lines {
		for _, part := range strings.Split(strings.TrimSuffix(line, "\n"), "\n") {
			l.lines = append(l.lines, logLine{at: at, text: part})
		}
	}
	l.ended = false
	s.store.notify()
}

// EndLog says the container stopped: requests following its log end once
// they have sent it, until AppendLog writes to it again.
func (s *Server) EndLog(namespace, pod, container string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLocked(namespace, pod, container).ended = true
	s.store.notify()
}

// RestartLog says the container restarted: its log so far becomes the one
// previous=true reads, the current log starts empty, and requests following
// the old one end.
func (s *Server) RestartLog(namespace, pod, container string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.logLocked(namespace, pod, container)
	l.previous, l.hasPrevious, l.lines = l.lines, true, nil
	l.instance++
	l.ended = false
	s.store.notify()
}

// serveLog serves pods/{name}/log as the kubelet does, in plain text, with
// container, follow, previous, timestamps, tailLines, sinceSeconds,
// sinceTime and limitBytes.
func (s *Server) serveLog(w http.ResponseWriter, r *http.Request, req resourceRequest) {
	pod, found := s.getObject("", "pods", req.namespace, req.name)
	if !found {
		WriteStatus(w, NotFound("", "pods", req.name))
		return
	}
	q := r.URL.Query()
	container, st := logContainer(pod, q.Get("container"))
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	var opts struct {
		follow, timestamps, previous bool
		tail, since, limit           int64 // -1: not set
		sinceTime                    time.Time
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"follow", &opts.follow}, {"timestamps", &opts.timestamps}, {"previous", &opts.previous}} {
		if *b.dst, st = boolParam(q.Get(b.name), b.name); st != nil {
			WriteStatus(w, *st)
			return
		}
	}
	for _, n := range []struct {
		name string
		min  int64
		dst  *int64
	}{{"tailLines", 0, &opts.tail}, {"sinceSeconds", 1, &opts.since}, {"limitBytes", 1, &opts.limit}} {
		*n.dst = -1
		if v := q.Get(n.name); v != "" {
			i, err := strconv.ParseInt(v, 10, 64)
			if err != nil || i < n.min {
				WriteStatus(w, badRequest(fmt.Sprintf("%s: Invalid value: %q: must be an integer of at least %d", n.name, v, n.min)))
				return
			}
			*n.dst = i
		}
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			WriteStatus(w, badRequest(fmt.Sprintf("sinceTime: Invalid value: %q", v)))
			return
		}
		opts.sinceTime = t
	}
	if opts.since > 0 {
		opts.sinceTime = time.Now().Add(-time.Duration(opts.since) * time.Second)
	}

	key := logKey(req.namespace, req.name, container)
	s.mu.Lock()
	l := s.store.logs[key]
	var lines []logLine
	instance, next, ended := 0, 0, false
	if l != nil {
		lines, instance, next, ended = l.lines, l.instance, len(l.lines), l.ended
	}
	if opts.previous {
		if l == nil || !l.hasPrevious {
			s.mu.Unlock()
			WriteStatus(w, badRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, req.name)))
			return
		}
		lines, ended = l.previous, true
	}
	s.mu.Unlock()

	if !opts.sinceTime.IsZero() {
		i := 0
		for i < len(lines) && lines[i].at.Before(opts.sinceTime) {
			i++
		}
		lines = lines[i:]
	}
	if opts.tail >= 0 && int64(len(lines)) > opts.tail {
		lines = lines[int64(len(lines))-opts.tail:]
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	lw := &logWriter{w: w, rc: http.NewResponseController(w), timestamps: opts.timestamps, left: opts.limit}
	_ = lw.rc.Flush() // the headers, even before any line
	if lw.write(lines) != nil || !opts.follow || ended {
		return
	}
	for {
		s.mu.Lock()
		l := s.store.logs[key]
		var fresh []logLine
		if l != nil {
			if l.instance != instance {
				ended = true // the container restarted: this stream is over
			} else {
				fresh, next, ended = l.lines[next:], len(l.lines), l.ended
			}
		}
		changed, shutdown := s.store.changed, s.store.shutdown
		s.mu.Unlock()
		if lw.write(fresh) != nil || ended {
			return
		}
		select {
		case <-changed:
		case <-shutdown:
			return
		case <-r.Context().Done():
			return
		}
	}
}

var errLimitReached = errors.New("limitBytes reached")

// logWriter writes log lines and flushes, stopping at limitBytes.
type logWriter struct {
	w          io.Writer
	rc         *http.ResponseController
	timestamps bool
	left       int64 // bytes still allowed; -1 without limitBytes
}

func (lw *logWriter) write(lines []logLine) error {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	for _, l := range lines {
		if lw.timestamps {
			b.WriteString(l.at.UTC().Format(LogTimeFormat))
			b.WriteByte(' ')
		}
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	out := b.String()
	var err error
	if lw.left >= 0 {
		if int64(len(out)) >= lw.left {
			out, err = out[:lw.left], errLimitReached
		}
		lw.left -= int64(len(out))
	}
	if _, werr := io.WriteString(lw.w, out); werr != nil {
		return werr
	}
	if ferr := lw.rc.Flush(); ferr != nil {
		return ferr
	}
	return err
}

// logContainer picks the container a log request is for, with
// kube-apiserver's errors.
func logContainer(pod *unstructured.Unstructured, name string) (string, *metav1.Status) {
	containers, inits := containerNames(pod, "containers"), containerNames(pod, "initContainers")
	if name == "" {
		switch len(containers) {
		case 1:
			return containers[0], nil
		case 0:
			st := badRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.GetName()))
			return "", &st
		}
		msg := fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]", pod.GetName(), strings.Join(containers, " "))
		if len(inits) > 0 {
			msg += fmt.Sprintf(" or one of the init containers: [%s]", strings.Join(inits, " "))
		}
		st := badRequest(msg)
		return "", &st
	}
	for _, field := range []string{"containers", "initContainers", "ephemeralContainers"} {
		for _, n := range containerNames(pod, field) {
			if n == name {
				return name, nil
			}
		}
	}
	st := badRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.GetName()))
	return "", &st
}
