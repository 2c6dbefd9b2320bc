package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
)

var podsResource = Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true}

// LogOptions are the pods/log parameters.
type LogOptions struct {
	Container                    string // "" is the pod's only container
	Follow, Timestamps, Previous bool
	TailLines                    *int64 // nil: the whole log
	SinceSeconds                 *int64
	// SinceTime is an absolute start (whole seconds), which unlike
	// SinceSeconds does not depend on this machine's clock.
	SinceTime  *time.Time
	LimitBytes *int64
}

// Logs streams a container's log (pods/{name}/log) straight from the
// response body: the caller reads it and must close it; closing it or ending
// ctx ends the request. With Timestamps each line starts with an RFC 3339
// time and a space. Errors, such as an unknown container (400) or a missing
// pod (404), are the server's Status.
func (c *Client) Logs(ctx context.Context, namespace, pod string, opts LogOptions) (io.ReadCloser, error) {
	if err := requireNames(namespace, pod); err != nil {
		return nil, err
	}
	req := c.get(podsResource, namespace, pod, "text/plain, "+MediaTypeJSON, "log").MaxRetries(0)
	setParam(req, "container", opts.Container)
	for _, b := range []struct {
		name string
		on   bool
	}{{"follow", opts.Follow}, {"timestamps", opts.Timestamps}, {"previous", opts.Previous}} {
		if b.on {
			req.Param(b.name, "true")
		}
	}
	for _, n := range []struct {
		name string
		v    *int64
	}{{"tailLines", opts.TailLines}, {"sinceSeconds", opts.SinceSeconds}, {"limitBytes", opts.LimitBytes}} {
		if n.v != nil {
			req.Param(n.name, strconv.FormatInt(*n.v, 10))
		}
	}
	if opts.SinceTime != nil {
		req.Param("sinceTime", opts.SinceTime.UTC().Format(time.RFC3339))
	}
	rc, err := req.Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("log of pod %q: %w", pod, err)
	}
	return rc, nil
}

// GetPod fetches one pod.
func (c *Client) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	if err := requireNames(namespace, name); err != nil {
		return nil, err
	}
	body, err := doRaw(ctx, c.get(podsResource, namespace, name, MediaTypeJSON).MaxRetries(0))
	if err != nil {
		return nil, fmt.Errorf("getting pod %q: %w", name, err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(body, &pod); err != nil {
		return nil, fmt.Errorf("decoding pod %q: %w", name, err)
	}
	return &pod, nil
}

// listPodsPage is the page size of ListPods.
const listPodsPage = 500

// ListPods lists the pods of namespace ("" for all) matching labelSelector,
// paging internally, and returns the list's resourceVersion, from which
// WatchPods follows it. With limit > 0 it stops after limit pods, and more
// says whether the server has others (a continue token remained); with
// limit <= 0 it lists every pod and more is false. A continue token that
// expires midway (410) restarts the list in one request of limit pods (all
// of them for limit <= 0), as client-go's pager does.
func (c *Client) ListPods(ctx context.Context, namespace, labelSelector string, limit int64) (pods []corev1.Pod, resourceVersion string, more bool, err error) {
	if err := checkNames(namespace); err != nil {
		return nil, "", false, err
	}
	page := func(limit int64, cont string) (*corev1.PodList, error) {
		req := c.get(podsResource, namespace, "", MediaTypeJSON).MaxRetries(0)
		setParam(req, "labelSelector", labelSelector)
		setParam(req, "continue", cont)
		if limit > 0 {
			req.Param("limit", strconv.FormatInt(limit, 10))
		}
		body, err := doRaw(ctx, req)
		if err != nil {
			return nil, err
		}
		var list corev1.PodList
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, fmt.Errorf("decoding pods: %w", err)
		}
		return &list, nil
	}
	// done cuts pods to limit (a server may ignore it) and says whether
	// more remain.
	done := func(pods []corev1.Pod, rv, cont string) ([]corev1.Pod, string, bool, error) {
		if limit > 0 && int64(len(pods)) > limit {
			return pods[:limit], rv, true, nil
		}
		return pods, rv, cont != "", nil
	}
	rv, cont := "", ""
	for {
		size := int64(listPodsPage)
		if limit > 0 && limit-int64(len(pods)) < size {
			size = limit - int64(len(pods))
		}
		list, err := page(size, cont)
		if err != nil && cont != "" && IsExpired(err) {
			// The snapshot the pages came from is gone: take a new one whole.
			list, err = page(max(limit, 0), "")
			if err == nil {
				return done(list.Items, list.ResourceVersion, list.Continue)
			}
		}
		if err != nil {
			return nil, "", false, fmt.Errorf("listing pods: %w", err)
		}
		if rv == "" {
			rv = list.ResourceVersion // every page is of the first one's snapshot
		}
		pods = append(pods, list.Items...)
		cont = list.Continue
		if cont == "" || limit > 0 && int64(len(pods)) >= limit {
			return done(pods, rv, cont)
		}
	}
}

