package aggregated

import (
	"net/http"
	"slices"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLegacyDiscovery(t *testing.T) {
	s := startTestServer(t)

	_, body := s.get(t, "/apis", "application/json")
	groups := decode[metav1.APIGroupList](t, body)
	if groups.Kind != "APIGroupList" || len(groups.Groups) != 1 || groups.Groups[0].Name != Group {
		t.Fatalf("/apis = %s", body)
	}

	_, body = s.get(t, "/apis/"+Group, "")
	group := decode[metav1.APIGroup](t, body)
	if group.Kind != "APIGroup" || group.PreferredVersion.GroupVersion != Group+"/"+Version {
		t.Fatalf("/apis/%s = %s", Group, body)
	}

	_, body = s.get(t, basePath, "application/json, */*")
	resources := decode[metav1.APIResourceList](t, body)
	if resources.Kind != "APIResourceList" || resources.GroupVersion != Group+"/"+Version || len(resources.APIResources) != 1 {
		t.Fatalf("%s = %s", basePath, body)
	}
	r := resources.APIResources[0]
	if r.Name != Resource || r.SingularName != "probe" || r.Kind != Kind || !r.Namespaced ||
		!slices.Equal(r.Verbs, []string{"get", "list"}) || !slices.Equal(r.ShortNames, []string{"pr"}) ||
		!slices.Equal(r.Categories, []string{"all"}) {
		t.Errorf("probes resource = %+v", r)
	}
}

// The aggregator asks /apis for aggregated discovery first.
func TestAggregatedDiscovery(t *testing.T) {
	s := startTestServer(t)
	const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	resp, body := s.get(t, "/apis", accept)
	if ct := resp.Header.Get("Content-Type"); ct != contentTypeDiscoveryV2 {
		t.Fatalf("Content-Type %q, want %q", ct, contentTypeDiscoveryV2)
	}
	list := decode[apidiscoveryv2.APIGroupDiscoveryList](t, body)
	if list.Kind != "APIGroupDiscoveryList" || len(list.Items) != 1 || list.Items[0].Name != Group {
		t.Fatalf("aggregated /apis = %s", body)
	}
	v := list.Items[0].Versions[0]
	if v.Version != Version || len(v.Resources) != 1 {
		t.Fatalf("versions = %+v", list.Items[0].Versions)
	}
	r := v.Resources[0]
	if r.Resource != Resource || r.Scope != apidiscoveryv2.ScopeNamespace || r.ResponseKind.Kind != Kind ||
		!slices.Equal(r.Verbs, []string{"get", "list"}) || !slices.Equal(r.ShortNames, []string{"pr"}) {
		t.Errorf("probes resource = %+v", r)
	}

	// v2beta1 alone is not served: 406 makes the aggregator fall back to
	// the legacy documents.
	resp, body = s.get(t, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
	wantStatus(t, resp, body, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
}
