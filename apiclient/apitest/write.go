package apitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The writes follow k8s.io/apiserver (v0.36): endpoints/handlers (patch.go,
// update.go, create.go, delete.go, rest.go), registry/rest (create.go,
// update.go, meta.go) and registry/generic/registry/store.go. What they
// check, they check in kube-apiserver's order, with its Statuses; the
// comments name the kube-apiserver code each step copies.

// Patch types the fake applies. Strategic merge patch and server-side
// apply need schemas, which the fake does not have: they answer 415,
// except a strategic merge patch of pods/ephemeralcontainers (as kubectl
// debug sends), applied with the Pod's.
const (
	mergePatchType          = "application/merge-patch+json"
	jsonPatchType           = "application/json-patch+json"
	strategicMergePatchType = "application/strategic-merge-patch+json"
)

// reply is a write's answer, prepared under the server's lock and written
// after it.
type reply struct {
	code int
	body any
}

func statusReply(st metav1.Status) reply { return reply{code: int(st.Code), body: st} }

func (rp reply) write(w http.ResponseWriter) {
	if st, ok := rp.body.(metav1.Status); ok && st.Status != metav1.StatusSuccess {
		WriteStatus(w, st)
		return
	}
	writeJSON(w, rp.code, rp.body)
}

// serveWrite serves POST, PUT, PATCH and DELETE on a resource path.
func (s *Server) serveWrite(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	switch r.Method {
	case http.MethodPatch, http.MethodPut:
		s.serveUpdate(w, r, req, opts)
	case http.MethodPost:
		s.serveCreate(w, r, req)
	case http.MethodDelete:
		s.serveDelete(w, r, req)
	default:
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
	}
}

// allows reports whether the resource (or the subresource addressed)
// advertises verb. kube-apiserver registers no route for a verb its storage
// does not implement: 405.
func (req resourceRequest) allows(verb string) bool {
	if req.sub == "" {
		return slices.Contains(req.res.Verbs, verb)
	}
	sub, ok := findAPIResource(req.gv, req.res.Name+"/"+req.sub)
	return ok && slices.Contains(sub.Verbs, verb)
}

func (req resourceRequest) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: req.gv.Group, Resource: req.res.Name}
}

func (req resourceRequest) groupKind() schema.GroupKind {
	return schema.GroupKind{Group: req.gv.Group, Kind: req.res.Kind}
}

func (req resourceRequest) storeKey() string { return req.gv.Group + "/" + req.res.Name }

// mediaBase is a Content-Type without its parameters, as kube-apiserver
// compares patch types (handlers/patch.go).
func mediaBase(contentType string) string {
	base, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(base)
}

// unsupportedMediaType is negotiation.NewUnsupportedMediaTypeError's Status.
func unsupportedMediaType(accepted ...string) metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
	}
}

// writeOptions reads dryRun and fieldManager as kube-apiserver validates
// them (metav1 validation): dryRun is "All" or absent, anything else is a
// 422 Invalid of the request's options kind (PatchOptions, UpdateOptions,
// CreateOptions). A missing fieldManager is, as in kube-apiserver's
// managerOrUserAgent, the User-Agent's product ("kubectl-edit"), else
// "unknown".
func writeOptions(r *http.Request, optionsKind string) (dryRun bool, manager string, st *metav1.Status) {
	q := r.URL.Query()
	manager = q.Get("fieldManager")
	errs := metav1validation.ValidateFieldManager(manager, field.NewPath("fieldManager"))
	errs = append(errs, metav1validation.ValidateDryRun(field.NewPath("dryRun"), q["dryRun"])...)
	if len(errs) > 0 {
		s := apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: optionsKind}, "", errs).ErrStatus
		return false, "", &s
	}
	if manager == "" {
		manager, _, _ = strings.Cut(r.UserAgent(), "/")
	}
	if manager == "" {
		manager = "unknown"
	}
	return len(q["dryRun"]) > 0, manager, nil
}

// decodeJSONObject decodes a body that must be one JSON object, integers as
// int64 as unstructured expects.
func decodeJSONObject(body []byte) (map[string]any, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("the body is not a JSON object")
	}
	return m, nil
}

