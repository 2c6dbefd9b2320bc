package main

import (
	"os"
	"testing"
	"time"
)

const statusText = `Name:	tabula
Umask:	0022
State:	S (sleeping)
VmPeak:	 1288236 kB
VmSize:	 1288236 kB
VmHWM:	  331244 kB
VmRSS:	  162816 kB
RssAnon:	  150000 kB
Threads:	9
`

func TestParseProcStatus(t *testing.T) {
	st := parseProcStatus([]byte(statusText))
	if st.rssKiB != 162816 || st.hwmKiB != 331244 {
		t.Errorf("parsed %+v, want VmRSS 162816 and VmHWM 331244", st)
	}
	if st := parseProcStatus([]byte("Name:\tx\nVmRSS:\tlots kB\n")); st.rssKiB != -1 || st.hwmKiB != -1 {
		t.Errorf("garbage parsed as %+v, want -1s", st)
	}
}

func TestReadProcStatusOfThisProcess(t *testing.T) {
	st := readProcStatus(os.Getpid())
	if st.rssKiB <= 0 || st.hwmKiB < st.rssKiB {
		t.Errorf("this process: %+v", st)
	}
	if st := readProcStatus(-1); st.rssKiB != -1 || st.hwmKiB != -1 {
		t.Errorf("no process: %+v, want -1s", st)
	}
}

func TestParseOpenFilesLimit(t *testing.T) {
	limits := `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`
	if n := parseOpenFilesLimit([]byte(limits)); n != 20000 {
		t.Errorf("open files = %d, want 20000", n)
	}
	if n := parseOpenFilesLimit([]byte("Max open files            unlimited            unlimited            files\n")); n != 0 {
		t.Errorf("unlimited = %d, want 0", n)
	}
	if n := parseOpenFilesLimit([]byte("Max cpu time unlimited\n")); n != -1 {
		t.Errorf("missing = %d, want -1", n)
	}
	if n := openFilesLimit(os.Getpid()); n < 0 {
		t.Errorf("this process's limit = %d", n)
	}
}

func TestPeakPerPage(t *testing.T) {
	for _, tc := range []struct {
		p    peakResult
		want float64
	}{
		// VmHWM was reset: it is the round's peak, even above the samples.
		{peakResult{k: 4, beforeKiB: 100 << 10, sampledKiB: 300 << 10, hwmKiB: 340 << 10, hwmReset: true}, 60 << 10},
		// Not reset: VmHWM may be an older peak, so the samples decide.
		{peakResult{k: 1, beforeKiB: 100 << 10, sampledKiB: 180 << 10, hwmKiB: 900 << 10}, 80 << 10},
	} {
		if got := tc.p.perPageKiB(); got != tc.want {
			t.Errorf("%+v: per page %v KiB, want %v", tc.p, got, tc.want)
		}
	}
}

func TestParseCPUTime(t *testing.T) {
	stat := "4242 (tabula (x) y) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 9 0 1000 123456 789\n"
	if got := parseCPUTime([]byte(stat)); got != 3250*time.Millisecond {
		t.Errorf("cpu time %v, want 3.25s", got)
	}
	if got := parseCPUTime([]byte("garbage")); got != -1 {
		t.Errorf("garbage: %v", got)
	}
}
