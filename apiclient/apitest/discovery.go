package apitest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AggregatedDiscoveryMediaType is the content type of aggregated discovery v2.
const AggregatedDiscoveryMediaType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

func (s *Server) serveDiscoveryRoot(w http.ResponseWriter, r *http.Request, path string, opts Options) {
	if !opts.LegacyDiscovery && wantsAggregated(r.Header.Get("Accept")) {
		list := apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}}
		list.Items = s.aggregated(r, path == "/api")
		body, _ := json.Marshal(list)
		if !opts.NoDiscoveryETag {
			// Like kube-apiserver: a quoted hash of the document, and 304
			// with no body to an If-None-Match naming it.
			sum := sha256.Sum256(body)
			etag := `"` + hex.EncodeToString(sum[:]) + `"`
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("Content-Type", AggregatedDiscoveryMediaType)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		return
	}
	if path == "/api" {
		writeJSON(w, http.StatusOK, metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: s.versionsOf(r, ""),
		})
		return
	}
	writeJSON(w, http.StatusOK, s.groupList(r))
}

// SetDiscoveryFilter makes discovery depend on who asks, as on a server
// with an aggregated API that authorizes its own discovery: the group
// versions for which show returns false are left out of what r's discovery
// (aggregated and legacy) lists, and their ETags change with it. Their
// resources are still served. Nil shows everything to everyone.
func (s *Server) SetDiscoveryFilter(show func(r *http.Request, gv GroupVersion) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discoveryFilter = show
}

// discoverable returns the group versions r's discovery lists.
func (s *Server) discoverable(r *http.Request) []GroupVersion {
	s.mu.Lock()
	show := s.discoveryFilter
	s.mu.Unlock()
	all := s.served()
	if show == nil {
		return all
	}
	out := all[:0]
	for _, gv := range all {
		if show(r, gv) {
			out = append(out, gv)
		}
	}
	return out
}

func wantsAggregated(accept string) bool {
	for _, mt := range parseAccept(accept) {
		if mt.params["g"] == "apidiscovery.k8s.io" && mt.params["v"] == "v2" && mt.params["as"] == "APIGroupDiscoveryList" {
			return true
		}
	}
	return false
}

// serveDiscoveryPath answers /api/VERSION, /apis/GROUP and /apis/GROUP/VERSION.
func (s *Server) serveDiscoveryPath(w http.ResponseWriter, r *http.Request, path string) bool {
	for _, gv := range s.discoverable(r) {
		if path == "/api/"+gv.Version && gv.Group == "" || path == "/apis/"+gv.Group+"/"+gv.Version && gv.Group != "" {
			writeJSON(w, http.StatusOK, metav1.APIResourceList{
				TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
				GroupVersion: gvString(gv.Group, gv.Version),
				APIResources: gv.Resources,
			})
			return true
		}
	}
	if group, ok := strings.CutPrefix(path, "/apis/"); ok && !strings.Contains(group, "/") {
		for _, g := range s.groupList(r).Groups {
			if g.Name == group {
				g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
				writeJSON(w, http.StatusOK, g)
				return true
			}
		}
	}
	return false
}

func (s *Server) versionsOf(r *http.Request, group string) []string {
	var out []string
	for _, gv := range s.discoverable(r) {
		if gv.Group == group {
			out = append(out, gv.Version)
		}
	}
	return out
}

func (s *Server) groupList(r *http.Request) metav1.APIGroupList {
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	index := map[string]int{}
	for _, gv := range s.discoverable(r) {
		if gv.Group == "" {
			continue
		}
		v := metav1.GroupVersionForDiscovery{GroupVersion: gvString(gv.Group, gv.Version), Version: gv.Version}
		i, ok := index[gv.Group]
		if !ok {
			index[gv.Group] = len(list.Groups)
			list.Groups = append(list.Groups, metav1.APIGroup{Name: gv.Group, PreferredVersion: v})
			i = len(list.Groups) - 1
		}
		list.Groups[i].Versions = append(list.Groups[i].Versions, v)
	}
	return list
}

// aggregated builds the aggregated discovery documents of the core group
// (core true) or of every other group, versions in preference order.
func (s *Server) aggregated(r *http.Request, core bool) []apidiscoveryv2.APIGroupDiscovery {
	var out []apidiscoveryv2.APIGroupDiscovery
	index := map[string]int{}
	for _, gv := range s.discoverable(r) {
		if (gv.Group == "") != core {
			continue
		}
		i, ok := index[gv.Group]
		if !ok {
			index[gv.Group] = len(out)
			out = append(out, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.Group}})
			i = len(out) - 1
		}
		out[i].Versions = append(out[i].Versions, apidiscoveryv2.APIVersionDiscovery{
			Version:   gv.Version,
			Resources: aggregatedResources(gv),
			Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		})
	}
	return out
}

func aggregatedResources(gv GroupVersion) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	index := map[string]int{}
	kindOf := func(r metav1.APIResource) *metav1.GroupVersionKind {
		g, v := gv.Group, gv.Version
		if r.Group != "" || r.Version != "" {
			g, v = r.Group, r.Version
		}
		return &metav1.GroupVersionKind{Group: g, Version: v, Kind: r.Kind}
	}
	for _, r := range gv.Resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		scope := apidiscoveryv2.ScopeCluster
		if r.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		index[r.Name] = len(out)
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource: r.Name, ResponseKind: kindOf(r), Scope: scope, SingularResource: r.SingularName,
			Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
		})
	}
	for _, r := range gv.Resources {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, ok := index[parent]
		if !ok {
			continue
		}
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kindOf(r), Verbs: r.Verbs,
		})
	}
	return out
}
