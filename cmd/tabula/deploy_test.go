package main

import (
	"encoding/base64"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient"
)

// The Deployment in deploy/ starts this binary: its arguments and
// environment must be a configuration the binary accepts, in a pod.
func TestTheDeploymentsArgumentsAreAValidConfiguration(t *testing.T) {
	d := readDeployment(t)
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

func readDeployment(t *testing.T) appsv1.Deployment {
	t.Helper()
	data, err := os.ReadFile("../../deploy/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// The pod gets no automatic service account token: it projects its own,
// short-lived and with an audience, at the very path the console's
// in-cluster configuration reads (with ca.crt and namespace beside it), and
// the ServiceAccount refuses the automatic token to any other pod too.
func TestTheDeploymentProjectsAShortLivedTokenWhereTheConsoleReadsIt(t *testing.T) {
	d := readDeployment(t)
	spec := d.Spec.Template.Spec
	if got := boolField(spec.AutomountServiceAccountToken); got != "false" {
		t.Errorf("the pod's automountServiceAccountToken is %s, want false", got)
	}
	var mount *corev1.VolumeMount
	for i, m := range spec.Containers[0].VolumeMounts {
		if m.MountPath == apiclient.DefaultServiceAccountDir {
			mount = &spec.Containers[0].VolumeMounts[i]
		}
	}
	if mount == nil {
		t.Fatalf("nothing is mounted at %s, where the console reads its credentials", apiclient.DefaultServiceAccountDir)
	}
	if !mount.ReadOnly || mount.SubPath != "" {
		// A subPath mount would never see the kubelet's rotated token.
		t.Errorf("mount %+v: want read-only, no subPath", *mount)
	}
	i := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == mount.Name })
	if i < 0 || spec.Volumes[i].Projected == nil {
		t.Fatalf("volume %q is not a projected volume", mount.Name)
	}
	files := map[string]bool{}
	for _, src := range spec.Volumes[i].Projected.Sources {
		switch {
		case src.ServiceAccountToken != nil:
			tok := src.ServiceAccountToken
			files[tok.Path] = true
			if tok.Audience == "" {
				t.Error("the projected token has no audience")
			}
			// kube-apiserver extends a pod's token of exactly 3607 s to a
			// year; an hour at most keeps it short.
			if e := tok.ExpirationSeconds; e == nil || *e < 600 || *e > 3600 {
				t.Errorf("the projected token's expirationSeconds is %s, want 600 to 3600", int64Field(e))
			}
		case src.ConfigMap != nil && src.ConfigMap.Name == "kube-root-ca.crt":
			for _, item := range src.ConfigMap.Items {
				if item.Key == "ca.crt" {
					files[item.Path] = true
				}
			}
		case src.DownwardAPI != nil:
			for _, item := range src.DownwardAPI.Items {
				if item.FieldRef != nil && item.FieldRef.FieldPath == "metadata.namespace" {
					files[item.Path] = true
				}
			}
		}
	}
	for _, f := range []string{"token", "ca.crt", "namespace"} {
		if !files[f] {
			t.Errorf("the projected volume has no %s (it has %v)", path.Join(apiclient.DefaultServiceAccountDir, f), files)
		}
	}

	data, err := os.ReadFile("../../deploy/serviceaccount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var sa corev1.ServiceAccount
	if err := yaml.UnmarshalStrict(data, &sa); err != nil {
		t.Fatal(err)
	}
	if got := boolField(sa.AutomountServiceAccountToken); got != "false" {
		t.Errorf("ServiceAccount %s: automountServiceAccountToken is %s, want false", sa.Name, got)
	}
}

func boolField(p *bool) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatBool(*p)
}

func int64Field(p *int64) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatInt(*p, 10)
}
