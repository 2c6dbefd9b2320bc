package harness

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestOIDCConsoleArgs(t *testing.T) {
	m := startMock(t, MockOIDCOptions{})
	key := filepath.Join(t.TempDir(), "session.key")
	if err := WriteSessionKey(key); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := base64.StdEncoding.DecodeString(string(b)); err != nil || len(raw) != 32 {
		t.Fatalf("session key %q: %v, %d bytes", b, err, len(raw))
	}

	pass := OIDCConsoleArgs(m, OIDCPassthrough, key)
	for _, want := range []string{
		"--auth=oidc", "--oidc-issuer-url=" + m.Issuer(), "--oidc-client-id=tabula",
		"--oidc-client-secret=" + m.ClientSecret, "--oidc-ca-file=" + m.CAFile(),
		"--oidc-identity=passthrough", "--session-key-file=" + key,
	} {
		if !slices.Contains(pass, want) {
			t.Errorf("passthrough args %q lack %q", pass, want)
		}
	}
	if slices.Contains(pass, "--oidc-groups-prefix=oidc:") {
		t.Error("passthrough args carry a groups prefix")
	}
	imp := OIDCConsoleArgs(m, OIDCImpersonate, key)
	if !slices.Contains(imp, "--oidc-identity=impersonate") || !slices.Contains(imp, "--oidc-groups-prefix=oidc:") {
		t.Errorf("impersonation args %q", imp)
	}
}
