package harness

import (
	"crypto/rand"
	"encoding/base64"
	"os"
)

// OIDCIdentity is how a console in OIDC sign-in acts toward the API server
// (its --oidc-identity).
type OIDCIdentity string

const (
	// OIDCPassthrough sends the user's ID token as the bearer token: the
	// API server must trust the issuer (DevClusterOptions.OIDC).
	OIDCPassthrough OIDCIdentity = "passthrough"
	// OIDCImpersonate uses the console's own credentials with
	// Impersonate-User/Group: start the console with
	// DevCluster.ImpersonatorKubeconfig.
	OIDCImpersonate OIDCIdentity = "impersonate"
)

// OIDCConsoleArgs are StartConsole's extra arguments for OIDC sign-in
// against m (the flags of the issue 10 contract). In impersonation mode
// the prefixes are the API server's, so impersonated names equal those it
// derives from a token: the groups get "oidc:", the username none ("-";
// the console's default would be "oidc:").
func OIDCConsoleArgs(m *MockOIDC, identity OIDCIdentity, sessionKeyFile string) []string {
	args := []string{
		"--auth=oidc",
		"--oidc-issuer-url=" + m.Issuer(),
		"--oidc-client-id=" + m.ClientID,
		// A test secret of a test provider; the console also reads
		// TABULA_OIDC_CLIENT_SECRET, which keeps real ones out of ps.
		"--oidc-client-secret=" + m.ClientSecret,
		"--oidc-ca-file=" + m.CAFile(),
		"--oidc-identity=" + string(identity),
		"--session-key-file=" + sessionKeyFile,
	}
	if identity == OIDCImpersonate {
		args = append(args, "--oidc-groups-prefix=oidc:", "--oidc-username-prefix=-")
	}
	return args
}

// WriteSessionKey writes a random 32-byte session key, base64, to path
// (the format of --session-key-file). Consoles given the same file share
// sessions.
func WriteSessionKey(path string) error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(key)), 0o600)
}