// viewOf is what a request on sub reads of obj: the object itself (for ""
// and "status") or its autoscaling/v1 Scale.
func viewOf(sub string, obj *unstructured.Unstructured) map[string]any {
	if sub == "scale" {
		scale := scaleOf(obj)
		m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&scale)
		return m
	}
	return obj.DeepCopy().Object
}

// serveUpdate serves PATCH and PUT on an object, its status or its scale.
func (s *Server) serveUpdate(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	verb, optionsKind := "update", "UpdateOptions"
	if r.Method == http.MethodPatch {
		verb, optionsKind = "patch", "PatchOptions"
	}
	if req.name == "" || (req.sub != "" && req.sub != "status" && req.sub != "scale" && !req.ephemeral()) || !req.allows(verb) {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	contentType := mediaBase(r.Header.Get("Content-Type"))
	if r.Method == http.MethodPatch {
		// handlers/patch.go checks the patch type before anything else.
		accepted := []string{jsonPatchType, mergePatchType}
		if opts.NoMergePatch {
			accepted = []string{jsonPatchType}
		}
		if req.ephemeral() {
			// kubectl debug's patch: the fake knows the Pod's schema.
			accepted = append(accepted, strategicMergePatchType)
		}
		if !slices.Contains(accepted, contentType) {
			WriteStatus(w, unsupportedMediaType(accepted...))
			return
		}
	} else if contentType != "" && contentType != "application/json" {
		WriteStatus(w, unsupportedMediaType("application/json"))
		return
	}
	dryRun, manager, st := writeOptions(r, optionsKind)
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		WriteStatus(w, badRequest(err.Error()))
		return
	}
	s.mu.Lock()
	patchType := ""
	if r.Method == http.MethodPatch {
		patchType = contentType
	}
	rp := s.updateLocked(req, opts, patchType, body, dryRun, manager)
	s.mu.Unlock()
	rp.write(w)
}

