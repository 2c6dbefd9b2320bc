package apiclient

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Resource is one top-level resource (not a subresource) of one group version.
type Resource struct {
	Group        string
	Version      string
	Name         string // plural, as in the URL
	SingularName string
	Kind         string
	Namespaced   bool
	Verbs        []string
	ShortNames   []string
	Categories   []string
	Subresources []string // "status", "scale", "log", ...
}

// GroupVersion returns the resource's group version.
func (r Resource) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

// Can reports whether the server advertises verb for the resource.
func (r Resource) Can(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// Group is one API group and what it serves.
type Group struct {
	Name             string // "" is the core group
	PreferredVersion string
	Versions         []string
	// Resources holds every resource name the group serves exactly once,
	// sorted by name: at the preferred version when it serves the name,
	// else at the highest-priority version that does (kubectl's choice).
	Resources []Resource
	// Alternates are the same resources at the other versions serving
	// them, so their URLs resolve too.
	Alternates []Resource
}

// Discovery is what a server says it serves.
type Discovery struct {
	Groups []Group
	// Failed lists group versions the server could not describe (for example an
	// aggregated API whose backend is down). The rest is still usable.
	Failed map[string]error

	// names is Names' answer, computed once: a Discovery is shared by every
	// page of its context until it is refreshed.
	namesOnce sync.Once
	names     []string
}

// Discover asks the server for its groups and resources, preferring
// aggregated discovery (one round trip) and falling back to legacy discovery.
func (c *Client) Discover(ctx context.Context) (*Discovery, error) {
	groups, lists, err := c.discovery.ServerGroupsAndResourcesWithContext(ctx)
	failed := map[string]error{}
	if err != nil {
		var partial *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &partial) {
			return nil, fmt.Errorf("discovering API resources: %w", c.explainDiscoveryError(ctx, err))
		}
		for gv, gerr := range partial.Groups {
			failed[gv.String()] = gerr
		}
	}
	return buildDiscovery(groups, lists, failed), nil
}

// explainDiscoveryError recovers the server's own Status for a failed
// discovery request. client-go's discovery reads raw bodies and so reports a
// 403 or 429 as an opaque "unknown" error; one more plain GET of the root
// paths decodes the metav1.Status the server actually sent.
func (c *Client) explainDiscoveryError(ctx context.Context, err error) error {
	if !apierrors.IsUnexpectedServerError(err) {
		return err
	}
	for _, path := range []string{"/api", "/apis"} {
		if serr := c.rest.Get().AbsPath(path).Do(ctx).Error(); serr != nil && !apierrors.IsUnexpectedServerError(serr) {
			return serr
		}
	}
	return err
}

func buildDiscovery(groups []*metav1.APIGroup, lists []*metav1.APIResourceList, failed map[string]error) *Discovery {
	byGV := map[string]*metav1.APIResourceList{}
	for _, l := range lists {
		byGV[l.GroupVersion] = l
	}
	out := &Discovery{Failed: failed}
	for _, g := range groups {
		group := Group{Name: g.Name, PreferredVersion: g.PreferredVersion.Version}
		for _, v := range g.Versions {
			group.Versions = append(group.Versions, v.Version)
		}
		if group.PreferredVersion == "" && len(group.Versions) > 0 {
			group.PreferredVersion = group.Versions[0]
		}
		// Every resource name the group serves appears once in Resources, at
		// the first version of this order that serves it: the preferred
		// version, then the others by Kubernetes version priority (v2, v1,
		// v1beta2, v1beta1, v1alpha1), as kubectl resolves a name. A kind
		// served only by v1alpha1 of a group preferring v1beta1 is listed too.
		order := group.versionOrder()
		listed := map[string]bool{}
		for _, v := range order {
			gv := schema.GroupVersion{Group: g.Name, Version: v}
			l, ok := byGV[gv.String()]
			if !ok {
				continue
			}
			for _, r := range resourcesOf(gv, l.APIResources) {
				if listed[r.Name] {
					group.Alternates = append(group.Alternates, r)
					continue
				}
				listed[r.Name] = true
				group.Resources = append(group.Resources, r)
			}
		}
		sort.SliceStable(group.Resources, func(i, j int) bool { return group.Resources[i].Name < group.Resources[j].Name })
		out.Groups = append(out.Groups, group)
	}
	sort.SliceStable(out.Groups, func(i, j int) bool {
		a, b := out.Groups[i].Name, out.Groups[j].Name
		// The core group first, then the rest by name.
		if (a == "") != (b == "") {
			return a == ""
		}
		return a < b
	})
	return out
}

func resourcesOf(gv schema.GroupVersion, in []metav1.APIResource) []Resource {
	subs := map[string][]string{}
	var top []metav1.APIResource
	for _, r := range in {
		if parent, sub, ok := strings.Cut(r.Name, "/"); ok {
			subs[parent] = append(subs[parent], sub)
			continue
		}
		top = append(top, r)
	}
	out := make([]Resource, 0, len(top))
	for _, r := range top {
		group, version := gv.Group, gv.Version
		if r.Group != "" {
			group = r.Group
		}
		if r.Version != "" {
			version = r.Version
		}
		out = append(out, Resource{
			Group:        group,
			Version:      version,
			Name:         r.Name,
			SingularName: r.SingularName,
			Kind:         r.Kind,
			Namespaced:   r.Namespaced,
			Verbs:        append([]string(nil), r.Verbs...),
			ShortNames:   append([]string(nil), r.ShortNames...),
			Categories:   append([]string(nil), r.Categories...),
			Subresources: subs[r.Name],
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
