// Package apitest runs fake API servers that follow the Kubernetes API
// conventions, for tests of code that talks to such servers.
package apitest

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// GroupVersion is one served group version and its resources.
type GroupVersion struct {
	Group     string // "" is the core group
	Version   string
	Resources []metav1.APIResource
}

// Server is a fake API server serving legacy discovery for its group versions.
// Its handler can be overridden per path to simulate failures.
type Server struct {
	*httptest.Server
	GroupVersions []GroupVersion
	// Token, when set, is the bearer token every request must carry.
	Token string

	mu        sync.Mutex
	overrides map[string]http.HandlerFunc
	requests  []*http.Request
}

// NewServer starts a fake server for gvs; it is closed when the test ends.
func NewServer(t testing.TB, gvs ...GroupVersion) *Server {
	t.Helper()
	s := &Server{GroupVersions: gvs, overrides: map[string]http.HandlerFunc{}}
	// TLS, because clientcmd sends credentials only over TLS.
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Override makes path answer with h instead of the fake's own handling.
func (s *Server) Override(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overrides[path] = h
}

// Requests returns the requests served so far.
func (s *Server) Requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// Kubeconfig returns a kubeconfig with one context per name, all pointing at s.
func (s *Server) Kubeconfig(contexts ...string) clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	cfg.Clusters["fake"] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["fake-user"] = &clientcmdapi.AuthInfo{Token: s.Token}
	for _, name := range contexts {
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "fake", AuthInfo: "fake-user"}
	}
	if len(contexts) > 0 {
		cfg.CurrentContext = contexts[0]
	}
	return *cfg
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	override := s.overrides[r.URL.Path]
	s.mu.Unlock()
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"})
		return
	}
	if override != nil {
		override(w, r)
		return
	}
	switch path := strings.TrimSuffix(r.URL.Path, "/"); {
	case path == "/version":
		writeJSON(w, http.StatusOK, map[string]string{"major": "1", "minor": "36", "gitVersion": "v1.36.0-fake"})
	case path == "/api":
		writeJSON(w, http.StatusOK, metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: s.versionsOf(""),
		})
	case path == "/apis":
		writeJSON(w, http.StatusOK, s.groupList())
	default:
		if gv, ok := s.groupVersionAt(path); ok {
			writeJSON(w, http.StatusOK, metav1.APIResourceList{
				TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
				GroupVersion: gvString(gv.Group, gv.Version),
				APIResources: gv.Resources,
			})
			return
		}
		WriteStatus(w, metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
			Message: "the server could not find the requested resource",
		})
	}
}

func (s *Server) versionsOf(group string) []string {
	var out []string
	for _, gv := range s.GroupVersions {
		if gv.Group == group {
			out = append(out, gv.Version)
		}
	}
	return out
}

func (s *Server) groupList() metav1.APIGroupList {
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	index := map[string]int{}
	for _, gv := range s.GroupVersions {
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

func (s *Server) groupVersionAt(path string) (GroupVersion, bool) {
	for _, gv := range s.GroupVersions {
		if path == "/api/"+gv.Version && gv.Group == "" || path == "/apis/"+gv.Group+"/"+gv.Version && gv.Group != "" {
			return gv, true
		}
	}
	return GroupVersion{}, false
}

func gvString(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// WriteStatus writes a metav1.Status the way an API server does.
func WriteStatus(w http.ResponseWriter, st metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	writeJSON(w, int(st.Code), st)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// CoreV1 is a small core group version with pods, secrets and namespaces.
func CoreV1() GroupVersion {
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	return GroupVersion{Version: "v1", Resources: []metav1.APIResource{
		{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, Verbs: all, ShortNames: []string{"po"}, Categories: []string{"all"}},
		{Name: "pods/log", Kind: "Pod", Namespaced: true, Verbs: []string{"get"}},
		{Name: "pods/status", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		{Name: "secrets", SingularName: "secret", Kind: "Secret", Namespaced: true, Verbs: all},
		{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: all, ShortNames: []string{"ns"}},
		{Name: "bindings", SingularName: "binding", Kind: "Binding", Namespaced: true, Verbs: []string{"create"}},
	}}
}

// AppsV1 is a small apps group version.
func AppsV1() GroupVersion {
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	return GroupVersion{Group: "apps", Version: "v1", Resources: []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, Verbs: all, ShortNames: []string{"deploy"}, Categories: []string{"all"}},
		{Name: "deployments/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		{Name: "statefulsets", SingularName: "statefulset", Kind: "StatefulSet", Namespaced: true, Verbs: all, ShortNames: []string{"sts"}, Categories: []string{"all"}},
	}}
}
