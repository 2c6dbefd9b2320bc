package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFlagsOIDC(t *testing.T) {
	o, err := parseFlags([]string{"--oidc-issuer-url=https://127.0.0.1:9443/oidc", "--oidc-client-id=tabula", "--oidc-ca-file=ca.crt"})
	if err != nil {
		t.Fatal(err)
	}
	if o.oidcIssuerURL != "https://127.0.0.1:9443/oidc" || o.oidcClientID != "tabula" || !filepath.IsAbs(o.oidcCAFile) {
		t.Errorf("options %+v", o)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--oidc-issuer-url=http://127.0.0.1:9443/oidc", "--oidc-client-id=tabula"}, "https"},
		{[]string{"--oidc-issuer-url=https://127.0.0.1:9443/oidc"}, "--oidc-client-id is required"},
		{[]string{"--oidc-client-id=tabula"}, "need --oidc-issuer-url"},
		{[]string{"--oidc-ca-file=ca.crt"}, "need --oidc-issuer-url"},
	} {
		if _, err := parseFlags(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

func TestParseFlagsMetricsResolution(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 10 * time.Second},
		{[]string{"--pods=1000"}, 10 * time.Second},
		{[]string{"--pods=20000"}, time.Minute},
		{[]string{"--pods=20000", "--metrics-resolution=15s"}, 15 * time.Second},
	} {
		o, err := parseFlags(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if o.metricsResolution != tc.want {
			t.Errorf("parseFlags(%q): resolution %s, want %s", tc.args, o.metricsResolution, tc.want)
		}
	}
	if _, err := parseFlags([]string{"--metrics-resolution=5s"}); err == nil || !strings.Contains(err.Error(), "at least 10s") {
		t.Errorf("--metrics-resolution=5s: %v", err)
	}
}
