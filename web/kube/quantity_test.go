package kube

import "testing"

func TestFormatUsage(t *testing.T) {
	for milli, want := range map[int64]string{
		0: "0m", 12: "12m", 999: "999m", 1000: "1", 1500: "1.5", 1250: "1.25", 1234: "1.23", 12345: "12.3", 64000: "64",
	} {
		if got := FormatCPU(milli); got != want {
			t.Errorf("FormatCPU(%d) = %q, want %q", milli, got, want)
		}
	}
	const ki, mi, gi = 1 << 10, 1 << 20, 1 << 30
	for bytes, want := range map[int64]string{
		0: "0Ki", 1: "1Ki", 512 * ki: "512Ki", mi: "1Mi", 64 * mi: "64Mi", 64*mi + 400*ki: "64Mi", 64*mi + 600*ki: "65Mi",
		2 * gi: "2048Mi", 10 * gi: "10Gi", 12*gi + gi/2: "12.5Gi",
	} {
		if got := FormatMemory(bytes); got != want {
			t.Errorf("FormatMemory(%d) = %q, want %q", bytes, got, want)
		}
	}
}
