package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuStalled is how long, in all, some runnable task of this machine has
// waited for a core (Linux's pressure stall information), and false
// where the kernel does not say.
func cpuStalled() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	return parsePressure(b)
}

// parsePressure reads the "some" line's total (µs) of a pressure file.
func parsePressure(b []byte) (time.Duration, bool) {
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "some "); ok {
			for field := range strings.FieldsSeq(rest) {
				if v, ok := strings.CutPrefix(field, "total="); ok {
					us, err := strconv.ParseInt(v, 10, 64)
					return time.Duration(us) * time.Microsecond, err == nil
				}
			}
		}
	}
	return 0, false
}
