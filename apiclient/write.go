package apiclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
)

// WriteOptions apply to every write.
type WriteOptions struct {
	// DryRun sends dryRun=All: the server validates and answers as if it
	// wrote, and stores nothing.
	DryRun bool
	// FieldManager names the writer in the object's managedFields; ""
	// is the Clusters' (LoadOptions.FieldManager).
	FieldManager string
}

// DefaultFieldManager is the field manager of the console's writes unless
// LoadOptions says otherwise.
const DefaultFieldManager = "tabula"

// ValidFieldManager checks a field manager as kube-apiserver does: at most
// 128 printable characters, and not empty.
func ValidFieldManager(name string) error {
	if name == "" {
		return errors.New("a field manager must not be empty")
	}
	if errs := metav1validation.ValidateFieldManager(name, field.NewPath("fieldManager")); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return nil
}

// params adds a write's options to req: dryRun, and the field manager its
// change is recorded under.
func (c *Client) params(o WriteOptions, req *rest.Request) *rest.Request {
	if o.DryRun {
		req.Param("dryRun", metav1.DryRunAll)
	}
	return req.Param("fieldManager", cmp.Or(o.FieldManager, c.fieldManager, DefaultFieldManager))
}

// write builds a write of the resource path (name "" for the collection)
// with its body. A write is never retried: client-go would otherwise resend
// it after a 429 or 5xx with Retry-After, possibly applying it twice, and
// the page would wait through the delays; the caller sees the error.
func (c *Client) write(verb string, r Resource, namespace, name, subresource, contentType string, body []byte) *rest.Request {
	segs := r.PathSegments(namespace, name)
	if subresource != "" {
		segs = append(segs, subresource)
	}
	return c.rest.Verb(verb).AbsPath(segs...).
		SetHeader("Accept", MediaTypeJSON).SetHeader("Content-Type", contentType).
		Body(body).MaxRetries(0)
}

// checkObject refuses, before any request, an object path that would not
// name one object: bad segments, no name, no namespace for a namespaced
// resource, a subresource r does not serve.
func checkObject(r Resource, namespace, name, subresource string) error {
	if err := checkNames(namespace, name, subresource); err != nil {
		return err
	}
	switch {
	case name == "":
		return fmt.Errorf("writing %s: no name", r.Name)
	case r.Namespaced && namespace == "":
		return fmt.Errorf("writing %s %q: no namespace", r.Name, name)
	case subresource != "" && !slices.Contains(r.Subresources, subresource):
		return fmt.Errorf("%s does not serve the %q subresource", r.Name, subresource)
	}
	return nil
}

// PatchResult is what a PATCH did.
type PatchResult struct {
	// Object is the object as the server stored it (or would have, on a
	// dry run): for a subresource, what the subresource serves (a Scale
	// for "scale").
	Object *unstructured.Unstructured
	// Type is the patch type that was sent: MergePatchType, or
	// JSONPatchType after a 415.
	Type string
	// Body is the patch that was sent.
	Body []byte
}

// Patch sends a JSON merge patch (RFC 7386) of the object, or of its
// subresource ("status", "scale"; "" for the object itself), with
// Content-Type application/merge-patch+json.
//
// A server that answers 415 Unsupported Media Type to merge patches gets
// the patch once more as an RFC 6902 JSON Patch, derived by
// MergeToJSONPatch from the merge patch and the current document (the
// object, or what the subresource serves), read only then: never the
// caller's view of it, which may leave fields out (a JSON Patch "add" of a
// partial map would replace the whole). When the merge patch sets metadata.resourceVersion, the JSON
// Patch starts with a test of it, so the precondition holds there too; but
// a stale version then fails the test op, which kube-apiserver answers with
// a 422 Invalid without causes ("the server rejected our request due to an
// error in our request"), not the 409 Conflict a merge patch gets.
//
// Errors are the server's Status errors (errors.As finds the
// *apierrors.StatusError: 409 Conflict, 422 Invalid with its causes, 403
// Forbidden, ...).
func (c *Client) Patch(ctx context.Context, r Resource, namespace, name, subresource string, mergePatch []byte, opts WriteOptions) (*PatchResult, error) {
	if err := checkObject(r, namespace, name, subresource); err != nil {
		return nil, err
	}
	body, sent, err := c.patch(ctx, r, namespace, name, subresource, mergePatch, opts)
	if err != nil {
		return nil, fmt.Errorf("patching %s %q: %w", r.Name, name, err)
	}
	obj, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	sent.Object = obj
	return sent, nil
}

// patch sends mergePatch and, if the server answers 415, the JSON Patch
// derived from it and the current document. It returns the server's answer
// and what it sent.
func (c *Client) patch(ctx context.Context, r Resource, namespace, name, subresource string, mergePatch []byte, opts WriteOptions) ([]byte, *PatchResult, error) {
	sent := &PatchResult{Type: MergePatchType, Body: mergePatch}
	body, err := doRaw(ctx, c.params(opts, c.write(http.MethodPatch, r, namespace, name, subresource, MergePatchType, mergePatch)))
	if !apierrors.IsUnsupportedMediaType(err) {
		return body, sent, err
	}
	var sub []string
	if subresource != "" {
		sub = []string{subresource}
	}
	current, err := doRaw(ctx, c.get(r, namespace, name, MediaTypeJSON, sub...))
	if err != nil {
		return nil, nil, err
	}
	doc, err := decodeObject(current)
	if err != nil {
		return nil, nil, err
	}
	jsonPatch, err := MergeToJSONPatch(doc.Object, mergePatch)
	if err != nil {
		return nil, nil, err
	}
	sent = &PatchResult{Type: JSONPatchType, Body: jsonPatch}
	body, err = doRaw(ctx, c.params(opts, c.write(http.MethodPatch, r, namespace, name, subresource, JSONPatchType, jsonPatch)))
	return body, sent, err
}

