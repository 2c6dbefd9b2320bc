package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// resourceRequest is a parsed resource path.
type resourceRequest struct {
	gv        GroupVersion
	res       metav1.APIResource
	namespace string
	name      string
	sub       string
}

func isSub(name string) bool { return strings.Contains(name, "/") }

func findAPIResource(gv GroupVersion, name string) (metav1.APIResource, bool) {
	for _, r := range gv.Resources {
		if r.Name == name {
			return r, true
		}
	}
	return metav1.APIResource{}, false
}

// parseResourcePath maps /api/v1/... and /apis/GROUP/VERSION/... onto a
// served resource.
func (s *Server) parseResourcePath(path string) (resourceRequest, bool) {
	var group, version string
	var segs []string
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		version, segs = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, version, segs = parts[1], parts[2], parts[3:]
	default:
		return resourceRequest{}, false
	}
	var gv GroupVersion
	found := false
	for _, g := range s.served() {
		if g.Group == group && g.Version == version {
			gv, found = g, true
			break
		}
	}
	if !found {
		return resourceRequest{}, false
	}
	req := resourceRequest{gv: gv}
	if segs[0] == "namespaces" && len(segs) >= 3 {
		if r, ok := findAPIResource(gv, segs[2]); ok && r.Namespaced {
			req.namespace = segs[1]
			segs = segs[2:]
		}
	}
	if len(segs) > 3 {
		return resourceRequest{}, false
	}
	r, ok := findAPIResource(gv, segs[0])
	if !ok || isSub(r.Name) {
		return resourceRequest{}, false
	}
	req.res = r
	if len(segs) >= 2 {
		req.name = segs[1]
		if r.Namespaced && req.namespace == "" {
			return resourceRequest{}, false
		}
	}
	if len(segs) == 3 {
		req.sub = segs[2]
		if _, ok := findAPIResource(gv, r.Name+"/"+req.sub); !ok {
			return resourceRequest{}, false
		}
	}
	return req, true
}

func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	if req.gv.Group == "" && req.res.Name == "pods" && (req.sub == "exec" || req.sub == "attach") {
		s.serveExec(w, r, req, opts)
		return
	}
	if r.Method != http.MethodGet {
		s.serveWrite(w, r, req, opts)
		return
	}
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		s.serveWatch(w, r, req, opts)
		return
	}
	switch {
	case req.sub == "log" && req.res.Name == "pods":
		s.serveLog(w, r, req)
	case req.sub != "":
		s.serveSubresource(w, req)
	case req.name != "":
		s.serveGet(w, r, req, opts)
	default:
		s.serveList(w, r, req, opts)
	}
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	accept := r.Header.Get("Accept")
	repr, ok := negotiate(accept, opts, false)
	if !ok {
		WriteStatus(w, NotAcceptable(accept))
		return
	}
	obj, found := s.getObject(req.gv.Group, req.res.Name, req.namespace, req.name)
	if !found {
		WriteStatus(w, NotFound(req.gv.Group, req.res.Name, req.name))
		return
	}
	switch repr {
	case reprTableV1, reprTableV1Beta1:
		table, err := s.table(req, repr, []*unstructured.Unstructured{obj}, r.URL.Query().Get("includeObject"))
		if err != nil {
			WriteStatus(w, badRequest(err.Error()))
			return
		}
		table.ResourceVersion = obj.GetResourceVersion()
		writeJSONAs(w, http.StatusOK, tableMediaType(repr), table)
	case reprPartial:
		writeJSONAs(w, http.StatusOK, PartialMediaType, partialObject(obj, "meta.k8s.io/v1"))
	case reprDescription:
		writeJSONAs(w, http.StatusOK, DescribeMediaType, describe(obj))
	default:
		writeJSON(w, http.StatusOK, obj.Object)
	}
}

func (s *Server) serveSubresource(w http.ResponseWriter, req resourceRequest) {
	obj, found := s.getObject(req.gv.Group, req.res.Name, req.namespace, req.name)
	if !found {
		WriteStatus(w, NotFound(req.gv.Group, req.res.Name, req.name))
		return
	}
	switch req.sub {
	case "status", "ephemeralcontainers":
		writeJSON(w, http.StatusOK, obj.Object)
	case "scale":
		writeJSON(w, http.StatusOK, scaleOf(obj))
	default:
		WriteStatus(w, methodNotAllowed(fmt.Sprintf("the fake API server does not serve the %s subresource", req.sub)))
	}
}

