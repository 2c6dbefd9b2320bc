package apiclient

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Lookup finds the resource served at group/version/name.
func (d *Discovery) Lookup(group, version, name string) (Resource, bool) {
	for _, g := range d.Groups {
		if g.Name != group {
			continue
		}
		for _, r := range g.Resources {
			if r.Version == version && r.Name == name {
				return r, true
			}
		}
		for _, r := range g.Alternates {
			if r.Version == version && r.Name == name {
				return r, true
			}
		}
	}
	return Resource{}, false
}

// ForKind finds the top-level resource serving kind at apiVersion ("v1",
// "apps/v1"), as a manifest names its type, so that an object can be
// created in its collection. It looks at every served version, preferred or
// not (Resources, then Alternates); subresources are never top-level.
func (d *Discovery) ForKind(apiVersion, kind string) (Resource, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Version == "" || kind == "" {
		return Resource{}, false
	}
	for _, g := range d.Groups {
		if g.Name != gv.Group {
			continue
		}
		for _, rs := range [][]Resource{g.Resources, g.Alternates} {
			for _, r := range rs {
				if r.Group == gv.Group && r.Version == gv.Version && r.Kind == kind {
					return r, true
				}
			}
		}
	}
	return Resource{}, false
}

// Resolve finds the resources a kubectl-style name means: a plural, a
// singular, a kind, a short name ("deploy", "sts", "po"), "resource.group"
// ("deployments.apps", "lh.maritime.tabula.dev") or a category ("all").
// Matches come in discovery order: the core group first, then by group name.
func (d *Discovery) Resolve(query string) []Resource {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil
	}
	if matches := d.match(q, ""); len(matches) > 0 {
		return matches
	}
	// "resource.group": try each split point, so groups with dots work.
	for i := strings.IndexByte(q, '.'); i > 0; i = nextDot(q, i) {
		if matches := d.match(q[:i], q[i+1:]); len(matches) > 0 {
			return matches
		}
	}
	return d.category(q)
}

func nextDot(s string, after int) int {
	j := strings.IndexByte(s[after+1:], '.')
	if j < 0 {
		return -1
	}
	return after + 1 + j
}

// match returns the preferred-version resources named name, in group when
// group is set ("" matches any group; "core" would not be a real group).
func (d *Discovery) match(name, group string) []Resource {
	var out []Resource
	for _, g := range d.Groups {
		if group != "" && g.Name != group {
			continue
		}
		for _, r := range g.Resources {
			if r.matches(name) {
				out = append(out, r)
			}
		}
	}
	return out
}

func (r Resource) matches(name string) bool {
	if r.Name == name || r.SingularName == name || strings.ToLower(r.Kind) == name {
		return true
	}
	for _, s := range r.ShortNames {
		if s == name {
			return true
		}
	}
	return false
}

func (d *Discovery) category(name string) []Resource {
	var out []Resource
	for _, g := range d.Groups {
		for _, r := range g.Resources {
			for _, c := range r.Categories {
				if c == name {
					out = append(out, r)
					break
				}
			}
		}
	}
	return out
}

// Names lists every name Resolve understands, for autocompletion. The
// slice is shared: callers must not modify it.
func (d *Discovery) Names() []string {
	d.namesOnce.Do(func() { d.names = d.computeNames() })
	return d.names
}

func (d *Discovery) computeNames() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, g := range d.Groups {
		for _, r := range g.Resources {
			add(r.Name)
			for _, s := range r.ShortNames {
				add(s)
			}
			if g.Name != "" {
				add(r.Name + "." + g.Name)
			}
		}
	}
	return out
}
