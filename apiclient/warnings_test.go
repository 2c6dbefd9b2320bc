package apiclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestServerWarningsGoToTheRequestsCollectorElseToTheLog(t *testing.T) {
	const msg = `v1 Pod is "deprecated" in v9.99+`
	fake := apitest.NewServerWith(t, apitest.Options{Warnings: map[string]string{"pods": msg}}, apitest.CoreV1())
	seedPods(fake)
	var logged bytes.Buffer
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{Log: slog.New(slog.NewJSONHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}

	ctx, warnings := apiclient.WithWarnings(context.Background())
	for range 2 {
		if _, _, _, err := c.ListPods(ctx, "demo", "", 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetPod(ctx, "demo", "web-a"); err != nil {
		t.Fatal(err)
	}
	if got := warnings.List(); !slices.Equal(got, []string{msg}) {
		t.Errorf("collected %q, want the one warning once", got)
	}
	if logged.Len() != 0 {
		t.Errorf("a collected warning was logged too: %s", logged.String())
	}

	if _, err := c.GetPod(context.Background(), "demo", "web-a"); err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	if err := json.Unmarshal(logged.Bytes(), &entry); err != nil {
		t.Fatalf("log %q: %v", logged.String(), err)
	}
	if entry["level"] != "WARN" || entry["msg"] != "API server warning" || entry["warning"] != msg || entry["context"] != "dev" {
		t.Errorf("log entry %v", entry)
	}
}
