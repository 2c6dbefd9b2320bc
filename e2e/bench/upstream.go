package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// kube-apiserver's own metrics the search measurement reads.
const (
	metricAPIRequests = "apiserver_request_total"
	// metricAPIObjects is the stored objects per resource as of the
	// server's last count (about once a minute); metricAPIObjectsOld is its
	// deprecated form, read when the new one is missing.
	metricAPIObjects    = "apiserver_resource_objects"
	metricAPIObjectsOld = "apiserver_storage_objects"
	// metricConsoleUpstream is the console's own count of its requests.
	metricConsoleUpstream = "tabula_upstream_requests_total"
)

// verbResource keys apiserver_request_total summed over its other labels.
type verbResource struct{ verb, resource string }

// apiserverSample is what the bench reads of kube-apiserver's /metrics.
type apiserverSample struct {
	// requests by verb and resource: "pods", "probe000s.bench.tabula.dev",
	// "pods/log" for a subresource, "" for paths such as /apis.
	requests map[verbResource]float64
	// objects by resource, named the same way.
	objects map[string]float64
}

// scrapeAPIServer reads kube-apiserver's /metrics (admin credentials).
func scrapeAPIServer(ctx context.Context, kube *http.Client, server string) (apiserverSample, error) {
	s, err := fetch(ctx, kube, server+"/metrics", "text/plain", "")
	if err != nil {
		return apiserverSample{}, fmt.Errorf("kube-apiserver metrics: %w", err)
	}
	return parseAPIServerMetrics(s.body), nil
}

// parseAPIServerMetrics keeps, of the text exposition format, the request
// counter and the object counts; other lines (most of the 10 MB a server
// with 200 CRDs exports) are skipped unparsed.
func parseAPIServerMetrics(b []byte) apiserverSample {
	s := apiserverSample{requests: map[verbResource]float64{}, objects: map[string]float64{}}
	oldObjects := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		name, labels, ok := parseMetricKey(line[:i])
		if !ok {
			continue
		}
		switch name {
		case metricAPIRequests:
			resource := groupResource(labels["group"], labels["resource"])
			if sub := labels["subresource"]; sub != "" {
				resource += "/" + sub
			}
			s.requests[verbResource{labels["verb"], resource}] += v
		case metricAPIObjects:
			s.objects[groupResource(labels["group"], labels["resource"])] = v
		case metricAPIObjectsOld:
			// Already "resource.group".
			oldObjects[labels["resource"]] = v
		}
	}
	if len(s.objects) == 0 {
		s.objects = oldObjects
	}
	return s
}

// groupResource names a resource as schema.GroupResource prints it.
func groupResource(group, resource string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}

// parseMetricKey splits a sample's key, name{a="b",c="d"}, into its name
// and labels, undoing the format's escapes (\\, \" and \n); ok is false
// when it is malformed.
func parseMetricKey(key string) (name string, labels map[string]string, ok bool) {
	name, rest, hasLabels := strings.Cut(key, "{")
	labels = map[string]string{}
	if !hasLabels {
		return name, labels, name != ""
	}
	rest, closed := strings.CutSuffix(rest, "}")
	if !closed {
		return "", nil, false
	}
	for rest != "" {
		k, after, found := strings.Cut(rest, `="`)
		if !found {
			return "", nil, false
		}
		var v strings.Builder
		i := 0
		for ; i < len(after) && after[i] != '"'; i++ {
			c := after[i]
			if c == '\\' && i+1 < len(after) {
				i++
				switch after[i] {
				case 'n':
					c = '\n'
				default:
					c = after[i]
				}
			}
			v.WriteByte(c)
		}
		if i == len(after) {
			return "", nil, false
		}
		labels[k] = v.String()
		rest = strings.TrimPrefix(after[i+1:], ",")
	}
	return name, labels, true
}

// upstreamDelta is what kube-apiserver served between two samples.
type upstreamDelta struct {
	all   float64            // requests of every verb
	lists map[string]float64 // LIST requests by resource
	// others are the requests of other verbs.
	others map[verbResource]float64
}

// since is the requests served between before and s.
func (s apiserverSample) since(before apiserverSample) upstreamDelta {
	d := upstreamDelta{lists: map[string]float64{}, others: map[verbResource]float64{}}
	for k, v := range s.requests {
		n := v - before.requests[k]
		if n <= 0 {
			continue
		}
		d.all += n
		if k.verb == "LIST" {
			d.lists[k.resource] += n
		} else {
			d.others[k] += n
		}
	}
	return d
}

// listTotal is the LIST requests of every resource.
func (d upstreamDelta) listTotal() float64 {
	var n float64
	for _, v := range d.lists {
		n += v
	}
	return n
}

// requestCount is the requests of one verb and resource.
type requestCount struct {
	verbResource
	n float64
}

// String is "LIST pods 40"; a path outside the resources has no resource.
func (c requestCount) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s", c.verb, c.resource)) + fmt.Sprintf(" %.0f", c.n)
}

// byCount is d's LISTs by resource, then its other requests, each most
// first, then by name.
func (d upstreamDelta) byCount() (lists, others []requestCount) {
	for r, n := range d.lists {
		lists = append(lists, requestCount{verbResource{"LIST", r}, n})
	}
	for k, n := range d.others {
		others = append(others, requestCount{k, n})
	}
	for _, cs := range [][]requestCount{lists, others} {
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].n != cs[j].n {
				return cs[i].n > cs[j].n
			}
			if cs[i].resource != cs[j].resource {
				return cs[i].resource < cs[j].resource
			}
			return cs[i].verb < cs[j].verb
		})
	}
	return lists, others
}

// pagesBound is the "kinds × pages" for the resources listed: the
// kinds the page asked times the pages the largest of them needs at
// pageSize objects a page (at least one). need is the pages every listed
// resource needs, summed: what paging each kind to its end takes. A
// resource the server reports no count for (events.k8s.io's events, stored
// as core events, has none) counts one page; uncounted says how many did.
func pagesBound(lists, objects map[string]float64, kindsAsked, pageSize int) (bound, need, uncounted int, largest string) {
	most := 0
	for r := range lists {
		n, ok := objects[r]
		if !ok {
			uncounted++
		}
		p := pageCount(n, pageSize)
		need += p
		if p > most || (p == most && r < largest) {
			most, largest = p, r
		}
	}
	return kindsAsked * most, need, uncounted, largest
}

// overPaged are the resources listed more often than their objects take
// pages of pageSize: re-listed, retried, or counted by the server before
// they grew. Resources without a count are left out.
func overPaged(lists, objects map[string]float64, pageSize int) []string {
	var out []string
	for r, n := range lists {
		objs, ok := objects[r]
		if p := pageCount(objs, pageSize); ok && n > float64(p) {
			out = append(out, fmt.Sprintf("%s (%.0f LISTs, %.0f objects)", r, n, objects[r]))
		}
	}
	slices.Sort(out)
	return out
}
