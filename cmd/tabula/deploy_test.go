package main

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// The Deployment in deploy/ starts this binary: its arguments and
// environment must be a configuration the binary accepts, in a pod.
func TestTheDeploymentsArgumentsAreAValidConfiguration(t *testing.T) {
	data, err := os.ReadFile("../../deploy/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want the console alone", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]
	vars := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			// What examples/secret.yaml says to generate.
			vars[e.Name] = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		}
	}
	for _, name := range []string{"TABULA_OIDC_CLIENT_SECRET", "TABULA_SESSION_KEY"} {
		if _, ok := vars[name]; !ok {
			t.Errorf("the Deployment does not set %s from its Secret", name)
		}
	}
	cfg, err := parseConfig(c.Args, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatalf("the Deployment's arguments: %v", err)
	}
	if cfg.SignIn.Mode != "oidc" || cfg.SignIn.OIDC.Identity != "impersonate" || !cfg.InCluster || cfg.MetricsListen == "" {
		t.Errorf("configuration %+v", cfg)
	}
	if _, err := cfg.SignIn.sessionKeys(os.ReadFile); err != nil {
		t.Errorf("session key from the Secret: %v", err)
	}
	probes := map[string]string{"readiness": c.ReadinessProbe.HTTPGet.Path, "liveness": c.LivenessProbe.HTTPGet.Path}
	if probes["readiness"] != "/readyz" || probes["liveness"] != "/healthz" {
		t.Errorf("probes %v", probes)
	}
}