// updateLocked applies a patch of patchType ("" for a PUT, whose body is
// the new object) to the stored object and stores the result. s.mu must be
// held.
func (s *Server) updateLocked(req resourceRequest, opts Options, patchType string, body []byte, dryRun bool, manager string) reply {
	key := req.storeKey()
	old, ok := s.store.objects[key][storeKey(req.namespace, req.name)]
	if !ok {
		return statusReply(NotFound(req.gv.Group, req.res.Name, req.name))
	}
	next := body
	if patchType != "" {
		current, err := utiljson.Marshal(viewOf(req.sub, old))
		if err != nil {
			return statusReply(internalError(err))
		}
		var st *metav1.Status
		if next, st = applyPatch(patchType, current, body); st != nil {
			return statusReply(*st)
		}
	}
	view, err := decodeJSONObject(next)
	if err != nil {
		return statusReply(badRequest(err.Error()))
	}
	in := &unstructured.Unstructured{Object: view}
	if st := req.checkIdentity(in, old); st != nil {
		return statusReply(*st)
	}
	// registry/generic/registry/store.go Update: a resourceVersion set
	// must be the stored one (409); none means unconditional.
	if rv := in.GetResourceVersion(); rv == "" {
		in.SetResourceVersion(old.GetResourceVersion())
	} else if rv != old.GetResourceVersion() {
		return statusReply(apierrors.NewConflict(req.groupResource(), req.name, errors.New(optimisticLockErrorMsg)).ErrStatus)
	}
	obj, st := s.updated(req, in, old)
	if st != nil {
		return statusReply(*st)
	}
	dropEmptyMetadata(obj)
	if errs := validateUpdate(req, opts, obj, old); len(errs) > 0 {
		return statusReply(apierrors.NewInvalid(req.groupKind(), req.name, errs).ErrStatus)
	}
	// The storage writes nothing when nothing changed (etcd3 store
	// GuaranteedUpdate): same resourceVersion, no watch event.
	if sameObject(obj, old) {
		return reply{code: http.StatusOK, body: viewOf(req.sub, old)}
	}
	if changedBeyondMetadataAndStatus(obj, old) && old.GetGeneration() > 0 {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
	recordManager(obj, manager, gvString(req.gv.Group, req.gv.Version), req.sub)
	switch {
	case dryRun:
	case obj.GetDeletionTimestamp() != nil && len(obj.GetFinalizers()) == 0:
		// Removing the last finalizer of an object being deleted deletes
		// it (store.go shouldDeleteDuringUpdate); the answer is the object.
		s.removeLocked(key, obj)
	default:
		s.putLocked(key, obj)
		if req.ephemeral() {
			s.startEphemeralLocked(key, obj, opts.Exec.EphemeralWaiting)
		}
	}
	return reply{code: http.StatusOK, body: viewOf(req.sub, obj)} // a copy: the store owns obj
}

// serveCreate serves POST to a collection (handlers/create.go, store.go
// Create, registry/rest/create.go BeforeCreate).
func (s *Server) serveCreate(w http.ResponseWriter, r *http.Request, req resourceRequest) {
	if req.name != "" || (req.res.Namespaced && req.namespace == "") || !req.allows("create") {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	if ct := mediaBase(r.Header.Get("Content-Type")); ct != "" && ct != "application/json" {
		WriteStatus(w, unsupportedMediaType("application/json"))
		return
	}
	dryRun, manager, st := writeOptions(r, "CreateOptions")
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		WriteStatus(w, badRequest(err.Error()))
		return
	}
	view, err := decodeJSONObject(body)
	if err != nil {
		WriteStatus(w, badRequest(err.Error()))
		return
	}
	in := &unstructured.Unstructured{Object: view}
	if st := checkTypeMeta(in, gvString(req.gv.Group, req.gv.Version), req.res.Kind); st != nil {
		WriteStatus(w, *st)
		return
	}
	s.mu.Lock()
	rp := s.createLocked(req, in, dryRun, manager)
	s.mu.Unlock()
	rp.write(w)
}

// createLocked stores a new object, in kube-apiserver's order: the name
// generated, the namespace checked (400), the system fields set, the
// metadata validated (422), a resourceVersion refused (500, from the etcd
// storage), an existing name refused (409 AlreadyExists). s.mu must be held.
func (s *Server) createLocked(req resourceRequest, in *unstructured.Unstructured, dryRun bool, manager string) reply {
	key := req.storeKey()
	dropEmptyMetadata(in)
	taken := func(name string) bool {
		_, ok := s.store.objects[key][storeKey(req.namespace, name)]
		return ok
	}
	if in.GetName() == "" && in.GetGenerateName() != "" {
		// names.SimpleNameGenerator, retried as RetryGenerateName does.
		for range maxGenerateNameAttempts {
			if in.SetName(generateName(in.GetGenerateName())); !taken(in.GetName()) {
				break
			}
		}
		if taken(in.GetName()) {
			return statusReply(apierrors.NewGenerateNameConflict(req.groupResource(), in.GetName(), 1).ErrStatus)
		}
	}
	want := ""
	if req.res.Namespaced {
		want = req.namespace
	}
	switch ns := in.GetNamespace(); {
	case ns == want:
	case ns == "" || want == "":
		in.SetNamespace(want)
	default:
		return statusReply(badRequest("the namespace of the provided object does not match the namespace sent on the request"))
	}
	in.SetUID(uuid.NewUUID())
	in.SetCreationTimestamp(metav1.NewTime(time.Now().UTC().Truncate(time.Second)))
	in.SetDeletionTimestamp(nil)
	in.SetDeletionGracePeriodSeconds(nil)
	in.SetGeneration(1)
	if _, ok := findAPIResource(req.gv, req.res.Name+"/status"); ok {
		delete(in.Object, "status") // the strategies' PrepareForCreate
	}
	if errs := validation.ValidateObjectMetaAccessor(in, req.res.Namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata")); len(errs) > 0 {
		return statusReply(apierrors.NewInvalid(req.groupKind(), in.GetName(), errs).ErrStatus)
	}
	if in.GetResourceVersion() != "" {
		// storage.ErrResourceVersionSetOnCreate, which no Status wraps.
		return statusReply(metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: "resourceVersion should not be set on objects to be created"})
	}
	if taken(in.GetName()) {
		return statusReply(apierrors.NewAlreadyExists(req.groupResource(), in.GetName()).ErrStatus)
	}
	recordManager(in, manager, gvString(req.gv.Group, req.gv.Version), "")
	if !dryRun {
		s.putLocked(key, in)
		in = in.DeepCopy()
	}
	return reply{code: http.StatusCreated, body: in.Object}
}

