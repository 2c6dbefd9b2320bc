package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

var aggregatedDiscoveryGVK = schema.GroupVersionKind{Group: "apidiscovery.k8s.io", Version: "v2", Kind: "APIGroupDiscoveryList"}

// conditionalDiscovery is what a context's discovery fetches remember, so
// the next one can ask "has it changed?" rather than download it all.
type conditionalDiscovery struct {
	// legacy is set once the server answered /api or /apis with legacy
	// discovery: from then on client-go's discovery client (which still
	// asks for aggregated discovery first) does the whole fetch.
	legacy bool
	// docs are the aggregated documents of /api and /apis with their ETags.
	docs map[string]etaggedDiscovery
	// discovery is what docs built, reused while neither changes.
	discovery *Discovery
}

// costly says the next fetch cannot be answered with a 304.
func (cd *conditionalDiscovery) costly() bool {
	if cd.legacy || len(cd.docs) == 0 {
		return true
	}
	for _, d := range cd.docs {
		if d.etag == "" {
			return true
		}
	}
	return false
}

type etaggedDiscovery struct {
	etag string
	list apidiscoveryv2.APIGroupDiscoveryList
}

// discoverConditionally fetches aggregated discovery (/api and /apis, two
// requests) itself, sending the ETags of the documents it has so that an
// unchanged server answers 304 with no body; when neither document changed
// it returns the very same *Discovery. Legacy-only servers, and any answer
// other than 200 or 304, go to Discover, whose errors carry the server's
// Status.
func (c *Client) discoverConditionally(ctx context.Context, cond *conditionalDiscovery) (*Discovery, error) {
	if cond.legacy {
		return c.Discover(ctx)
	}
	changed := cond.discovery == nil
	docs := map[string]etaggedDiscovery{}
	for _, path := range []string{"/api", "/apis"} {
		prev, had := cond.docs[path]
		doc, status, err := c.getAggregated(ctx, path, prev.etag)
		switch {
		case err != nil:
			return nil, fmt.Errorf("discovering API resources: %w", err)
		case status == http.StatusNotModified && had:
			docs[path] = prev
		case status == http.StatusOK && doc != nil:
			docs[path] = *doc
			changed = true
		case status == http.StatusOK:
			cond.legacy = true
			return c.Discover(ctx)
		default:
			return c.Discover(ctx)
		}
	}
	cond.docs = docs
	if !changed {
		return cond.discovery, nil
	}
	var all apidiscoveryv2.APIGroupDiscoveryList
	all.Items = append(all.Items, docs["/api"].list.Items...)
	all.Items = append(all.Items, docs["/apis"].list.Items...)
	groupList, byGV, failedGVs := discovery.SplitGroupsAndResources(all)
	groups := make([]*metav1.APIGroup, 0, len(groupList.Groups))
	for i := range groupList.Groups {
		groups = append(groups, &groupList.Groups[i])
	}
	lists := make([]*metav1.APIResourceList, 0, len(byGV))
	for _, l := range byGV {
		lists = append(lists, l)
	}
	failed := map[string]error{}
	for gv, err := range failedGVs {
		failed[gv.String()] = err
	}
	cond.discovery = buildDiscovery(groups, lists, failed)
	return cond.discovery, nil
}

// getAggregated GETs one aggregated discovery document, conditionally when
// etag is set. It returns the document of a 200 in aggregated form, nil
// for a 200 in legacy form, and the status code either way.
func (c *Client) getAggregated(ctx context.Context, path, etag string) (*etaggedDiscovery, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.rest.Get().AbsPath(path).URL().String(), nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", discovery.AcceptV2+","+MediaTypeJSON)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	// The client's transport adds credentials, the user agent and the observer.
	resp, err := c.rest.Client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, resp.StatusCode, nil
	}
	if ok, _ := discovery.ContentTypeIsGVK(resp.Header.Get("Content-Type"), aggregatedDiscoveryGVK); !ok {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, resp.StatusCode, nil
	}
	var doc etaggedDiscovery
	if err := json.NewDecoder(resp.Body).Decode(&doc.list); err != nil {
		return nil, 0, fmt.Errorf("decoding %s: %w", path, err)
	}
	doc.etag = resp.Header.Get("ETag")
	return &doc, resp.StatusCode, nil
}