// WatchPods watches the pods of namespace ("" for all) matching
// labelSelector from resourceVersion ("" starts with an ADDED for every
// pod) and calls emit with each full pod. Bookmarks come as "BOOKMARK"
// with a pod holding only its ResourceVersion. It ends as WatchTable does.
func (c *Client) WatchPods(ctx context.Context, namespace, labelSelector, resourceVersion string, emit func(eventType string, pod *corev1.Pod)) error {
	if err := checkNames(namespace); err != nil {
		return err
	}
	return c.stream(ctx, func(accept string) *rest.Request {
		req := c.get(podsResource, namespace, "", accept).MaxRetries(0).
			Param("watch", "true").Param("allowWatchBookmarks", "true")
		setParam(req, "labelSelector", labelSelector)
		setParam(req, "resourceVersion", resourceVersion)
		return req
	}, []string{MediaTypeJSON}, func(typ string, raw []byte) error {
		var pod corev1.Pod
		if err := json.Unmarshal(raw, &pod); err != nil {
			return fmt.Errorf("decoding %s pod event: %w", typ, err)
		}
		emit(typ, &pod)
		return nil
	})
}

// ErrNoSelector is what errors.Is finds in a *NoSelectorError.
var ErrNoSelector = errors.New("no pod selector")

// NoSelectorError says an object selects no pods: it has no spec.selector,
// or an empty one (which would select every pod).
type NoSelectorError struct {
	Resource, Namespace, Name string
}

func (e *NoSelectorError) Error() string {
	return fmt.Sprintf("%s %q has no pod selector (spec.selector)", e.Resource, e.Name)
}

// Is makes errors.Is(err, ErrNoSelector) true.
func (e *NoSelectorError) Is(target error) bool { return target == ErrNoSelector }

// PodSelector returns, in string form, the label selector of the object's
// spec.selector: a metav1.LabelSelector (Deployments, StatefulSets,
// DaemonSets, ReplicaSets, Jobs, CRDs that follow the convention), a plain
// map (Services, ReplicationControllers) or a selector string. An object
// without one, or with an empty one, gives a *NoSelectorError: an empty
// LabelSelector would select every pod of the namespace.
func (c *Client) PodSelector(ctx context.Context, r Resource, namespace, name string) (string, error) {
	if err := requireNames(name); err != nil {
		return "", err
	}
	obj, err := c.GetObject(ctx, r, namespace, name)
	if err != nil {
		return "", err
	}
	none := &NoSelectorError{Resource: r.Name, Namespace: namespace, Name: name}
	raw, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "selector")
	if !found || raw == nil {
		return "", none
	}
	var sel labels.Selector
	switch v := raw.(type) {
	case string:
		if sel, err = labels.Parse(v); err != nil {
			return "", fmt.Errorf("%s %q: spec.selector: %w", r.Name, name, err)
		}
	case map[string]any:
		if set, ok := stringSet(v); ok {
			sel = labels.SelectorFromSet(set)
		} else if sel, err = workloadSelector(obj); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("%s %q: spec.selector is a %T, not a label selector", r.Name, name, raw)
	}
	if sel.Empty() {
		return "", none
	}
	return sel.String(), nil
}

// stringSet is m as a label set when every value is a string: the plain map
// form of a selector. A LabelSelector has a map and a list instead.
func stringSet(m map[string]any) (labels.Set, bool) {
	set := make(labels.Set, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		set[k] = s
	}
	return set, true
}

// requireNames is checkNames for names that may not be empty either: an
// empty one would address the collection instead.
func requireNames(names ...string) error {
	for _, n := range names {
		if n == "" {
			return &apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
				Message: "a name is required",
			}}
		}
	}
	return checkNames(names...)
}
