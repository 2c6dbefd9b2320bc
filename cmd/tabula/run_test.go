package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

func TestClientGoLogsComeOutInTheConsolesJSONFormat(t *testing.T) {
	var out bytes.Buffer
	log := newLogger(config{LogFormat: "json"}, &out)
	routeClientGoLogs(log)
	t.Cleanup(func() { klog.ClearLogger() })

	klog.InfoS("from client-go", "key", "value")
	slogWarnings{log: log}.HandleWarningHeaderWithContext(context.Background(), 299, "-", "v1beta1 is deprecated")
	slogWarnings{log: log}.HandleWarningHeaderWithContext(context.Background(), 199, "-", "not an API warning")

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log lines %q, want 2", lines)
	}
	var entries []map[string]any
	for _, l := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		entries = append(entries, e)
	}
	if e := entries[0]; e["msg"] != "from client-go" || e["key"] != "value" || e["component"] != "client-go" {
		t.Errorf("klog entry %v", e)
	}
	if e := entries[1]; e["level"] != "WARN" || e["warning"] != "v1beta1 is deprecated" {
		t.Errorf("warning entry %v", e)
	}
}
