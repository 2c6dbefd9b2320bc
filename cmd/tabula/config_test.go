package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := parseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config{Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, LogFormat: "text", RequestTimeout: 30 * time.Second, MaxStreams: 256, MaxStreamsPerUser: 32,
		TerminalIdleTimeout: 30 * time.Minute, MaxTerminalsPerUser: 8, MemoryLimit: 40 << 20, ReleaseIdleMemory: web.DefaultReleaseIdleMemory,
		Compress: true, ProxyHeader: "X-Forwarded-For", FieldManager: "tabula",
		SignIn: signInConfig{
			Mode: "kubeconfig", IdleTimeout: time.Hour, MaxAge: 12 * time.Hour, StateSecret: "tabula-session-state",
			OIDC: web.OIDCConfig{Scopes: []string{"openid", "email", "profile", "groups"}, UsernameClaim: "email", GroupsClaim: "groups", Identity: "passthrough",
				UsernamePrefix: "oidc:", GroupsPrefix: "oidc:"},
		}}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("cfg = %+v, want %+v", cfg, want)
	}
}

func TestParseConfigEnvAndFlags(t *testing.T) {
	vars := env(map[string]string{
		"TABULA_LISTEN":        "127.0.0.1:9000",
		"TABULA_CONTEXT":       "from-env",
		"TABULA_KUBECONFIG":    "/env/kubeconfig",
		"TABULA_LOG_LEVEL":     "debug",
		"TABULA_ALLOWED_HOSTS": "tabula.example.com, ops.example.com",
	})
	cfg, err := parseConfig([]string{"--context", "from-flag"}, vars)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:9000" || cfg.Kubeconfig != "/env/kubeconfig" || cfg.LogLevel != slog.LevelDebug {
		t.Errorf("environment not applied: %+v", cfg)
	}
	if want := []string{"tabula.example.com", "ops.example.com"}; !reflect.DeepEqual(cfg.AllowedHosts, want) {
		t.Errorf("AllowedHosts = %q, want %q", cfg.AllowedHosts, want)
	}
	if cfg.Context != "from-flag" {
		t.Errorf("Context = %q, want the flag to win over TABULA_CONTEXT", cfg.Context)
	}
}

func TestCompressionCanBeTurnedOff(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		vars map[string]string
		want bool
	}{
		"default":     {want: true},
		"flag":        {args: []string{"--compress=false"}, want: false},
		"environment": {vars: map[string]string{"TABULA_COMPRESS": "false"}, want: false},
		"flag wins":   {args: []string{"--compress"}, vars: map[string]string{"TABULA_COMPRESS": "false"}, want: true},
	} {
		cfg, err := parseConfig(tc.args, env(tc.vars))
		if err != nil || cfg.Compress != tc.want {
			t.Errorf("%s: Compress = %v (%v), want %v", name, cfg.Compress, err, tc.want)
		}
	}
}

func TestParseConfigRejectsBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"unknown flag":        {args: []string{"--nope"}, want: "flag provided but not defined"},
		"bad level":           {args: []string{"--log-level", "loud"}, want: "--log-level"},
		"empty field manager": {args: []string{"--field-manager", ""}, want: "--field-manager"},
		"long field manager":  {args: []string{"--field-manager", strings.Repeat("m", 129)}, want: "--field-manager"},
		"bad format":          {args: []string{"--log-format", "xml"}, want: "--log-format"},
		"stray argument":      {args: []string{"serve"}, want: "unexpected arguments"},
		"bad env":             {env: map[string]string{"TABULA_LOG_LEVEL": "loud"}, want: "--log-level"},
		"external path":       {args: []string{"--external-url", "https://tabula.example.com/console"}, want: "--external-url"},
		"external ftp":        {args: []string{"--external-url", "ftp://tabula.example.com"}, want: "--external-url"},
		"no streams":          {args: []string{"--max-streams", "0"}, want: "--max-streams"},
		"bad auth":            {args: []string{"--auth", "ldap"}, want: "--auth"},
		"oidc no issuer":      {args: []string{"--auth", "oidc", "--oidc-client-id", "tabula"}, want: "--oidc-issuer-url"},
		"oidc no client":      {args: []string{"--auth", "oidc", "--oidc-issuer-url", "https://idp.example.com"}, want: "--oidc-client-id"},
		"oidc plain http":     {args: []string{"--auth", "oidc", "--oidc-issuer-url", "http://idp.example.com", "--oidc-client-id", "c"}, want: "--oidc-issuer-url"},
		"oidc identity":       {args: []string{"--auth", "oidc", "--oidc-issuer-url", "https://idp.example.com", "--oidc-client-id", "c", "--oidc-identity", "both"}, want: "--oidc-identity"},
		"idle timeout":        {args: []string{"--session-idle-timeout", "0s"}, want: "--session-idle-timeout"},
		"system prefix":       {args: []string{"--auth", "oidc", "--oidc-issuer-url", "https://idp.example.com", "--oidc-client-id", "c", "--oidc-groups-prefix", "system:"}, want: "--oidc-groups-prefix"},
		"short key":           {env: map[string]string{"TABULA_SESSION_KEY": base64.StdEncoding.EncodeToString([]byte("too short"))}, want: "TABULA_SESSION_KEY"},
		"key not base64":      {env: map[string]string{"TABULA_SESSION_KEY": "not base64!"}, want: "TABULA_SESSION_KEY"},
		"cert alone":          {args: []string{"--tls-cert", "tls.crt"}, want: "--tls-cert and --tls-key"},
		"key alone":           {env: map[string]string{"TABULA_TLS_KEY": "tls.key"}, want: "--tls-cert and --tls-key"},
		"metrics on own":      {args: []string{"--listen", ":8080", "--metrics-listen", ":8080"}, want: "--metrics-listen"},
		"relative base":       {args: []string{"--base-path", "tabula"}, want: "--base-path"},
		"no user streams":     {args: []string{"--max-streams-per-user", "0"}, want: "--max-streams-per-user"},
		"no terminals":        {args: []string{"--max-terminals-per-user", "0"}, want: "--max-terminals-per-user"},
		"negative idle":       {args: []string{"--terminal-idle-timeout", "-1s"}, want: "--terminal-idle-timeout"},
	} {
		_, err := parseConfig(tc.args, env(tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestExternalURLPinsTheOriginAndAllowsItsHost(t *testing.T) {
	cfg, err := parseConfig([]string{"--external-url", "https://Tabula.Example.com:8443/"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ExternalOrigin(); got != "https://tabula.example.com:8443" {
		t.Errorf("ExternalOrigin() = %q", got)
	}
	if !reflect.DeepEqual(cfg.AllowedHosts, []string{"Tabula.Example.com"}) {
		t.Errorf("AllowedHosts = %q, want the external host", cfg.AllowedHosts)
	}
}

func TestInClusterFollowsTheServiceEnvironment(t *testing.T) {
	laptop, err := parseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	pod, err := parseConfig(nil, env(map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"}))
	if err != nil {
		t.Fatal(err)
	}
	if laptop.InCluster || !pod.InCluster {
		t.Errorf("InCluster: laptop %v, pod %v", laptop.InCluster, pod.InCluster)
	}
}

func TestParseConfigSignIn(t *testing.T) {
	vars := env(map[string]string{
		"TABULA_AUTH":               "oidc",
		"TABULA_OIDC_ISSUER_URL":    "https://idp.example.com/realms/ops",
		"TABULA_OIDC_CLIENT_ID":     "tabula",
		"TABULA_OIDC_CLIENT_SECRET": "from-env",
	})
	cfg, err := parseConfig([]string{"--oidc-scopes", "email, groups,openid", "--oidc-identity", "impersonate",
		"--oidc-groups-prefix", "oidc:", "--session-idle-timeout", "15m", "--session-max-age", "8h"}, vars)
	if err != nil {
		t.Fatal(err)
	}
	si := cfg.SignIn
	want := web.OIDCConfig{
		IssuerURL: "https://idp.example.com/realms/ops", ClientID: "tabula", ClientSecret: "from-env",
		Scopes: []string{"email", "groups", "openid"}, UsernameClaim: "email", GroupsClaim: "groups",
		Identity: "impersonate", UsernamePrefix: "oidc:", GroupsPrefix: "oidc:",
	}
	if si.Mode != "oidc" || !reflect.DeepEqual(si.OIDC, want) || si.IdleTimeout != 15*time.Minute || si.MaxAge != 8*time.Hour {
		t.Errorf("sign-in config = %+v", si)
	}
	if si.SecretOnCommandLine {
		t.Error("a secret from the environment counted as on the command line")
	}
	cfg, err = parseConfig([]string{"--oidc-client-secret", "visible"}, vars)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.SignIn.SecretOnCommandLine || cfg.SignIn.OIDC.ClientSecret != "visible" {
		t.Errorf("flag secret: %+v", cfg.SignIn)
	}
	// Loopback issuers may be plain HTTP (a provider on the developer's machine).
	if _, err := parseConfig([]string{"--auth", "oidc", "--oidc-issuer-url", "http://127.0.0.1:5556/dex", "--oidc-client-id", "c"}, env(nil)); err != nil {
		t.Errorf("loopback http issuer: %v", err)
	}
}

// Replicas share session state through a Secret in the pod's namespace
// when they run in a pod, through the one named anywhere, and through none
// from a kubeconfig unless named, or in kubeconfig mode (no sessions).
func TestSessionStateNamespace(t *testing.T) {
	files := map[string]string{"/sa/namespace": "tabula-system\n", apiclient.DefaultServiceAccountDir + "/namespace": "default-path"}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	}
	for _, tc := range []struct {
		name, mode, flag, current, saDir, want string
	}{
		{"in a pod", "oidc", "", apiclient.InClusterContext, "/sa", "tabula-system"},
		{"in a pod, standard path", "token", "", apiclient.InClusterContext, "", "default-path"},
		{"in a pod, named", "oidc", "consoles", apiclient.InClusterContext, "/sa", "consoles"},
		{"in a pod, turned off", "oidc", "-", apiclient.InClusterContext, "/sa", ""},
		{"from a kubeconfig", "oidc", "", "dev", "/sa", ""},
		{"from a kubeconfig, named", "oidc", "consoles", "dev", "", "consoles"},
		{"kubeconfig mode", "kubeconfig", "consoles", apiclient.InClusterContext, "/sa", ""},
		{"no namespace file", "oidc", "", apiclient.InClusterContext, "/elsewhere", ""},
	} {
		si := signInConfig{Mode: tc.mode, StateNamespace: tc.flag}
		if got := si.stateNamespace(tc.current, tc.saDir, read); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	cfg, err := parseConfig([]string{"--session-state-namespace", "ops", "--session-state-secret", "shared"}, env(nil))
	if err != nil || cfg.SignIn.StateNamespace != "ops" || cfg.SignIn.StateSecret != "shared" {
		t.Errorf("flags: %+v (%v)", cfg.SignIn, err)
	}
}

func TestOIDCContexts(t *testing.T) {
	cfg, err := parseConfig([]string{"--oidc-contexts", "dev, prod,dev"}, env(nil))
	if err != nil || !reflect.DeepEqual(cfg.SignIn.OIDC.Contexts, []string{"dev", "prod"}) {
		t.Errorf("Contexts %q (%v)", cfg.SignIn.OIDC.Contexts, err)
	}
	cfg, err = parseConfig(nil, env(map[string]string{"TABULA_OIDC_CONTEXTS": "staging"}))
	if err != nil || !reflect.DeepEqual(cfg.SignIn.OIDC.Contexts, []string{"staging"}) {
		t.Errorf("from the environment: %q (%v)", cfg.SignIn.OIDC.Contexts, err)
	}
}

func TestTrustedProxies(t *testing.T) {
	cfg, err := parseConfig([]string{"--trusted-proxies", "10.0.0.0/8, 192.0.2.7,fd00::1/64", "--trusted-proxy-header", "Forwarded"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("fd00::/64")}
	if !reflect.DeepEqual(cfg.TrustedProxies, want) || cfg.ProxyHeader != "Forwarded" {
		t.Errorf("TrustedProxies %v, ProxyHeader %q", cfg.TrustedProxies, cfg.ProxyHeader)
	}
	cfg, err = parseConfig(nil, env(map[string]string{"TABULA_TRUSTED_PROXIES": "10.244.0.0/16"}))
	if err != nil || len(cfg.TrustedProxies) != 1 || cfg.ProxyHeader != "X-Forwarded-For" {
		t.Errorf("from the environment: %v %q (%v)", cfg.TrustedProxies, cfg.ProxyHeader, err)
	}
	for _, args := range [][]string{{"--trusted-proxies", "10.0.0.0/33"}, {"--trusted-proxies", "ingress-nginx"}, {"--trusted-proxy-header", "X-Real-IP"}} {
		if _, err := parseConfig(args, env(nil)); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%q: err = %v, want it to name the flag", args, err)
		}
	}
}

func TestOfflineAccessCanBeTurnedOff(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		vars map[string]string
		want bool
	}{
		"default":     {want: false},
		"flag":        {args: []string{"--oidc-offline-access=false"}, want: true},
		"environment": {vars: map[string]string{"TABULA_OIDC_OFFLINE_ACCESS": "false"}, want: true},
	} {
		cfg, err := parseConfig(tc.args, env(tc.vars))
		if err != nil || cfg.SignIn.OIDC.NoOfflineAccess != tc.want {
			t.Errorf("%s: NoOfflineAccess = %v (%v), want %v", name, cfg.SignIn.OIDC.NoOfflineAccess, err, tc.want)
		}
	}
}

func TestSessionKeys(t *testing.T) {
	k1, k2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 48)
	b64 := base64.StdEncoding.EncodeToString
	files := map[string]string{"/keys": b64(k1) + "\n" + b64(k2) + "\n", "/bad": "c2hvcnQ=\n"}
	readFile := func(name string) ([]byte, error) {
		if f, ok := files[name]; ok {
			return []byte(f), nil
		}
		return nil, errors.New("no such file")
	}
	for name, tc := range map[string]struct {
		si      signInConfig
		want    [][]byte
		wantErr string
	}{
		"none: a random one later": {si: signInConfig{}},
		"env":                      {si: signInConfig{SessionKey: b64(k1)}, want: [][]byte{k1}},
		"env, several, url-safe":   {si: signInConfig{SessionKey: base64.RawURLEncoding.EncodeToString(k2) + "," + b64(k1)}, want: [][]byte{k2, k1}},
		"file wins, rotation":      {si: signInConfig{SessionKeyFile: "/keys", SessionKey: b64(k2)}, want: [][]byte{k1, k2}},
		"file missing":             {si: signInConfig{SessionKeyFile: "/nope"}, wantErr: "--session-key-file"},
		"file short key":           {si: signInConfig{SessionKeyFile: "/bad"}, wantErr: "at least 32"},
	} {
		got, err := tc.si.sessionKeys(readFile)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: keys %v, %v; want %v", name, got, err, tc.want)
		}
	}
}

func TestParseConfigDeploymentFlags(t *testing.T) {
	vars := env(map[string]string{
		"TABULA_TLS_CERT":            "/tls/tls.crt",
		"TABULA_TLS_KEY":             "/tls/tls.key",
		"TABULA_METRICS_LISTEN":      "0.0.0.0:9090",
		"TABULA_BASE_PATH":           "/from-env",
		"TABULA_SERVICE_ACCOUNT_DIR": "/sa",
	})
	cfg, err := parseConfig([]string{"--base-path", "/tabula/"}, vars)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TLSCert != "/tls/tls.crt" || cfg.TLSKey != "/tls/tls.key" || cfg.MetricsListen != "0.0.0.0:9090" || cfg.ServiceAccountDir != "/sa" {
		t.Errorf("environment not applied: %+v", cfg)
	}
	if cfg.BasePath != "/tabula" {
		t.Errorf("BasePath = %q, want the flag's /tabula without its trailing slash", cfg.BasePath)
	}
}

func TestBasePathIsAPlainAbsolutePrefix(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"/":               "",
		"/tabula":         "/tabula",
		"/tabula/":        "/tabula",
		"/ops/tabula-1.x": "/ops/tabula-1.x",
		"/~me/Tabula_2":   "/~me/Tabula_2",
	} {
		got, err := basePath(in)
		if err != nil || got != want {
			t.Errorf("basePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"tabula", "//tabula", "/a//b", "/a/../b", "/./a", "/tab ula", "/tab%2Fula", "/t?x=1", "/t#x", "/tábula", "https://x/tabula"} {
		if got, err := basePath(in); err == nil {
			t.Errorf("basePath(%q) = %q, want an error", in, got)
		}
	}
}

// In kubeconfig mode everyone who reaches the console acts as the
// kubeconfig's user: listening beyond loopback takes an explicit flag.
func TestKubeconfigIdentityStaysOnLoopbackUnlessShared(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--listen", "127.0.0.1:8080"}, true},
		{[]string{"--listen", "127.0.0.2:8080"}, true},
		{[]string{"--listen", "[::1]:8080"}, true},
		{[]string{"--listen", "localhost:8080"}, true},
		{[]string{"--listen", "0.0.0.0:8080"}, false},
		{[]string{"--listen", ":8080"}, false},
		{[]string{"--listen", "[::]:8080"}, false},
		{[]string{"--listen", "192.168.1.20:8080"}, false},
		{[]string{"--listen", "tabula.lan:8080"}, false},
		{[]string{"--listen", "0.0.0.0:8080", "--share-kubeconfig-identity"}, true},
		{[]string{"--listen", "0.0.0.0:8080", "--auth", "oidc", "--oidc-issuer-url", "https://idp.example.com", "--oidc-client-id", "tabula"}, true},
		{[]string{"--listen", ":8080", "--auth", "token"}, true},
	} {
		_, err := parseConfig(tc.args, env(nil))
		if tc.ok && err != nil {
			t.Errorf("%v: %v", tc.args, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "--share-kubeconfig-identity")) {
			t.Errorf("%v: err = %v, want a refusal naming --share-kubeconfig-identity", tc.args, err)
		}
	}
	cfg, err := parseConfig(nil, env(map[string]string{"TABULA_LISTEN": ":8080", "TABULA_SHARE_KUBECONFIG_IDENTITY": "true"}))
	if err != nil || !cfg.ShareKubeconfigIdentity {
		t.Errorf("from the environment: %+v, %v", cfg, err)
	}
}

func TestContextsFlag(t *testing.T) {
	cfg, err := parseConfig([]string{"--auth", "token", "--contexts", "prod, staging,,prod"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"prod", "staging"}; !reflect.DeepEqual(cfg.Contexts, want) || !cfg.signIn() {
		t.Errorf("Contexts = %q, signIn %v; want %q in a sign-in mode", cfg.Contexts, cfg.signIn(), want)
	}
	cfg, err = parseConfig(nil, env(nil))
	if err != nil || cfg.Contexts != nil || cfg.signIn() {
		t.Errorf("default: Contexts %q, signIn %v, %v", cfg.Contexts, cfg.signIn(), err)
	}
}

func TestMemoryLimitIsAQuantity(t *testing.T) {
	for in, want := range map[string]int64{"40Mi": 40 << 20, "1Gi": 1 << 30, "0": 0, "64000000": 64000000} {
		got, err := parseMemoryLimit(in)
		if err != nil || got != want {
			t.Errorf("parseMemoryLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1Mi", "1.5"} {
		if _, err := parseMemoryLimit(in); err == nil || !strings.Contains(err.Error(), "--memory-limit") {
			t.Errorf("parseMemoryLimit(%q): %v, want an error naming the flag", in, err)
		}
	}
}

func TestFieldManagerFlag(t *testing.T) {
	cfg, err := parseConfig([]string{"--field-manager", "tabula-prod"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FieldManager != "tabula-prod" {
		t.Errorf("FieldManager = %q", cfg.FieldManager)
	}
}
