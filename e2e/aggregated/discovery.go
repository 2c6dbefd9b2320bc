package aggregated

import (
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// verbs are what probes support: read-only, and no watch.
func verbs() []string { return []string{"get", "list"} }

// apiGroup is the legacy discovery document of the group (/apis/GROUP), also
// the single item of /apis.
func apiGroup() metav1.APIGroup {
	gv := metav1.GroupVersionForDiscovery{GroupVersion: groupVersion.String(), Version: Version}
	return metav1.APIGroup{
		TypeMeta:         metav1.TypeMeta{APIVersion: "v1", Kind: "APIGroup"},
		Name:             Group,
		Versions:         []metav1.GroupVersionForDiscovery{gv},
		PreferredVersion: gv,
	}
}

func apiGroupList() metav1.APIGroupList {
	g := apiGroup()
	g.TypeMeta = metav1.TypeMeta{}
	return metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "APIGroupList"},
		Groups:   []metav1.APIGroup{g},
	}
}

// apiResourceList is the legacy discovery document of the version. The
// aggregator reads it when the backend does not serve aggregated discovery.
func apiResourceList() metav1.APIResourceList {
	return metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{APIVersion: "v1", Kind: "APIResourceList"},
		GroupVersion: groupVersion.String(),
		APIResources: []metav1.APIResource{{
			Name:         Resource,
			SingularName: singular,
			Namespaced:   true,
			Kind:         Kind,
			Verbs:        verbs(),
			ShortNames:   []string{"pr"},
			Categories:   []string{"all"},
		}},
	}
}

// aggregatedDiscovery is /apis as apidiscovery.k8s.io/v2, which kube-apiserver
// asks aggregated servers for first and merges into its own /apis.
func aggregatedDiscovery() apidiscoveryv2.APIGroupDiscoveryList {
	return apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{APIVersion: "apidiscovery.k8s.io/v2", Kind: "APIGroupDiscoveryList"},
		Items: []apidiscoveryv2.APIGroupDiscovery{{
			ObjectMeta: metav1.ObjectMeta{Name: Group},
			Versions: []apidiscoveryv2.APIVersionDiscovery{{
				Version: Version,
				Resources: []apidiscoveryv2.APIResourceDiscovery{{
					Resource:         Resource,
					ResponseKind:     &metav1.GroupVersionKind{Group: Group, Version: Version, Kind: Kind},
					Scope:            apidiscoveryv2.ScopeNamespace,
					SingularResource: singular,
					Verbs:            verbs(),
					ShortNames:       []string{"pr"},
					Categories:       []string{"all"},
				}},
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			}},
		}},
	}
}
