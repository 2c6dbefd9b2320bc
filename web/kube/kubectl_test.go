package kube

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
)

func TestKubectlGetIsTheCommandOfThePage(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    KubectlGet
		want string
	}{
		{"one namespace", KubectlGet{Resource: "pods", Namespaced: true, Namespace: "demo"}, "kubectl get pods -n demo"},
		{"all namespaces, wide", KubectlGet{Resource: "deployments", Namespaced: true, Output: "wide"}, "kubectl get deployments -A -o wide"},
		{"cluster-scoped", KubectlGet{Resource: "nodes", Namespace: "ignored"}, "kubectl get nodes"},
		{"selectors quoted", KubectlGet{Resource: "pods", Namespaced: true, Namespace: "demo", LabelSelector: "app=web,tier!=cache", FieldSelector: "status.phase=Running"},
			"kubectl get pods -n demo -l 'app=web,tier!=cache' --field-selector status.phase=Running"},
		{"set-based selector", KubectlGet{Resource: "pods", Namespaced: true, LabelSelector: "env in (prod, staging),!canary"},
			"kubectl get pods -A -l 'env in (prod, staging),!canary'"},
		{"object as YAML, in a context", KubectlGet{Context: "prod-eu", Resource: "deployments.v1beta2.apps", Namespaced: true, Namespace: "demo", Name: "web", Output: "yaml"},
			"kubectl --context prod-eu get deployments.v1beta2.apps web -n demo -o yaml"},
		{"status subresource", KubectlGet{Resource: "pods", Namespaced: true, Namespace: "demo", Name: "web-1", Subresource: "status", Output: "yaml"},
			"kubectl get pods web-1 -n demo --subresource status -o yaml"},
		{"hostile names", KubectlGet{Context: "it's $(rm -rf /)", Resource: "pods", Namespaced: true, Namespace: "a b", Name: "x;`id`\n"},
			`kubectl --context 'it'\''s $(rm -rf /)' get pods 'x;` + "`id`\n" + `' -n 'a b'`},
		{"values that look like flags", KubectlGet{Resource: "pods", Namespaced: true, Namespace: "-A", Name: "--all", LabelSelector: "-x"},
			"kubectl get pods --namespace=-A --selector=-x -- --all"},
		{"empty selector value is no flag", KubectlGet{Resource: "nodes", LabelSelector: ""}, "kubectl get nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.k.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// A quoted word reaches the program as it was, whatever it holds.
func TestShellQuoteRoundTripsThroughAShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no sh to check quoting against: %v", err)
	}
	words := []string{"", "plain", "a b", "it's", `"double"`, "$HOME", "`id`", "a\nb", "back\\slash", "!bang", "*", "~user", "#hash", "é", "''"}
	script := "printf '%s\\0'"
	for _, w := range words {
		script += " " + shellQuote(w)
	}
	out, err := exec.Command(sh, "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for start, i := 0, 0; i < len(out); i++ {
		if out[i] == 0 {
			got = append(got, string(out[start:i]))
			start = i + 1
		}
	}
	if !slices.Equal(got, words) {
		t.Errorf("through sh: %q, want %q", got, words)
	}
	if shellQuote("app=web,tier") != "app=web,tier" {
		t.Error("a safe word was quoted")
	}
}

func TestKubectlResourceNamesWhatKubectlResolves(t *testing.T) {
	res := func(group, version, name string, short ...string) apiclient.Resource {
		return apiclient.Resource{Group: group, Version: version, Name: name, ShortNames: short}
	}
	d := &apiclient.Discovery{Groups: []apiclient.Group{
		{Name: "", PreferredVersion: "v1", Versions: []string{"v1"}, Resources: []apiclient.Resource{res("", "v1", "events", "ev"), res("", "v1", "pods", "po")}},
		{Name: "apps", PreferredVersion: "v1", Versions: []string{"v1", "v1beta2"},
			Resources: []apiclient.Resource{res("apps", "v1", "deployments", "deploy")}, Alternates: []apiclient.Resource{res("apps", "v1beta2", "deployments", "deploy")}},
		{Name: "events.k8s.io", PreferredVersion: "v1", Versions: []string{"v1"}, Resources: []apiclient.Resource{res("events.k8s.io", "v1", "events", "ev")}},
		{Name: "gizmos.example.com", PreferredVersion: "v1", Versions: []string{"v1"}, Resources: []apiclient.Resource{res("gizmos.example.com", "v1", "gizmos", "widgets")}},
		{Name: "metrics.k8s.io", PreferredVersion: "v1beta1", Versions: []string{"v1beta1"}, Resources: []apiclient.Resource{res("metrics.k8s.io", "v1beta1", "pods")}},
		{Name: "widgets.example.com", PreferredVersion: "v1", Versions: []string{"v1"}, Resources: []apiclient.Resource{res("widgets.example.com", "v1", "widgets")}},
	}}
	for _, tc := range []struct {
		r    apiclient.Resource
		want string
	}{
		{res("", "v1", "pods"), "pods"},
		{res("", "v1", "events"), "events"},
		{res("apps", "v1", "deployments"), "deployments"},
		{res("apps", "v1beta2", "deployments"), "deployments.v1beta2.apps"},
		{res("events.k8s.io", "v1", "events"), "events.events.k8s.io"},
		{res("metrics.k8s.io", "v1beta1", "pods"), "pods.metrics.k8s.io"},
		{res("widgets.example.com", "v1", "widgets"), "widgets.widgets.example.com"}, // another resource's short name
		{res("gizmos.example.com", "v1", "gizmos"), "gizmos"},
		{res("new.example.com", "v1", "things"), "things.v1.new.example.com"}, // newer than this discovery
	} {
		if got := KubectlResource(d, tc.r); got != tc.want {
			t.Errorf("%s/%s %s: %q, want %q", tc.r.Group, tc.r.Version, tc.r.Name, got, tc.want)
		}
	}
	if got := KubectlResource(nil, res("apps", "v1", "deployments")); got != "deployments.v1.apps" {
		t.Errorf("without discovery: %q", got)
	}
}
