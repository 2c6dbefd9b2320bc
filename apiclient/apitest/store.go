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
// Stored objects are never changed in place (a change stores a new copy), so
// the watch history may share them.
type store struct {
	rv      int64
	expired int64 // continue tokens issued at or before this rv answer 410
	// expireAfter, when positive, counts down the list pages that carry a
	// continue token; the one that reaches zero expires every token issued
	// so far, its own included (ExpireContinueTokensAfter).
	expireAfter int
	objects     map[string]map[string]*unstructured.Unstructured

	// history is every change, oldest first, at most maxWatchHistory long.
	history []watchEvent
	// compacted is the oldest resourceVersion a new watch may start from:
	// the changes after it are all in history.
	compacted int64
	// trimmed is the rv of the last change dropped from history: an open
	// watch that has not yet seen it has lost events.
	trimmed int64
	// changed is closed (and replaced) to wake every waiting stream, on any
	// change of objects or logs and by CloseWatches and SendBookmarks, which
	// bump cuts and bookmarks: a stream compares them with the values it
	// saw, under the same lock as the history, so no signal is lost.
	changed         chan struct{}
	cuts, bookmarks int
	shutdown        chan struct{} // closed once by Close
	openWatches     int

	logs map[string]*containerLog // namespace/pod/container
}

// maxWatchHistory bounds the changes a watch can resume from.
const maxWatchHistory = 4096

// watchEvent is one change of one object.
type watchEvent struct {
	typ      string // ADDED, MODIFIED, DELETED
	resource string // group/resource
	rv       int64
	obj      *unstructured.Unstructured
	prev     *unstructured.Unstructured // before a MODIFIED, for selectors
}

func newStore() store {
	return store{
		rv: 1, objects: map[string]map[string]*unstructured.Unstructured{},
		changed: make(chan struct{}), shutdown: make(chan struct{}),
		logs: map[string]*containerLog{},
	}
}

// record appends a change at a fresh resourceVersion (already stamped on
// obj by the caller) and wakes the watches. s.mu must be held.
func (st *store) record(typ, resource string, obj, prev *unstructured.Unstructured) {
	st.history = append(st.history, watchEvent{typ: typ, resource: resource, rv: st.rv, obj: obj, prev: prev})
	if over := len(st.history) - maxWatchHistory; over > 0 {
		st.trimmed = st.history[over-1].rv
		st.compacted = max(st.compacted, st.trimmed)
		st.history = append([]watchEvent(nil), st.history[over:]...)
	}
	st.notify()
}

// notify wakes every stream waiting for a change. s.mu must be held.
func (st *store) notify() {
	close(st.changed)
	st.changed = make(chan struct{})
}

func storeKey(namespace, name string) string { return namespace + "/" + name }

// Add stores objs (deep copies) under the resource of the served group
// version whose Kind matches each object's apiVersion and kind. It fills in
// what the server would: a UID (derived from kind, namespace and name, so
// tests can predict it) when missing, a creationTimestamp when missing, and a
// fresh resourceVersion. Add replaces an object with the same namespace/name.
// Watches see ADDED, or MODIFIED for a replaced object.
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
		s.putLocked(gv.Group+"/"+res.Name, obj)
	}
}

// Update replaces stored objects, as Add does, but fails the test when one
// is not stored yet. The stored UID and creationTimestamp are kept when obj
// has none. Watches see MODIFIED.
func (s *Server) Update(objs ...*unstructured.Unstructured) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, in := range objs {
		key, old, ok := s.storedLocked(in.GroupVersionKind(), in.GetNamespace(), in.GetName())
		if !ok {
			s.t.Fatalf("apitest: Update: %s %s/%s is not stored", in.GetKind(), in.GetNamespace(), in.GetName())
			return
		}
		obj := in.DeepCopy()
		if obj.GetUID() == "" {
			obj.SetUID(old.GetUID())
		}
		if ts := obj.GetCreationTimestamp(); ts.IsZero() {
			obj.SetCreationTimestamp(old.GetCreationTimestamp())
		}
		s.putLocked(key, obj)
	}
}