// Create POSTs obj to the collection of r in namespace ("" for a
// cluster-scoped resource); the namespace argument, not obj's, chooses the
// collection, and a server refuses an obj naming another one (400). As
// kubectl create does, a resourceVersion obj carries (copied along with
// the rest of an existing object) is not sent: servers refuse to create an
// object that has one. It returns the object as the server stored it (or
// would have, on a dry run): with the name generateName led to, uid,
// resourceVersion, creationTimestamp.
func (c *Client) Create(ctx context.Context, r Resource, namespace string, obj *unstructured.Unstructured, opts WriteOptions) (*unstructured.Unstructured, error) {
	if err := checkNames(namespace); err != nil {
		return nil, err
	}
	if r.Namespaced && namespace == "" {
		return nil, fmt.Errorf("creating %s: no namespace", r.Name)
	}
	if obj.GetResourceVersion() != "" {
		obj = obj.DeepCopy()
		obj.SetResourceVersion("")
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding the %s to create: %w", r.Kind, err)
	}
	body, err := doRaw(ctx, c.params(opts, c.write(http.MethodPost, r, namespace, "", "", MediaTypeJSON, data)))
	if err != nil {
		name := obj.GetName()
		if name == "" {
			name = obj.GetGenerateName() + "*"
		}
		return nil, fmt.Errorf("creating %s %q: %w", r.Name, name, err)
	}
	return decodeObject(body)
}

// DeleteOptions choose how Delete deletes.
type DeleteOptions struct {
	// Propagation is "Background", "Foreground" or "Orphan"; "" leaves the
	// server's default (Background for most resources).
	Propagation string
	// GracePeriodSeconds, when set, is how long the object (a pod) may take
	// to stop; 0 is at once.
	GracePeriodSeconds *int64
	// ResourceVersion and UID, when set, are preconditions: the server
	// answers 409 Conflict when the object has changed or is another one
	// of the same name.
	ResourceVersion string
	UID             string
	DryRun          bool
}

// Delete sends DELETE with a meta/v1 DeleteOptions body (kind
// DeleteOptions, apiVersion v1, as client-go's clients encode it; the dry
// run goes in it too, as kubectl sends it) and returns what the server
// answered, which tells whether the object is gone:
//
//   - a Status (kind Status, status Success, details naming the object):
//     removed; kube-apiserver answers this for most resources and every
//     custom resource;
//   - the object without metadata.deletionTimestamp: removed; the answer of
//     the built-ins that return the deleted object (pods, services,
//     namespaces, persistent volumes and claims, ...);
//   - the object with metadata.deletionTimestamp: still there, until
//     controllers clear its finalizers (its own, or foregroundDeletion or
//     orphan from Propagation), or a pod's grace period ends.
func (c *Client) Delete(ctx context.Context, r Resource, namespace, name string, opts DeleteOptions) (*unstructured.Unstructured, error) {
	if err := checkObject(r, namespace, name, ""); err != nil {
		return nil, err
	}
	o := metav1.DeleteOptions{
		TypeMeta:           metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"},
		GracePeriodSeconds: opts.GracePeriodSeconds,
	}
	if opts.Propagation != "" {
		p := metav1.DeletionPropagation(opts.Propagation)
		o.PropagationPolicy = &p
	}
	if opts.ResourceVersion != "" || opts.UID != "" {
		o.Preconditions = &metav1.Preconditions{}
		if opts.ResourceVersion != "" {
			o.Preconditions.ResourceVersion = &opts.ResourceVersion
		}
		if opts.UID != "" {
			uid := types.UID(opts.UID)
			o.Preconditions.UID = &uid
		}
	}
	if opts.DryRun {
		o.DryRun = []string{metav1.DryRunAll}
	}
	data, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encoding DeleteOptions: %w", err)
	}
	body, err := doRaw(ctx, c.write(http.MethodDelete, r, namespace, name, "", MediaTypeJSON, data))
	if err != nil {
		return nil, fmt.Errorf("deleting %s %q: %w", r.Name, name, err)
	}
	return decodeObject(body)
}

// ScaleTo sets spec.replicas through the scale subresource with the merge
// patch {"metadata":{"resourceVersion":rv},"spec":{"replicas":n}} (no
// metadata when resourceVersion is ""), falling back as Patch does. It returns
// the new Scale.
func (c *Client) ScaleTo(ctx context.Context, r Resource, namespace, name string, replicas int32, resourceVersion string, opts WriteOptions) (*Scale, error) {
	if err := checkObject(r, namespace, name, "scale"); err != nil {
		return nil, err
	}
	patch := map[string]any{"spec": map[string]any{"replicas": replicas}}
	if resourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	}
	data, err := json.Marshal(patch) // keys sorted: metadata first
	if err != nil {
		return nil, err
	}
	body, _, err := c.patch(ctx, r, namespace, name, "scale", data, opts)
	if err != nil {
		return nil, fmt.Errorf("scaling %s %q: %w", r.Name, name, err)
	}
	s, err := decodeScale(body)
	if err != nil {
		return nil, fmt.Errorf("decoding the scale of %s %q: %w", r.Name, name, err)
	}
	return s, nil
}