// scaleOf is the autoscaling/v1 Scale of a workload: spec.replicas,
// status.replicas, and status.selector (a string, as CRDs' labelSelectorPath
// gives it) or else spec.selector (a LabelSelector) in string form.
func scaleOf(obj *unstructured.Unstructured) autoscalingv1.Scale {
	desired, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	current, _, _ := unstructured.NestedInt64(obj.Object, "status", "replicas")
	selector, _, _ := unstructured.NestedString(obj.Object, "status", "selector")
	if selector == "" {
		if m, ok, _ := unstructured.NestedMap(obj.Object, "spec", "selector"); ok {
			var ls metav1.LabelSelector
			b, _ := json.Marshal(m)
			if json.Unmarshal(b, &ls) == nil {
				if sel, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
					selector = sel.String()
				}
			}
		}
	}
	return autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(desired)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(current), Selector: selector},
	}
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	if !slices.Contains(req.res.Verbs, "list") {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	accept := r.Header.Get("Accept")
	repr, ok := negotiate(accept, opts, true)
	if !ok {
		WriteStatus(w, NotAcceptable(accept))
		return
	}
	q := r.URL.Query()
	items, rv := s.snapshot(req.gv.Group, req.res.Name, req.namespace)
	items, st := s.filter(req, items, q.Get("labelSelector"), q.Get("fieldSelector"))
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	// As kube-apiserver, a selected list does not say how many items remain:
	// it cannot know without reading them all.
	counted := q.Get("labelSelector") == "" && q.Get("fieldSelector") == "" && !opts.NoRemainingCount
	page, meta, st := s.paginate(items, rv, q.Get("limit"), q.Get("continue"), counted)
	if st != nil {
		writeFailure(w, *st)
		return
	}
	switch repr {
	case reprTableV1, reprTableV1Beta1:
		table, err := s.table(req, repr, page, q.Get("includeObject"))
		if err != nil {
			WriteStatus(w, badRequest(err.Error()))
			return
		}
		table.ListMeta = meta
		writeJSONAs(w, http.StatusOK, tableMediaType(repr), table)
	case reprPartial:
		list := map[string]any{"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": meta}
		out := make([]any, 0, len(page))
		for _, o := range page {
			out = append(out, partialObject(o, "meta.k8s.io/v1"))
		}
		list["items"] = out
		writeJSONAs(w, http.StatusOK, PartialListMediaType, list)
	default:
		// Like kube-apiserver's lists of built-in kinds, items carry no
		// apiVersion or kind: clients must not rely on them.
		out := make([]any, 0, len(page))
		for _, o := range page {
			delete(o.Object, "apiVersion")
			delete(o.Object, "kind")
			out = append(out, o.Object)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"kind": req.res.Kind + "List", "apiVersion": gvString(req.gv.Group, req.gv.Version),
			"metadata": meta, "items": out,
		})
	}
}

// filter applies label and field selectors.
func (s *Server) filter(req resourceRequest, items []*unstructured.Unstructured, labelSel, fieldSel string) ([]*unstructured.Unstructured, *metav1.Status) {
	sel, st := compileSelectors(req, labelSel, fieldSel)
	if st != nil {
		return nil, st
	}
	var out []*unstructured.Unstructured
	for _, o := range items {
		if sel.matches(o) {
			out = append(out, o)
		}
	}
	return out, nil
}

// selectors are a request's label and field selectors. Field selectors
// support metadata.name, metadata.namespace and the resource's FieldLabels
// (dotted paths into the object), with =, == and !=.
type selectors struct {
	labels  labels.Selector
	fields  fields.Selector
	allowed []string
}

func compileSelectors(req resourceRequest, labelSel, fieldSel string) (*selectors, *metav1.Status) {
	ls, err := labels.Parse(labelSel)
	if err != nil {
		st := badRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		return nil, &st
	}
	fs, err := fields.ParseSelector(fieldSel)
	if err != nil {
		st := badRequest(fmt.Sprintf("invalid field selector: %v", err))
		return nil, &st
	}
	allowed := append([]string{"metadata.name", "metadata.namespace"}, req.gv.FieldLabels[req.res.Name]...)
	for _, rq := range fs.Requirements() {
		if !slices.Contains(allowed, rq.Field) {
			st := badRequest(fmt.Sprintf("field label not supported: %s", rq.Field))
			return nil, &st
		}
	}
	return &selectors{labels: ls, fields: fs, allowed: allowed}, nil
}

func (sel *selectors) matches(o *unstructured.Unstructured) bool {
	if !sel.labels.Matches(labels.Set(o.GetLabels())) {
		return false
	}
	if sel.fields.Empty() {
		return true
	}
	set := fields.Set{}
	for _, f := range sel.allowed {
		set[f] = fieldValue(o, f)
	}
	return sel.fields.Matches(set)
}

func fieldValue(o *unstructured.Unstructured, path string) string {
	v, ok, _ := unstructured.NestedFieldNoCopy(o.Object, strings.Split(path, ".")...)
	if !ok || v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// paginate cuts one page out of items following limit and continue; a
// counted page says how many items remain.
func (s *Server) paginate(items []*unstructured.Unstructured, rv int64, limitParam, cont string, counted bool) ([]*unstructured.Unstructured, metav1.ListMeta, *metav1.Status) {
	meta := metav1.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10)}
	start := 0
	if cont != "" {
		ct, err := s.decodeContinue(cont)
		if err != nil {
			st := badRequest(err.Error())
			return nil, meta, &st
		}
		if s.continueExpired(ct) {
			st := ContinueExpired()
			return nil, meta, &st
		}
		for start < len(items) && storeKey(items[start].GetNamespace(), items[start].GetName()) < ct.Start {
			start++
		}
	}
	items = items[start:]
	limit := 0
	if limitParam != "" {
		n, err := strconv.Atoi(limitParam)
		if err != nil || n < 0 {
			st := badRequest(fmt.Sprintf("invalid limit %q", limitParam))
			return nil, meta, &st
		}
		limit = n
	}
	if limit > 0 && len(items) > limit {
		next := items[limit]
		meta.Continue = encodeContinue(rv, storeKey(next.GetNamespace(), next.GetName()))
		s.issuedContinue()
		if counted {
			remaining := int64(len(items) - limit)
			meta.RemainingItemCount = &remaining
		}
		items = items[:limit]
	}
	return items, meta, nil
}

func partialObject(o *unstructured.Unstructured, apiVersion string) map[string]any {
	meta, _, _ := unstructured.NestedMap(o.Object, "metadata")
	return map[string]any{"kind": "PartialObjectMetadata", "apiVersion": apiVersion, "metadata": meta}
}
