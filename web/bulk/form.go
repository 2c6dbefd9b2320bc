package bulk

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

// Form field names: the list's bulk form (views.bulkBar), the review's
// apply form and the retry forms send these.
const (
	fieldGroup       = "group"
	fieldVersion     = "version"
	fieldResource    = "resource"
	fieldNamespace   = "namespace"
	fieldOp          = "op"
	fieldPropagation = "propagationPolicy"
	fieldReplicas    = "replicas"
	fieldKey         = "key"
	fieldValue       = "value"
	fieldItem        = "item"
	fieldRV          = "rv"
)

// propagations are the deletion propagation policies; kubectl's default
// (--cascade=background) comes first.
var propagations = []string{"Background", "Foreground", "Orphan"}

// maxAnnotationValue bounds an annotation's value: kube-apiserver allows
// 256 KiB for all of an object's annotations together.
const maxAnnotationValue = 256 << 10

// request is a bulk form, read and checked.
type request struct {
	resource apiclient.Resource
	// namespace is the list's ("" for all namespaces), for the way back.
	namespace string
	action    views.BulkAction
	replicas  int32
	items     []item
}

// item is one selected object; rv is the resourceVersion the review saw
// (apply only).
type item struct {
	namespace, name, rv string
}

func (it item) key() string { return it.namespace + "/" + it.name }

// parse reads the form of a review (withRV false) or an apply (true). What
// is wrong is a 400 that says so and quotes what was sent; nothing has
// been sent upstream yet, but discovery.
func parse(ctx context.Context, client *apiclient.Client, c echo.Context, withRV bool) (request, error) {
	f := c.Request().PostForm
	var rq request
	r, err := client.Resource(ctx, f.Get(fieldGroup), f.Get(fieldVersion), f.Get(fieldResource))
	if err != nil {
		return rq, err
	}
	rq.resource, rq.namespace = r, f.Get(fieldNamespace)
	if rq.namespace != "" && (!r.Namespaced || !apiclient.ValidPathSegment(rq.namespace)) {
		return rq, badRequest("The list's namespace %s is not one of %s.", quote(rq.namespace), r.Name)
	}
	if rq.action, rq.replicas, err = parseAction(r, f.Get(fieldOp), f.Get(fieldPropagation), f.Get(fieldReplicas), f.Get(fieldKey), f.Get(fieldValue)); err != nil {
		return rq, err
	}
	keys := f[fieldItem]
	switch {
	case len(keys) == 0:
		return rq, badRequest("No object was selected: check the rows to act on, then review.")
	case len(keys) > kube.MaxBulkItems:
		return rq, badRequest("%d objects were selected; one review takes at most %d. Select fewer, or narrow the list with a selector.", len(keys), kube.MaxBulkItems)
	}
	rvs := f[fieldRV]
	if withRV && len(rvs) != len(keys) {
		return rq, badRequest("The form names %d objects but %d resource versions; apply from the review page.", len(keys), len(rvs))
	}
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		ns, name, ok := strings.Cut(k, "/")
		switch {
		case !ok || !apiclient.ValidPathSegment(name) || (ns != "" && !apiclient.ValidPathSegment(ns)):
			return rq, badRequest("%s names no object: an item is namespace/name.", quote(k))
		case r.Namespaced && ns == "":
			return rq, badRequest("%s has no namespace, and %s are namespaced.", quote(k), r.Name)
		case !r.Namespaced && ns != "":
			return rq, badRequest("%s has a namespace, and %s are cluster-scoped.", quote(k), r.Name)
		case seen[k]:
			continue
		}
		seen[k] = true
		it := item{namespace: ns, name: name}
		if withRV {
			it.rv = rvs[i]
		}
		rq.items = append(rq.items, it)
	}
	return rq, nil
}

// parseAction checks an action against what the server serves for r.
func parseAction(r apiclient.Resource, op, propagation, replicas, key, value string) (views.BulkAction, int32, error) {
	a := views.BulkAction{Op: op}
	if !slices.ContainsFunc(kube.BulkOptions(r), func(o kube.BulkOption) bool { return o.Op == op }) {
		return a, 0, badRequest("%s is not a bulk action the server serves for %s.", quote(op), r.Name)
	}
	switch op {
	case kube.BulkDelete:
		if propagation == "" {
			propagation = propagations[0]
		}
		if !slices.Contains(propagations, propagation) {
			return a, 0, badRequest("Unknown propagation policy %s: it is Background, Foreground or Orphan.", quote(propagation))
		}
		a.Propagation = propagation
		a.Summary = "Delete (propagation " + propagation + ")"
	case kube.BulkRestart:
		a.Summary = "Restart"
	case kube.BulkScale:
		n, err := strconv.ParseInt(strings.TrimSpace(replicas), 10, 32)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return a, 0, badRequest("Replicas is a whole number, 0 or more; got %s.", quote(replicas))
		}
		a.Replicas = strconv.FormatInt(n, 10)
		a.Summary = "Scale to " + a.Replicas + " replicas"
		return a, int32(n), nil
	case kube.BulkAddLabel, kube.BulkRemoveLabel, kube.BulkAddAnnotation, kube.BulkRemoveAnnotation:
		key = strings.TrimSpace(key)
		noun := "label"
		if op == kube.BulkAddAnnotation || op == kube.BulkRemoveAnnotation {
			noun = "annotation"
		}
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return a, 0, badRequest("The %s key %s is not valid: %s.", noun, quote(key), strings.Join(errs, "; "))
		}
		a.Key = key
		switch op {
		case kube.BulkAddLabel:
			if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
				return a, 0, badRequest("The label value %s is not valid: %s.", quote(value), strings.Join(errs, "; "))
			}
			a.Value, a.Summary = value, "Set label "+key+"="+value
		case kube.BulkAddAnnotation:
			if len(value) > maxAnnotationValue {
				return a, 0, badRequest("The annotation value is %d bytes; an object's annotations may hold at most %d.", len(value), maxAnnotationValue)
			}
			a.Value, a.Summary = value, "Set annotation "+key
		default:
			a.Summary = "Remove " + noun + " " + key
		}
	}
	return a, 0, nil
}

// hidden are the fields naming the resource and the list, for the forms
// a review or results page carries onward.
func (rq request) hidden() []views.HiddenField {
	return []views.HiddenField{
		{Name: fieldGroup, Value: rq.resource.Group},
		{Name: fieldVersion, Value: rq.resource.Version},
		{Name: fieldResource, Value: rq.resource.Name},
		{Name: fieldNamespace, Value: rq.namespace},
	}
}

func badRequest(format string, args ...any) error {
	return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf(format, args...))
}

// quote shows text sent back to its sender, cut short when long.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}