// maxGenerateNameAttempts is the registry's maxNameGenerationCreateAttempts.
const maxGenerateNameAttempts = 8

// generateName is names.SimpleNameGenerator's: the base cut to 58
// characters, then five random ones of utilrand's alphabet
// ("bcdfghjklmnpqrstvwxz2456789").
func generateName(base string) string {
	const maxNameLength, randomLength = 63, 5
	if len(base) > maxNameLength-randomLength {
		base = base[:maxNameLength-randomLength]
	}
	return base + utilrand.String(randomLength)
}

// serveDelete serves DELETE of an object (handlers/delete.go, store.go
// Delete).
func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request, req resourceRequest) {
	if req.name == "" || req.sub != "" || !req.allows("delete") {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		WriteStatus(w, badRequest(err.Error()))
		return
	}
	opts, st := deleteOptions(r.URL.Query(), body)
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	s.mu.Lock()
	rp := s.deleteLocked(req, opts)
	s.mu.Unlock()
	rp.write(w)
}

// deleteOptions reads metav1.DeleteOptions from the body or, when there is
// none, from the query, as handlers/delete.go does, and validates them
// (422 Invalid DeleteOptions.meta.k8s.io).
func deleteOptions(q url.Values, body []byte) (metav1.DeleteOptions, *metav1.Status) {
	var o metav1.DeleteOptions
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &o); err != nil {
			st := badRequest(err.Error())
			return o, &st
		}
		if o.Kind != "" && o.Kind != "DeleteOptions" {
			st := badRequest("decoded object cannot be converted to DeleteOptions")
			return o, &st
		}
	} else {
		if v := q.Get("propagationPolicy"); v != "" {
			p := metav1.DeletionPropagation(v)
			o.PropagationPolicy = &p
		}
		if v := q.Get("gracePeriodSeconds"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				st := badRequest(err.Error())
				return o, &st
			}
			o.GracePeriodSeconds = &n
		}
		o.DryRun = q["dryRun"]
	}
	if errs := metav1validation.ValidateDeleteOptions(&o); len(errs) > 0 {
		st := apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs).ErrStatus
		return o, &st
	}
	return o, nil
}

// deleteLocked deletes an object as the generic registry does: the
// preconditions checked (409), then the garbage collector's finalizers
// (orphan, foregroundDeletion) set from the propagation policy. An object
// left with finalizers is only marked (deletionTimestamp,
// deletionGracePeriodSeconds 0) and answered as it now is; Finalize plays
// the controllers that remove them. Otherwise it is removed, and the answer
// is a Success Status naming it, or for the resources whose storage sets
// ReturnDeletedObject the object itself. Graceful deletion (of pods) is not
// modelled: gracePeriodSeconds is accepted and ignored. s.mu must be held.
func (s *Server) deleteLocked(req resourceRequest, opts metav1.DeleteOptions) reply {
	key := req.storeKey()
	old, ok := s.store.objects[key][storeKey(req.namespace, req.name)]
	if !ok {
		return statusReply(NotFound(req.gv.Group, req.res.Name, req.name))
	}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != old.GetUID() {
			return statusReply(req.preconditionFailed("UID", string(*p.UID), string(old.GetUID())))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != old.GetResourceVersion() {
			return statusReply(req.preconditionFailed("ResourceVersion", *p.ResourceVersion, old.GetResourceVersion()))
		}
	}
	dryRun := len(opts.DryRun) > 0
	if finalizers := gcFinalizers(old.GetFinalizers(), opts); len(finalizers) > 0 {
		// store.go updateForGracefulDeletionAndFinalizers, markAsDeleting.
		obj := old.DeepCopy()
		obj.SetFinalizers(finalizers)
		if obj.GetDeletionTimestamp() == nil {
			now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
			obj.SetDeletionTimestamp(&now)
			if g := obj.GetGeneration(); g > 0 {
				obj.SetGeneration(g + 1)
			}
		}
		zero := int64(0)
		obj.SetDeletionGracePeriodSeconds(&zero)
		if !dryRun && !sameObject(obj, old) {
			s.putLocked(key, obj)
			obj = obj.DeepCopy()
		}
		return reply{code: http.StatusOK, body: obj.Object}
	}
	gone := old.DeepCopy()
	if !dryRun {
		s.removeLocked(key, old)
	}
	if deleteReturnsObject(req.gv.Group, req.res.Name) {
		return reply{code: http.StatusOK, body: gone.Object}
	}
	// store.go finalizeDelete: Kind is the resource, and there is no code.
	return reply{code: http.StatusOK, body: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: req.name, Group: req.gv.Group, Kind: req.res.Name, UID: gone.GetUID()},
	}}
}

