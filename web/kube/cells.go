package kube

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/views"
)

// Numeric says whether a Table column type holds numbers.
func Numeric(colType string) bool { return colType == "integer" || colType == "number" }

// FormatCell renders a Table cell value the way kubectl prints it.
func FormatCell(v any, colType string, now time.Time) views.Cell {
	c := views.Cell{Numeric: Numeric(colType)}
	switch val := v.(type) {
	case nil:
		c.Text = ""
	case string:
		c.Text = val
		if colType != "date" {
			break
		}
		if t, err := time.Parse(time.RFC3339, val); err == nil {
			c.Text = duration.HumanDuration(now.Sub(t))
			c.Title = t.UTC().Format(time.RFC3339)
			c.Time = true
		} else if d, ok := parseHumanDuration(val); ok {
			// kube-apiserver sends CRD date columns as ages already; the
			// time they stand for is only as exact as the age.
			c.Title = "≈ " + now.Add(-d).UTC().Truncate(time.Second).Format(time.RFC3339)
			c.Time = true
		}
	case float64:
		c.Text = strconv.FormatFloat(val, 'f', -1, 64)
	case bool:
		c.Text = strconv.FormatBool(val)
	default:
		b, err := json.Marshal(val)
		if err != nil {
			c.Text = fmt.Sprint(val)
		} else {
			c.Text = string(b)
		}
	}
	return c
}

// parseHumanDuration reads the ages kubectl and kube-apiserver print
// ("45s", "5m3s", "3h", "12d", "2y51d").
func parseHumanDuration(s string) (time.Duration, bool) {
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'y': 365 * 24 * time.Hour}
	var total time.Duration
	n, digits := 0, 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= '0' && ch <= '9' {
			n = n*10 + int(ch-'0')
			digits++
			continue
		}
		unit, ok := units[ch]
		if !ok || digits == 0 {
			return 0, false
		}
		total += time.Duration(n) * unit
		n, digits = 0, 0
	}
	return total, digits == 0 && total > 0 || s == "0s"
}
