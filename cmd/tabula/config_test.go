package main

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := parseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config{Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, LogFormat: "text", RequestTimeout: 30 * time.Second, MaxStreams: 256, MaxStreamsPerUser: 32, Auth: "kubeconfig"}
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

func TestParseConfigRejectsBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"unknown flag":    {args: []string{"--nope"}, want: "flag provided but not defined"},
		"bad level":       {args: []string{"--log-level", "loud"}, want: "--log-level"},
		"bad format":      {args: []string{"--log-format", "xml"}, want: "--log-format"},
		"stray argument":  {args: []string{"serve"}, want: "unexpected arguments"},
		"bad env":         {env: map[string]string{"TABULA_LOG_LEVEL": "loud"}, want: "--log-level"},
		"external path":   {args: []string{"--external-url", "https://tabula.example.com/console"}, want: "--external-url"},
		"external ftp":    {args: []string{"--external-url", "ftp://tabula.example.com"}, want: "--external-url"},
		"no streams":      {args: []string{"--max-streams", "0"}, want: "--max-streams"},
		"no user streams": {args: []string{"--max-streams-per-user", "0"}, want: "--max-streams-per-user"},
		"bad auth":        {args: []string{"--auth", "basic"}, want: "--auth"},
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
		{[]string{"--listen", "0.0.0.0:8080", "--auth", "oidc"}, true},
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
	cfg, err := parseConfig([]string{"--auth", "oidc", "--contexts", "prod, staging,,prod"}, env(nil))
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