// gcFinalizers are the finalizers an object keeps on deletion (store.go
// deletionFinalizersForGarbageCollection): its own, with orphan or
// foregroundDeletion as the options (or, without a policy, its own
// finalizers) ask.
func gcFinalizers(existing []string, opts metav1.DeleteOptions) []string {
	var orphan, foreground bool
	switch {
	case opts.OrphanDependents != nil: // deprecated, still honoured
		orphan = *opts.OrphanDependents
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == metav1.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == metav1.DeletePropagationForeground
	default:
		// The first of the two an object carries decides.
		if i := slices.IndexFunc(existing, isGCFinalizer); i >= 0 {
			orphan = existing[i] == metav1.FinalizerOrphanDependents
			foreground = !orphan
		}
	}
	out := slices.DeleteFunc(slices.Clone(existing), isGCFinalizer)
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	return out
}

func isGCFinalizer(f string) bool {
	return f == metav1.FinalizerOrphanDependents || f == metav1.FinalizerDeleteDependents
}

// preconditionFailed is the 409 of a delete precondition that does not
// hold: the storage's error inside a Conflict, as kube-apiserver words it
// (storage.Preconditions.Check, errors/storage.go InterpretDeleteError).
func (req resourceRequest) preconditionFailed(what, want, got string) metav1.Status {
	storageKey := "/registry/" + req.res.Name
	if strings.Contains(req.gv.Group, ".") && !strings.HasSuffix(req.gv.Group, ".k8s.io") {
		storageKey = "/registry/" + req.gv.Group + "/" + req.res.Name // custom resources
	}
	if req.namespace != "" {
		storageKey += "/" + req.namespace
	}
	storageKey += "/" + req.name
	err := fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: %s in precondition: %s, %s in object meta: %s",
		storageKey, what, want, what, got)
	return apierrors.NewConflict(req.groupResource(), req.name, err).ErrStatus
}

// deleteReturnsObject reports whether kube-apiserver answers a delete of
// the resource with the deleted object: the built-in storages that set
// ReturnDeletedObject (kubernetes v1.36 pkg/registry). The others, custom
// resources included, answer a Success Status.
func deleteReturnsObject(group, resource string) bool {
	switch group {
	case "":
		switch resource {
		case "pods", "services", "namespaces", "persistentvolumes", "persistentvolumeclaims", "serviceaccounts", "resourcequotas", "podtemplates":
			return true
		}
	case "storage.k8s.io":
		switch resource {
		case "csidrivers", "csinodes", "storageclasses", "volumeattachments", "volumeattributesclasses":
			return true
		}
	case "resource.k8s.io":
		return true
	}
	return false
}

// Finalize plays the controllers that own an object's finalizers (the
// garbage collector's foregroundDeletion and orphan among them): it clears
// them, which removes an object marked for deletion (watches see DELETED),
// and only updates one that is not (MODIFIED). It fails the test when the
// object is not stored. group "" is core; resource is the plural.
func (s *Server) Finalize(group, resource, namespace, name string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	key := group + "/" + resource
	old, ok := s.store.objects[key][storeKey(namespace, name)]
	if !ok {
		s.t.Fatalf("apitest: Finalize: %s %s/%s is not stored", key, namespace, name)
		return
	}
	obj := old.DeepCopy()
	obj.SetFinalizers(nil)
	if obj.GetDeletionTimestamp() != nil {
		s.removeLocked(key, obj)
		return
	}
	s.putLocked(key, obj)
}

