// Command stress runs the unit suite again and again while CPU hogs keep the
// cores busy, to find the tests that pass only when the machine is idle.
//
// Each run is one `go test -json` with the given arguments (by default
// -race -count=1 ./..., as `make unit` runs the suite). It prints one line
// per run and, for a failing run, the output of each failing test, then a
// summary: runs, failed runs, and the failing tests by name with the number
// of runs each failed in. The exit code is 1 when any run failed.
//
// The hogs are goroutines of this process spinning on their own threads, so
// they end with it however it ends, even killed. go test runs in a process
// group of its own, which an interrupt stops as a whole.
//
//	go run ./e2e/stress [-runs 10] [-hogs 2] [-logs DIR] [-go go] [-- go test arguments]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

type options struct {
	goCmd  string // the go command
	runs   int
	hogs   int
	logs   string   // a directory for each run's full output, or ""
	goTest []string // arguments to go test, after -json
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("stress", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.goCmd, "go", "go", "the go command")
	fs.IntVar(&o.runs, "runs", 10, "runs of the suite")
	fs.IntVar(&o.hogs, "hogs", 2, "CPU hogs (busy threads) while the suite runs")
	fs.StringVar(&o.logs, "logs", "", "directory for each run's full output (run-NN.log)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: stress [-runs N] [-hogs N] [-logs DIR] [-go CMD] [-- go test arguments]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.runs < 1 || o.hogs < 0 {
		return o, fmt.Errorf("-runs must be at least 1 and -hogs at least 0 (got %d and %d)", o.runs, o.hogs)
	}
	o.goTest = fs.Args()
	if len(o.goTest) == 0 {
		o.goTest = []string{"-race", "-count=1", "./..."}
	}
	return o, nil
}

func main() {
	o, err := parseOptions(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		if errors.Is(err, context.Canceled) {
			err = errors.New("interrupted")
		}
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(1)
	}
}

// errFailedRuns is run's error when the suite ran but failed at least once.
var errFailedRuns = errors.New("some runs failed")

func run(ctx context.Context, o options, out io.Writer) error {
	if o.logs != "" {
		if err := os.MkdirAll(o.logs, 0o755); err != nil {
			return err
		}
	}
	stopHogs := startHogs(o.hogs)
	defer stopHogs()

	fmt.Fprintf(out, "stress: %d runs of go test %s, %d CPU hogs on %d CPUs\n",
		o.runs, strings.Join(o.goTest, " "), o.hogs, runtime.NumCPU())
	var results []runResult
	for i := 1; i <= o.runs && ctx.Err() == nil; i++ {
		r, err := runOnce(ctx, i, o)
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			// Cut short: neither a pass nor a failure of the suite.
			fmt.Fprintf(out, "run %2d/%d  interrupted\n", i, o.runs)
			break
		}
		results = append(results, r)
		report(out, r, o.runs)
	}
	if summarize(out, results, o.logs) > 0 {
		return errFailedRuns
	}
	return ctx.Err()
}

// startHogs keeps n threads busy until the returned function is called. Its
// GOMAXPROCS leaves a thread for reading go test's output besides them.
func startHogs(n int) (stop func()) {
	if n == 0 {
		return func() {}
	}
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), n+1))
	var done atomic.Bool
	var sink atomic.Uint64 // keeps the arithmetic from being optimised away
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			runtime.LockOSThread()
			x := uint64(1)
			for !done.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			sink.Add(x)
		})
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}
