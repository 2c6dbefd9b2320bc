package kube

import (
	"strconv"
	"strings"
)

// FormatCPU prints millicores as kubectl top does ("12m"), and from one
// core on in cores, as Kubernetes quantities write them ("1.5", "12").
func FormatCPU(milli int64) string {
	if milli < 1000 {
		return strconv.FormatInt(milli, 10) + "m"
	}
	prec := 2
	if milli >= 10000 {
		prec = 1
	}
	return trimZeros(strconv.FormatFloat(float64(milli)/1000, 'f', prec, 64))
}

// FormatMemory prints bytes in Mi as kubectl top does ("64Mi"), below one
// Mi in Ki, and from 10 Gi on in Gi with one decimal.
func FormatMemory(bytes int64) string {
	const ki, mi, gi = 1 << 10, 1 << 20, 1 << 30
	switch {
	case bytes < mi:
		return strconv.FormatInt((bytes+ki-1)/ki, 10) + "Ki"
	case bytes < 10*gi:
		return strconv.FormatInt((bytes+mi/2)/mi, 10) + "Mi"
	}
	return trimZeros(strconv.FormatFloat(float64(bytes)/gi, 'f', 1, 64)) + "Gi"
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