// optimisticLockErrorMsg is registry.OptimisticLockErrorMsg.
const optimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// applyPatch applies a merge patch (RFC 7386) or JSON Patch (RFC 6902) to
// doc, failing as kube-apiserver does (handlers/patch.go applyJSPatch): a
// malformed merge patch and a JSON Patch that does not decode are 400
// BadRequest with the library's message; a JSON Patch that decodes but does
// not apply (a "test" op that fails, a path that is not there) is a 422
// built by apierrors.NewGenericServerResponse, which keeps only its generic
// message, has no causes and names no object: a client cannot tell a failed
// test of metadata.resourceVersion from any other failed op.
func applyPatch(patchType string, doc, patch []byte) ([]byte, *metav1.Status) {
	if patchType == strategicMergePatchType {
		return strategicPatchPod(doc, patch)
	}
	if patchType == mergePatchType {
		out, err := jsonpatch.MergePatch(doc, patch)
		if err != nil {
			st := badRequest(err.Error())
			return nil, &st
		}
		return out, nil
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		st := badRequest(err.Error())
		return nil, &st
	}
	out, err := p.Apply(doc)
	if err != nil {
		st := apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false).ErrStatus
		return nil, &st
	}
	return out, nil
}

// checkIdentity makes the written object name what the URL names, as
// kube-apiserver does before any other check (handlers/patch.go applyPatch,
// update.go, rest.go checkName, registry/rest/meta.go
// EnsureObjectNamespaceMatchesRequestNamespace): apiVersion and kind default
// to the URL's, a namespace to the request's; a different one is 400.
func (req resourceRequest) checkIdentity(in, old *unstructured.Unstructured) *metav1.Status {
	apiVersion, kind := gvString(req.gv.Group, req.gv.Version), req.res.Kind
	if req.sub == "scale" {
		apiVersion, kind = "autoscaling/v1", "Scale"
	}
	if st := checkTypeMeta(in, apiVersion, kind); st != nil {
		return st
	}
	want := ""
	if req.res.Namespaced {
		want = req.namespace
	}
	switch ns := in.GetNamespace(); {
	case ns == want:
	case ns == "" || want == "":
		in.SetNamespace(want)
	default:
		st := badRequest("the namespace of the provided object does not match the namespace sent on the request")
		return &st
	}
	if in.GetName() != req.name {
		st := badRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.GetName(), req.name))
		return &st
	}
	return nil
}

// checkTypeMeta defaults apiVersion and kind, and refuses others (400), as
// kube-apiserver's decoding of a body into the URL's type does.
func checkTypeMeta(in *unstructured.Unstructured, apiVersion, kind string) *metav1.Status {
	if in.GetAPIVersion() == "" {
		in.SetAPIVersion(apiVersion)
	}
	if in.GetKind() == "" {
		in.SetKind(kind)
	}
	if in.GetAPIVersion() != apiVersion {
		st := badRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", in.GetAPIVersion(), apiVersion))
		return &st
	}
	if in.GetKind() != kind {
		st := badRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", in.GetKind(), kind))
		return &st
	}
	return nil
}

// updated is the object a write of in leaves stored, as
// registry/rest/update.go BeforeUpdate and the status and scale strategies
// make it: a status write changes only the status, a scale write only
// spec.replicas, and a write of the object itself leaves the status alone
// when the status subresource serves it. The system fields
// (creationTimestamp, deletionTimestamp, generation, a missing uid) are the
// stored ones.
func (s *Server) updated(req resourceRequest, in, old *unstructured.Unstructured) (*unstructured.Unstructured, *metav1.Status) {
	switch req.sub {
	case "ephemeralcontainers":
		return ephemeralUpdate(req, in, old)
	case "status":
		obj := old.DeepCopy()
		if status, ok := in.Object["status"]; ok {
			obj.Object["status"] = status
		} else {
			delete(obj.Object, "status")
		}
		return obj, nil
	case "scale":
		replicas, _, _ := unstructured.NestedInt64(in.Object, "spec", "replicas")
		if replicas < 0 {
			errs := field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), replicas, "must be greater than or equal to 0")}
			st := apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, req.name, errs).ErrStatus
			return nil, &st
		}
		obj := old.DeepCopy()
		if err := unstructured.SetNestedField(obj.Object, replicas, "spec", "replicas"); err != nil {
			st := internalError(err)
			return nil, &st
		}
		return obj, nil
	}
	obj := in
	if _, ok := findAPIResource(req.gv, req.res.Name+"/status"); ok {
		if status, ok := old.Object["status"]; ok {
			obj.Object["status"] = runtime.DeepCopyJSONValue(status)
		} else {
			delete(obj.Object, "status")
		}
	}
	if obj.GetUID() == "" {
		obj.SetUID(old.GetUID())
	}
	obj.SetGeneration(old.GetGeneration())
	obj.SetCreationTimestamp(old.GetCreationTimestamp())
	if ts := old.GetDeletionTimestamp(); ts != nil {
		obj.SetDeletionTimestamp(ts)
	}
	if g := old.GetDeletionGracePeriodSeconds(); g != nil && obj.GetDeletionGracePeriodSeconds() == nil {
		obj.SetDeletionGracePeriodSeconds(g)
	}
	if obj.GetManagedFields() == nil {
		// The field manager keeps the stored entries when a write has none.
		obj.SetManagedFields(old.GetManagedFields())
	}
	return obj, nil
}