// Modify changes the stored object of kind gvk at namespace/name with
// change, which gets a copy to edit (for example a pod's status), and stores
// the result; watches see MODIFIED. It returns a copy of what was stored and
// fails the test when the object is not stored. change runs under the
// server's lock: it must not call the Server.
func (s *Server) Modify(gvk schema.GroupVersionKind, namespace, name string, change func(obj *unstructured.Unstructured)) *unstructured.Unstructured {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	key, old, ok := s.storedLocked(gvk, namespace, name)
	if !ok {
		s.t.Fatalf("apitest: Modify: %s %s/%s is not stored", gvk.Kind, namespace, name)
		return nil
	}
	obj := old.DeepCopy()
	change(obj)
	// The identity of the object is the store's, whatever change did.
	obj.SetNamespace(namespace)
	obj.SetName(name)
	s.putLocked(key, obj)
	return obj.DeepCopy()
}

func (s *Server) storedLocked(gvk schema.GroupVersionKind, namespace, name string) (string, *unstructured.Unstructured, bool) {
	gv, res, ok := s.resourceForKind(gvk)
	if !ok {
		return "", nil, false
	}
	key := gv.Group + "/" + res.Name
	old, ok := s.store.objects[key][storeKey(namespace, name)]
	return key, old, ok
}

// putLocked stores obj (owned by the store from now on) at a fresh
// resourceVersion and records the change. s.mu must be held.
func (s *Server) putLocked(resource string, obj *unstructured.Unstructured) {
	s.store.rv++
	obj.SetResourceVersion(strconv.FormatInt(s.store.rv, 10))
	if s.store.objects[resource] == nil {
		s.store.objects[resource] = map[string]*unstructured.Unstructured{}
	}
	k := storeKey(obj.GetNamespace(), obj.GetName())
	prev, existed := s.store.objects[resource][k]
	s.store.objects[resource][k] = obj
	if existed {
		s.store.record("MODIFIED", resource, obj, prev)
	} else {
		s.store.record("ADDED", resource, obj, nil)
	}
}

// Delete removes the object of kind gvk at namespace/name, if stored.
// Watches see DELETED with the last state of the object, stamped with the
// resourceVersion of the deletion, as kube-apiserver sends it.
func (s *Server) Delete(gvk schema.GroupVersionKind, namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, old, ok := s.storedLocked(gvk, namespace, name)
	if !ok {
		return
	}
	s.removeLocked(key, old)
}

// removeLocked removes the object stored at obj's namespace/name; watches
// see DELETED with obj stamped with the resourceVersion of the deletion.
// s.mu must be held.
func (s *Server) removeLocked(resource string, obj *unstructured.Unstructured) {
	delete(s.store.objects[resource], storeKey(obj.GetNamespace(), obj.GetName()))
	s.store.rv++
	gone := obj.DeepCopy()
	gone.SetResourceVersion(strconv.FormatInt(s.store.rv, 10))
	s.store.record("DELETED", resource, gone, nil)
}

// ExpireWatchHistory makes every resourceVersion before the current one too
// old to watch from, as after an etcd compaction: a watch asking for one
// gets an ERROR event with a 410 Expired Status. Open watches go on.
func (s *Server) ExpireWatchHistory() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.compacted = s.store.rv
}

// ResourceVersion is the store's current resourceVersion: a list's, and
// where a watch started now would start.
func (s *Server) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.FormatInt(s.store.rv, 10)
}

// ExpireContinueTokens makes every continue token issued so far answer 410
// Expired, as after an etcd compaction.
func (s *Server) ExpireContinueTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.rv++
	s.store.expired = s.store.rv
}

// ExpireContinueTokensAfter makes the pages-th list page served from now
// on that carries a continue token the last one that can be continued:
// every token issued until then, its own included, answers 410 Expired, as
// when etcd compacts while a client pages through a long collection. The
// pages before it continue as usual.
func (s *Server) ExpireContinueTokensAfter(pages int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.expireAfter = pages
}

// issuedContinue counts a list page that carries a continue token towards
// ExpireContinueTokensAfter.
func (s *Server) issuedContinue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store.expireAfter <= 0 {
		return
	}
	if s.store.expireAfter--; s.store.expireAfter == 0 {
		// Lists started from now on are at a newer version, so their
		// tokens still continue.
		s.store.expired = s.store.rv
		s.store.rv++
	}
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
