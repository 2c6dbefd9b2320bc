package apitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// store keeps objects per group/resource, in key order (namespace/name).
type store struct {
	rv      int64
	expired int64 // continue tokens issued at or before this rv answer 410
	objects map[string]map[string]*unstructured.Unstructured
}

func newStore() store {
	return store{rv: 1, objects: map[string]map[string]*unstructured.Unstructured{}}
}

func storeKey(namespace, name string) string { return namespace + "/" + name }

// Add stores objs (deep copies) under the resource of the served group
// version whose Kind matches each object's apiVersion and kind. It fills in
// what the server would: a UID (derived from kind, namespace and name, so
// tests can predict it) when missing, a creationTimestamp when missing, and a
// fresh resourceVersion. Add replaces an object with the same namespace/name.
func (s *Server) Add(objs ...*unstructured.Unstructured) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, in := range objs {
		gv, res, ok := s.resourceForKind(in.GroupVersionKind())
		if !ok {
			s.t.Fatalf("apitest: no served resource for %s %s", in.GetAPIVersion(), in.GetKind())
			return
		}
		obj := in.DeepCopy()
		if obj.GetUID() == "" {
			obj.SetUID(UIDFor(obj.GetKind(), obj.GetNamespace(), obj.GetName()))
		}
		if ts := obj.GetCreationTimestamp(); ts.IsZero() {
			obj.SetCreationTimestamp(metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second)))
		}
		s.store.rv++
		obj.SetResourceVersion(strconv.FormatInt(s.store.rv, 10))
		key := gv.Group + "/" + res.Name
		if s.store.objects[key] == nil {
			s.store.objects[key] = map[string]*unstructured.Unstructured{}
		}
		s.store.objects[key][storeKey(obj.GetNamespace(), obj.GetName())] = obj
	}
}

// Delete removes the object of kind gvk at namespace/name, if stored.
func (s *Server) Delete(gvk schema.GroupVersionKind, namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gv, res, ok := s.resourceForKind(gvk); ok {
		delete(s.store.objects[gv.Group+"/"+res.Name], storeKey(namespace, name))
		s.store.rv++
	}
}

// ExpireContinueTokens makes every continue token issued so far answer 410
// Expired, as after an etcd compaction.
func (s *Server) ExpireContinueTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.rv++
	s.store.expired = s.store.rv
}

// UIDFor is the UID Add gives an object without one.
func UIDFor(kind, namespace, name string) types.UID {
	return types.UID(fmt.Sprintf("uid-%s-%s-%s", kind, namespace, name))
}

func (s *Server) resourceForKind(gvk schema.GroupVersionKind) (GroupVersion, metav1.APIResource, bool) {
	for _, gv := range s.GroupVersions {
		if gv.Group != gvk.Group || gv.Version != gvk.Version {
			continue
		}
		for _, r := range gv.Resources {
			if r.Kind == gvk.Kind && r.Group == "" && !isSub(r.Name) {
				return gv, r, true
			}
		}
	}
	return GroupVersion{}, metav1.APIResource{}, false
}

// snapshot returns deep copies of the stored objects of one resource,
// namespace ("" for all), in key order, and the store's resourceVersion.
func (s *Server) snapshot(group, resource, namespace string) ([]*unstructured.Unstructured, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.store.objects[group+"/"+resource]
	keys := make([]string, 0, len(m))
	for k, o := range m {
		if namespace == "" || o.GetNamespace() == namespace {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]*unstructured.Unstructured, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k].DeepCopy())
	}
	return out, s.store.rv
}

func (s *Server) getObject(group, resource, namespace, name string) (*unstructured.Unstructured, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.store.objects[group+"/"+resource][storeKey(namespace, name)]
	if !ok {
		return nil, false
	}
	return o.DeepCopy(), true
}

// continueToken is the opaque continue value: where the next page starts.
type continueToken struct {
	RV    int64  `json:"rv"`
	Start string `json:"start"` // the first key of the next page
}

func encodeContinue(rv int64, start string) string {
	b, _ := json.Marshal(continueToken{RV: rv, Start: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) decodeContinue(token string) (continueToken, error) {
	var ct continueToken
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		err = json.Unmarshal(b, &ct)
	}
	if err != nil {
		return ct, fmt.Errorf("continue key is not valid: %w", err)
	}
	return ct, nil
}

func (s *Server) continueExpired(ct continueToken) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ct.RV <= s.store.expired
}
