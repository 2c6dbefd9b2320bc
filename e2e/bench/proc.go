package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procStatus is what the bench reads of /proc/<pid>/status, in KiB; -1 when
// a field is missing.
type procStatus struct {
	rssKiB, hwmKiB int64
}

// parseProcStatus reads VmRSS and VmHWM from the text of /proc/<pid>/status
// ("VmRSS:\t  123456 kB").
func parseProcStatus(b []byte) procStatus {
	st := procStatus{rssKiB: -1, hwmKiB: -1}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &st.rssKiB
		case "VmHWM":
			dst = &st.hwmKiB
		default:
			continue
		}
		f := strings.Fields(v)
		if len(f) == 2 && f[1] == "kB" {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				*dst = n
			}
		}
	}
	return st
}

// readProcStatus reads pid's status; both fields are -1 when it cannot.
func readProcStatus(pid int) procStatus {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procStatus{rssKiB: -1, hwmKiB: -1}
	}
	return parseProcStatus(b)
}

// vmRSSKiB reads VmRSS of pid in KiB, or -1.
func vmRSSKiB(pid int) int64 { return readProcStatus(pid).rssKiB }

// resetPeak makes VmHWM start again from the current VmRSS (clear_refs 5).
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// parseOpenFilesLimit reads the soft "Max open files" limit from the text of
// /proc/<pid>/limits; -1 when it is missing, 0 for unlimited.
func parseOpenFilesLimit(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "Max open files")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return -1
		}
		if f[0] == "unlimited" {
			return 0
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			return n
		}
		return -1
	}
	return -1
}

// openFilesLimit is pid's soft open-files limit, as parseOpenFilesLimit.
func openFilesLimit(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return -1
	}
	return parseOpenFilesLimit(b)
}

// mib formats KiB as MiB, or "unknown" for a negative value.
func mib(kib int64) string {
	if kib < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}

// cpuTime is the CPU time pid has used, user and system, from
// /proc/<pid>/stat (in clock ticks of 1/100 s, Linux's USER_HZ); -1 when it
// cannot be read.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	return parseCPUTime(b)
}

// parseCPUTime reads utime and stime, the 14th and 15th fields of
// /proc/<pid>/stat, counted after the command name, which may hold spaces
// and parentheses, so from its last ')'.
func parseCPUTime(b []byte) time.Duration {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is the state, the 3rd field: utime is f[11], stime f[12].
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
