package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBenchLogLines(t *testing.T) {
	g := newBenchLineGen()
	var prev time.Time
	for i := range int64(2000) {
		line := g.appendLine(nil, i)
		if int64(len(line)) != benchLineBytes {
			t.Fatalf("line %d is %d bytes, want %d: %q", i, len(line), benchLineBytes, line)
		}
		ts, rest, ok := strings.Cut(string(line), " ")
		if !ok || !strings.HasPrefix(rest, "stdout F level=info seq=") || !strings.HasSuffix(rest, "\n") {
			t.Fatalf("line %d is not a CRI line: %q", i, line)
		}
		if strings.Count(rest, "\n") != 1 {
			t.Fatalf("line %d has an embedded newline: %q", i, line)
		}
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatalf("line %d: timestamp: %v", i, err)
		}
		if i > 0 && !at.After(prev) {
			t.Fatalf("line %d: timestamp %s not after %s", i, at, prev)
		}
		prev = at
	}
}

func TestEnsureBenchLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logbench.log")
	reused, err := ensureBenchLog(path, 1)
	if err != nil || reused {
		t.Fatalf("first ensureBenchLog = %v, %v; want false, nil", reused, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != benchLogSize(1) {
		t.Fatalf("size %d, want %d", st.Size(), benchLogSize(1))
	}
	// What kwok serves: the messages with their newlines, at least 1 MiB
	// and less than one line more.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var served int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		f := bytes.SplitN(sc.Bytes(), []byte(" "), 4)
		if len(f) != 4 || string(f[1]) != "stdout" || string(f[2]) != "F" {
			t.Fatalf("bad line %q", sc.Bytes())
		}
		served += int64(len(f[3])) + 1
	}
	if served < 1<<20 || served >= 1<<20+benchPayloadBytes {
		t.Fatalf("served log is %d bytes, want 1 MiB rounded up to a line", served)
	}

	if reused, err := ensureBenchLog(path, 1); err != nil || !reused {
		t.Fatalf("second ensureBenchLog = %v, %v; want true, nil", reused, err)
	}
	if reused, err := ensureBenchLog(path, 2); err != nil || reused {
		t.Fatalf("ensureBenchLog with another size = %v, %v; want false, nil", reused, err)
	}
	if st, _ := os.Stat(path); st.Size() != benchLogSize(2) {
		t.Fatalf("size %d after regenerating, want %d", st.Size(), benchLogSize(2))
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

func TestWriteKwokConfigOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kwok.yaml")
	if err := writeKwokConfig(path, "/d/demo.log", "/d/logbench.log"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	bench, demo := strings.Index(s, "name: logbench"), strings.Index(s, "name: demo-logs")
	if bench < 0 || demo < 0 || bench > demo {
		t.Fatalf("want ClusterLogs logbench (at %d) before demo-logs (at %d)", bench, demo)
	}
	if !strings.Contains(s, `matchNamespaces: ["logbench"]`) {
		t.Fatalf("logbench selector missing:\n%s", s[bench:])
	}
	if err := writeKwokConfig(path, "/d/demo.log", ""); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "logbench") {
		t.Fatal("logbench ClusterLogs written without a bench log")
	}
}