// validateUpdate is kube-apiserver's common metadata validation of an
// update (uid immutable, no new finalizers once deleting, labels, ...) and
// the resource's immutable fields, from Options.Immutable.
func validateUpdate(req resourceRequest, opts Options, obj, old *unstructured.Unstructured) field.ErrorList {
	errs := validation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
	for _, p := range opts.Immutable[req.res.Name] {
		path := strings.Split(p, ".")
		now, nowOK, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
		was, wasOK, _ := unstructured.NestedFieldNoCopy(old.Object, path...)
		if nowOK != wasOK || !reflect.DeepEqual(now, was) {
			errs = append(errs, field.Invalid(field.NewPath(path[0], path[1:]...), now, validation.FieldImmutableErrorMsg))
		}
	}
	return errs
}

// sameObject reports whether a write changed nothing but the bookkeeping.
func sameObject(a, b *unstructured.Unstructured) bool {
	return reflect.DeepEqual(withoutBookkeeping(a), withoutBookkeeping(b))
}

func withoutBookkeeping(o *unstructured.Unstructured) map[string]any {
	c := o.DeepCopy()
	c.SetManagedFields(nil)
	c.SetResourceVersion("")
	return c.Object
}

// dropEmptyMetadata removes the empty maps and lists of obj's metadata,
// as kube-apiserver does by reading it into ObjectMeta, whose fields are
// omitempty: a merge patch removing a label the object never had leaves
// an empty map, and the same object.
func dropEmptyMetadata(obj *unstructured.Unstructured) {
	meta, ok := obj.Object["metadata"].(map[string]any)
	if !ok {
		return
	}
	for _, f := range []string{"labels", "annotations", "finalizers", "ownerReferences", "managedFields"} {
		switch v := meta[f].(type) {
		case map[string]any:
			if len(v) == 0 {
				delete(meta, f)
			}
		case []any:
			if len(v) == 0 {
				delete(meta, f)
			}
		case nil:
			delete(meta, f) // null, as omitempty drops it too
		}
	}
}

// changedBeyondMetadataAndStatus reports a change that bumps
// metadata.generation, as the strategies of custom resources (and of most
// built-in workloads, for their spec) do.
func changedBeyondMetadataAndStatus(a, b *unstructured.Unstructured) bool {
	strip := func(o *unstructured.Unstructured) map[string]any {
		m := make(map[string]any, len(o.Object))
		for k, v := range o.Object {
			if k != "metadata" && k != "status" {
				m[k] = v
			}
		}
		return m
	}
	return !reflect.DeepEqual(strip(a), strip(b))
}

// recordManager sets the managedFields entry of manager's Update operation
// (on subresource, "" for the object itself) to now, as the field manager
// does on every write that changes something. Its fieldsV1 is left empty:
// the fake tracks who wrote and when, not which fields.
func recordManager(obj *unstructured.Unstructured, manager, apiVersion, subresource string) {
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	entry := metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: apiVersion,
		Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte("{}")}, Subresource: subresource,
	}
	entries := obj.GetManagedFields()
	i := slices.IndexFunc(entries, func(e metav1.ManagedFieldsEntry) bool {
		return e.Manager == manager && e.Operation == entry.Operation && e.Subresource == subresource
	})
	if i < 0 {
		entries = append(entries, entry)
	} else {
		entries[i] = entry
	}
	obj.SetManagedFields(entries)
}

func internalError(err error) metav1.Status {
	return apierrors.NewInternalError(err).ErrStatus
}
