package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
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
