package edit

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tabula-console/tabula/web/edit/yamltext"
)

// Change is one leaf a merge patch sets or removes. Path segments are object
// keys; a list is a leaf (merge patches replace lists whole), and so is a
// map the patch sets empty.
type Change struct {
	Path    []string
	Value   any // what it sets (for a removal: nil)
	Removed bool
}

// bareKey is a key PathString writes without brackets.
var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// PathString is the path dotted, with keys that contain dots or odd
// characters bracketed and quoted: metadata.labels["app.kubernetes.io/name"],
// spec.containers.
func (c Change) PathString() string { return pathString(c.Path) }

func pathString(path []string) string {
	var b strings.Builder
	for i, k := range path {
		if bareKey.MatchString(k) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
			continue
		}
		b.WriteByte('[')
		b.WriteString(strconv.Quote(k))
		b.WriteByte(']')
	}
	return b.String()
}

// bookkeeping are the metadata fields the server changes, never a user's
// edit.
var bookkeeping = map[string]bool{
	"resourceVersion":   true,
	"generation":        true,
	"managedFields":     true,
	"creationTimestamp": true,
	"uid":               true,
}

// Changes lists the leaves of a merge patch in path order, ignoring
// metadata.resourceVersion, metadata.generation, metadata.managedFields,
// metadata.creationTimestamp and metadata.uid (bookkeeping the server
// changes, never a user's edit).
func Changes(patch []byte) ([]Change, error) {
	p, err := yamltext.DecodeObject(patch, "the patch")
	if err != nil {
		return nil, err
	}
	return changesOf(p), nil
}

func changesOf(patch map[string]any) []Change {
	var out []Change
	var walk func(prefix []string, m map[string]any)
	walk = func(prefix []string, m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := append(prefix[:len(prefix):len(prefix)], k)
			if len(path) == 2 && path[0] == "metadata" && bookkeeping[k] {
				continue
			}
			switch v := m[k].(type) {
			case nil:
				out = append(out, Change{Path: path, Removed: true})
			case map[string]any:
				if len(v) > 0 {
					walk(path, v)
					continue
				}
				out = append(out, Change{Path: path, Value: v})
			default:
				out = append(out, Change{Path: path, Value: v})
			}
		}
	}
	walk(nil, patch)
	return out
}

// Conflict is one path both changes touch, with the three values rendered
// as short YAML ("(absent)" when missing).
type Conflict struct {
	Path                 string
	Loaded, Theirs, Mine string
}

// Analysis compares my change (base → mine) and theirs (base → live).
type Analysis struct {
	Mine, Theirs []Change
	// Conflicts are the paths where one change's path is a prefix of (or
	// equal to) the other's and the results differ there: what live and
	// mine hold at the shorter path. In path order, each path once.
	Conflicts []Conflict

	base, live, mine map[string]any // normalized
}

// Analyze compares my change (base → mine) and theirs (base → live), as a
// 409 page shows them. The three must be the same view of the object
// (yamltext.EditableObject with the same ViewOptions): base is the object
// as loaded, live the object now, mine the edited one. With no Conflicts,
// applying my patch onto live keeps both changes.
func Analyze(base, live, mine map[string]any) (Analysis, error) {
	var a Analysis
	for _, x := range []struct {
		in  map[string]any
		out *map[string]any
	}{{base, &a.base}, {live, &a.live}, {mine, &a.mine}} {
		v, err := yamltext.Normalize(x.in)
		if err != nil {
			return Analysis{}, err
		}
		*x.out, _ = v.(map[string]any)
	}
	minePatch, err := mergePatch(a.base, a.mine)
	if err != nil {
		return Analysis{}, err
	}
	theirPatch, err := mergePatch(a.base, a.live)
	if err != nil {
		return Analysis{}, err
	}
	a.Mine, a.Theirs = changesOf(minePatch), changesOf(theirPatch)

	// Their paths, and every proper prefix of one, by joined key: each of
	// my paths is checked against them in its depth, not against each of
	// theirs.
	theirs, within := map[string]bool{}, map[string]bool{}
	for _, t := range a.Theirs {
		theirs[joinPath(t.Path)] = true
		for i := 1; i < len(t.Path); i++ {
			within[joinPath(t.Path[:i])] = true
		}
	}
	checked := map[string]bool{}
	var paths [][]string
	for _, m := range a.Mine {
		for i := 1; i <= len(m.Path); i++ {
			p := m.Path[:i]
			key := joinPath(p)
			if !theirs[key] && !(i == len(m.Path) && within[key]) || checked[key] {
				continue
			}
			checked[key] = true
			// Absent and null are the same result: a merge patch removes
			// what it sets to null.
			t, _ := lookup(a.live, p)
			mine, _ := lookup(a.mine, p)
			if !sameValue(t, mine) {
				paths = append(paths, p)
			}
		}
	}
	sort.Slice(paths, func(i, j int) bool { return comparePaths(paths[i], paths[j]) < 0 })
	for _, p := range paths {
		a.Conflicts = append(a.Conflicts, Conflict{
			Path:   pathString(p),
			Loaded: renderAt(a.base, p),
			Theirs: renderAt(a.live, p),
			Mine:   renderAt(a.mine, p),
		})
	}
	return a, nil
}

// Lost lists what an overwrite (patch live → mine) would undo of their
// change: their changes whose value in mine differs.
func (a Analysis) Lost() []Change {
	var out []Change
	for _, t := range a.Theirs {
		theirs, _ := lookup(a.live, t.Path)
		mine, _ := lookup(a.mine, t.Path)
		if !sameValue(theirs, mine) {
			out = append(out, t)
		}
	}
	return out
}

// joinPath is a path as a map key: each segment with its length, as keys
// may hold any character.
func joinPath(p []string) string {
	var b strings.Builder
	for _, k := range p {
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}

func comparePaths(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// lookup returns the value at path and whether it is there (nil when not).
func lookup(doc map[string]any, path []string) (any, bool) {
	var v any = doc
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func renderAt(doc map[string]any, path []string) string {
	v, ok := lookup(doc, path)
	if !ok {
		return yamltext.AbsentText
	}
	return yamltext.RenderValue(v)
}
