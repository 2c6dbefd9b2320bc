package main

import (
	"os"
	"testing"
	"time"
)

// The "some" line's total is read; a file without one says so.
func TestParsePressure(t *testing.T) {
	const psi = "some avg10=44.07 avg60=35.24 avg300=36.07 total=25142698594\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=7\n"
	if got, ok := parsePressure([]byte(psi)); !ok || got != 25142698594*time.Microsecond {
		t.Errorf("parsePressure = %v, %v; want 25142.698594s, true", got, ok)
	}
	for _, bad := range []string{"", "full avg10=0.00 total=7\n", "some avg10=1.00\n", "some total=x\n"} {
		if got, ok := parsePressure([]byte(bad)); ok {
			t.Errorf("parsePressure(%q) = %v, true; want false", bad, got)
		}
	}
}

// Where the kernel reports CPU pressure, cpuStalled reads it.
func TestCPUStalledReadsThePressureFile(t *testing.T) {
	_, err := os.Stat("/proc/pressure/cpu")
	if _, ok := cpuStalled(); ok != (err == nil) {
		t.Errorf("read %v, with /proc/pressure/cpu: %v", ok, err)
	}
}
