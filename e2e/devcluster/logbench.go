package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The log benchmark's pod: --log-bench-mb serves a large, fixed log file as
// the log of logbench/big (and of any other pod in namespace logbench), for
// measuring log throughput through the apiserver and the console.
const (
	logBenchNamespace = "logbench"
	logBenchPod       = "big"
	logBenchContainer = "app"
)

// Every line of the bench log has the same length, so the file's size tells
// whether an existing file was written for the same --log-bench-mb:
// a 30-byte timestamp, " stdout F ", a 120-byte message and "\n". What a
// non-follow GET of the pod's log returns is the message and its newline.
const (
	benchTimestampLayout = "2006-01-02T15:04:05.000000000Z"
	benchMessageBytes    = 120
	benchPrefixBytes     = int64(len(benchTimestampLayout) + len(" stdout F "))
	benchLineBytes       = benchPrefixBytes + benchMessageBytes + 1
	// benchPayloadBytes is what one line contributes to the served log.
	benchPayloadBytes = benchMessageBytes + 1
)

// benchLogLines is the number of lines whose served log (messages and
// newlines) is at least mib MiB.
func benchLogLines(mib int) int64 {
	want := int64(mib) << 20
	return (want + benchPayloadBytes - 1) / benchPayloadBytes
}

// benchLogSize is the size in bytes of the bench log file for mib.
func benchLogSize(mib int) int64 { return benchLogLines(mib) * benchLineBytes }

// ensureBenchLog writes the bench log file at path, unless a file of the
// right size is already there (it is deterministic, so it can be reused
// across restarts). The served log is mib MiB, rounded up to a whole line;
// the file itself is about a third larger (the CRI timestamp and stream tag).
func ensureBenchLog(path string, mib int) (reused bool, err error) {
	size := benchLogSize(mib)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == size {
		return true, nil
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp) // a no-op once renamed
	w := bufio.NewWriterSize(f, 1<<20)
	g := newBenchLineGen()
	line := make([]byte, 0, benchLineBytes)
	for i := range benchLogLines(mib) {
		line = g.appendLine(line[:0], i)
		if _, err := w.Write(line); err != nil {
			f.Close()
			return false, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	return false, os.Rename(tmp, path)
}

// benchLineGen makes the bench log's lines: deterministic, varied like an
// access log, and each exactly benchLineBytes long.
type benchLineGen struct {
	rng   *rand.Rand
	start time.Time
}

func newBenchLineGen() *benchLineGen {
	return &benchLineGen{
		rng:   rand.New(rand.NewPCG(2024, 7)),
		start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

const benchAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// appendLine appends line i ("<timestamp> stdout F <message>\n") to b.
func (g *benchLineGen) appendLine(b []byte, i int64) []byte {
	b = g.start.Add(time.Duration(i)*time.Millisecond).AppendFormat(b, benchTimestampLayout)
	b = append(b, " stdout F "...)
	msgStart := len(b)
	route := demoRoutes[g.rng.IntN(len(demoRoutes))]
	b = fmt.Appendf(b, `level=info seq=%09d msg="%s 200" duration=%dms trace=`, i, route, 1+g.rng.IntN(250))
	// Pad (or cut) the message to its fixed length with random characters,
	// so that it does not compress to nothing.
	for len(b)-msgStart < benchMessageBytes {
		b = append(b, benchAlphabet[g.rng.IntN(len(benchAlphabet))])
	}
	b = b[:msgStart+benchMessageBytes]
	return append(b, '\n')
}

// benchLogsConfig is the kwok ClusterLogs that serves the bench log for the
// pods of namespace logbench. kwok uses the first ClusterLogs in config order
// whose selector matches the pod (sigs.k8s.io/kwok@v0.8.0
// pkg/kwok/server/debugging_logs.go getPodLogs; pkg/config Load keeps the
// file order within a kind), so it must come before demo-logs, whose empty
// selector matches every pod. Its follow field is informational: kwok v0.8.0
// follows if and only if the request asks (?follow=true), and a request
// without follow reads the file to its end and finishes.
func benchLogsConfig(path string) string {
	return fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: logbench
spec:
  selector:
    matchNamespaces: [%q]
  logs:
  - containers: []
    logsFile: %q
    follow: false`, logBenchNamespace, path)
}

// ensureLogBenchPod creates namespace logbench and the bare pod logbench/big
// (container app). The scheduler puts it on a kwok node, which runs it.
func ensureLogBenchPod(ctx context.Context, client kubernetes.Interface) error {
	if err := ensureNamespace(ctx, client, logBenchNamespace); err != nil {
		return err
	}
	if err := waitForDefaultServiceAccount(ctx, client, logBenchNamespace); err != nil {
		return err
	}
	pod := sleeperPod(logBenchNamespace, logBenchPod, "logbench", logBenchContainer)
	if err := ignoreExists(client.CoreV1().Pods(logBenchNamespace).Create(ctx, pod, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("pod %s/%s: %w", logBenchNamespace, logBenchPod, err)
	}
	return nil
}

// waitForDefaultServiceAccount waits for the controller-manager to create
// the namespace's default ServiceAccount: until then the ServiceAccount
// admission plugin rejects pods.
func waitForDefaultServiceAccount(ctx context.Context, client kubernetes.Interface, namespace string) error {
	return poll(ctx, 100*time.Millisecond, "default service account in "+namespace, func(ctx context.Context) (bool, string, error) {
		_, err := client.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, fmt.Sprint(err), nil
	})
}
