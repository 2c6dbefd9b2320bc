package apiclient_test

import (
	"context"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestForKind(t *testing.T) {
	fake := apitest.NewServer(t, append([]apitest.GroupVersion{apitest.CoreV1(), apitest.AppsV1(), apitest.MaritimeV1Alpha1()}, widgetGroup()...)...)
	d, err := clientFor(t, fake).Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		apiVersion, kind string
		want             string // group/version/name, "" for none
	}{
		{"v1", "Pod", "/v1/pods"},
		{"apps/v1", "Deployment", "apps/v1/deployments"},
		{"maritime.tabula.dev/v1alpha1", "Lighthouse", "maritime.tabula.dev/v1alpha1/lighthouses"},
		{"widgets.example.com/v1beta1", "Widget", "widgets.example.com/v1beta1/widgets"},
		{"widgets.example.com/v1alpha1", "Widget", "widgets.example.com/v1alpha1/widgets"}, // not preferred: an alternate
		{"widgets.example.com/v1alpha1", "Sprocket", "widgets.example.com/v1alpha1/sprockets"},
		{"widgets.example.com/v1alpha2", "Sprocket", ""}, // not served at that version
		{"apps/v1", "Scale", ""}, // a subresource's kind
		{"autoscaling/v1", "Scale", ""},
		{"v1", "Nope", ""},
		{"", "Pod", ""},
		{"a/b/c", "Pod", ""},
		{"v1", "pod", ""}, // kinds are case-sensitive
	} {
		r, ok := d.ForKind(tc.apiVersion, tc.kind)
		got := ""
		if ok {
			got = r.Group + "/" + r.Version + "/" + r.Name
		}
		if got != tc.want {
			t.Errorf("ForKind(%q, %q) = %q, want %q", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}
