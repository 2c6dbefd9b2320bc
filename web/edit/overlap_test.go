package edit

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestChanges(t *testing.T) {
	patch := `{
		"metadata": {"resourceVersion": "1", "generation": 2, "uid": "u", "creationTimestamp": "t", "managedFields": [],
			"labels": {"app.kubernetes.io/name": "x", "gone": null}, "name": "n"},
		"spec": {"containers": [{"name": "a"}], "empty": {}, "replicas": 3.0,
			"template": {"metadata": {"uid": "kept: only the object's own metadata is bookkeeping"}}},
		"a.b": {"c": 1},
		"removed": null
	}`
	got, err := Changes([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		path    string
		value   any
		removed bool
	}{
		{`["a.b"].c`, json.Number("1"), false},
		{`metadata.labels["app.kubernetes.io/name"]`, "x", false},
		{`metadata.labels.gone`, nil, true},
		{`metadata.name`, "n", false},
		{`removed`, nil, true},
		{`spec.containers`, []any{map[string]any{"name": "a"}}, false},
		{`spec.empty`, map[string]any{}, false},
		{`spec.replicas`, json.Number("3"), false},
		{`spec.template.metadata.uid`, "kept: only the object's own metadata is bookkeeping", false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d changes, want %d: %#v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.PathString() != w.path || !reflect.DeepEqual(g.Value, w.value) || g.Removed != w.removed {
			t.Errorf("change %d: got %s = %#v (removed %v), want %s = %#v (removed %v)", i, g.PathString(), g.Value, g.Removed, w.path, w.value, w.removed)
		}
	}
	if got[0].Path[0] != "a.b" || got[0].Path[1] != "c" {
		t.Errorf("path segments: %q", got[0].Path)
	}

	for _, empty := range []string{`{}`, `{"metadata":{"resourceVersion":"9"}}`} {
		if got, err := Changes([]byte(empty)); err != nil || len(got) != 0 {
			t.Errorf("%s: %#v, %v", empty, got, err)
		}
	}
	for _, bad := range []string{`[]`, `1`, `{`} {
		if _, err := Changes([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestPathString(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want string
	}{
		{nil, ""},
		{[]string{"spec"}, "spec"},
		{[]string{"spec", "replicas"}, "spec.replicas"},
		{[]string{"spec", "containers"}, "spec.containers"},
		{[]string{"metadata", "labels", "app.kubernetes.io/name"}, `metadata.labels["app.kubernetes.io/name"]`},
		{[]string{"metadata", "annotations", "example.com/x", "y"}, `metadata.annotations["example.com/x"].y`},
		{[]string{"a.b", "c"}, `["a.b"].c`},
		{[]string{"x-y_Z9"}, "x-y_Z9"},
		{[]string{""}, `[""]`},
		{[]string{"a b"}, `["a b"]`},
		{[]string{`say "hi"`}, `["say \"hi\""]`},
		{[]string{"data", "日本"}, `data["日本"]`},
		{[]string{"data", "line\nbreak"}, `data["line\nbreak"]`},
	} {
		if got := (Change{Path: tc.path}).PathString(); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.path, got, tc.want)
		}
	}
}

const loaded = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
  resourceVersion: "10"
  generation: 1
spec:
  replicas: 1
  paused: false
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.26
`

// variant is the loaded text with replacements.
func variant(t *testing.T, replace ...string) map[string]any {
	t.Helper()
	text := loaded
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(text, replace[i]) {
			t.Fatalf("the text lacks %q", replace[i])
		}
		text = strings.Replace(text, replace[i], replace[i+1], 1)
	}
	return mustParse(t, text)
}

func TestAnalyze(t *testing.T) {
	// The server's bookkeeping moves on in every live object.
	bump := []string{`resourceVersion: "10"`, `resourceVersion: "11"`, "generation: 1", "generation: 2"}
	for _, tc := range []struct {
		name               string
		live, mine         []string // replacements in the loaded text
		mineN, theirN      int
		conflicts          []Conflict
		lost               []string
		reapplyKeepsTheirs bool
	}{
		{
			name: "disjoint",
			live: []string{"replicas: 1", "replicas: 3"}, mine: []string{"nginx:1.26", "nginx:1.27"},
			mineN: 1, theirN: 1,
			lost:               []string{"spec.replicas"},
			reapplyKeepsTheirs: true,
		},
		{
			name: "disjoint siblings in one map",
			live: []string{"app: web", "app: web\n    tier: front"}, mine: []string{"app: web", "app: web\n    team: a"},
			mineN: 1, theirN: 1,
			lost:               []string{`metadata.labels.tier`},
			reapplyKeepsTheirs: true,
		},
		{
			name: "same path, different values",
			live: []string{"replicas: 1", "replicas: 3"}, mine: []string{"replicas: 1", "replicas: 5"},
			mineN: 1, theirN: 1,
			conflicts: []Conflict{{Path: "spec.replicas", Loaded: "1", Theirs: "3", Mine: "5"}},
			lost:      []string{"spec.replicas"},
		},
		{
			name: "the same change on both sides",
			live: []string{"replicas: 1", "replicas: 3", "paused: false", "paused: true"}, mine: []string{"replicas: 1", "replicas: 3"},
			mineN: 1, theirN: 2,
			lost:               []string{"spec.paused"},
			reapplyKeepsTheirs: true,
		},
		{
			name: "both remove the same key",
			live: []string{"  paused: false\n", ""}, mine: []string{"  paused: false\n", ""},
			mineN: 1, theirN: 1,
			reapplyKeepsTheirs: true,
		},
		{
			name:  "mine is a prefix of theirs: I remove what they changed inside",
			live:  []string{"nginx:1.26", "nginx:1.27"},
			mine:  []string{"  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.26\n", ""},
			mineN: 1, theirN: 1,
			conflicts: []Conflict{{Path: "spec.template", Loaded: "spec:\n  containers:\n  - image: nginx:1.26\n    name: web",
				Theirs: "spec:\n  containers:\n  - image: nginx:1.27\n    name: web", Mine: "(absent)"}},
			lost: []string{"spec.template.spec.containers"},
		},
		{
			name: "theirs is a prefix of mine: they removed what I changed inside",
			live: []string{"  labels:\n    app: web\n", ""}, mine: []string{"app: web", "app: web\n    team: a"},
			mineN: 1, theirN: 1,
			conflicts: []Conflict{{Path: "metadata.labels", Loaded: "app: web", Theirs: "(absent)", Mine: "app: web\nteam: a"}},
			lost:      []string{"metadata.labels"},
		},
		{
			name: "arrays are leaves",
			live: []string{"- name: web\n", "- name: web\n        args: [-v]\n"}, mine: []string{"nginx:1.26", "nginx:1.27"},
			mineN: 1, theirN: 1,
			conflicts: []Conflict{{Path: "spec.template.spec.containers",
				Loaded: "- image: nginx:1.26\n  name: web", Theirs: "- args:\n  - -v\n  image: nginx:1.26\n  name: web", Mine: "- image: nginx:1.27\n  name: web"}},
			lost: []string{"spec.template.spec.containers"},
		},
		{
			name:  "one conflict per path, in path order",
			live:  []string{"replicas: 1", "replicas: 2", "paused: false", "paused: true", "app: web", "app: api"},
			mine:  []string{"spec:\n  replicas: 1\n  paused: false\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.26\n", "", "app: web", "app: db"},
			mineN: 2, theirN: 3,
			conflicts: []Conflict{
				{Path: "metadata.labels.app", Loaded: "web", Theirs: "api", Mine: "db"},
				{Path: "spec", Loaded: "paused: false\nreplicas: 1\ntemplate:\n  spec:\n    containers:\n    - image: nginx:1.26\n      name: web",
					Theirs: "paused: true\nreplicas: 2\ntemplate:\n  spec:\n    containers:\n    - image: nginx:1.26\n      name: web", Mine: "(absent)"},
			},
			lost: []string{"metadata.labels.app", "spec.paused", "spec.replicas"},
		},
		{
			name:  "only bookkeeping moved",
			mine:  []string{"replicas: 1", "replicas: 2"},
			mineN: 1, theirN: 0,
			reapplyKeepsTheirs: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := variant(t)
			live := variant(t, append(append([]string(nil), bump...), tc.live...)...)
			mine := variant(t, tc.mine...)
			a, err := Analyze(base, live, mine)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Mine) != tc.mineN || len(a.Theirs) != tc.theirN {
				t.Errorf("got %d changes of mine and %d of theirs, want %d and %d: %#v %#v", len(a.Mine), len(a.Theirs), tc.mineN, tc.theirN, a.Mine, a.Theirs)
			}
			if !reflect.DeepEqual(a.Conflicts, tc.conflicts) {
				t.Errorf("conflicts:\ngot  %#v\nwant %#v", a.Conflicts, tc.conflicts)
			}
			var lost []string
			for _, c := range a.Lost() {
				lost = append(lost, c.PathString())
			}
			if !reflect.DeepEqual(lost, tc.lost) {
				t.Errorf("lost: got %q, want %q", lost, tc.lost)
			}
			if !tc.reapplyKeepsTheirs {
				return
			}
			// Disjoint: my patch onto the live object keeps both changes.
			p := mustPatch(t, base, mine)
			merged, err := Apply(live, []byte(p))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range append(a.Mine, a.Theirs...) {
				v, ok := lookup(merged, c.Path)
				if c.Removed && ok || !c.Removed && !reflect.DeepEqual(v, c.Value) {
					t.Errorf("re-applied, %s is %#v", c.PathString(), v)
				}
			}
		})
	}
}

func TestAnalyzeNumbers(t *testing.T) {
	base := mustParse(t, "a: 9007199254740993\nb: 1.0\n")
	live := mustParse(t, "a: 9007199254740992\nb: 1\n")
	mine := mustParse(t, "a: 9007199254740994\nb: 1e0\n")
	a, err := Analyze(base, live, mine)
	if err != nil {
		t.Fatal(err)
	}
	want := []Conflict{{Path: "a", Loaded: "9007199254740993", Theirs: "9007199254740992", Mine: "9007199254740994"}}
	if !reflect.DeepEqual(a.Conflicts, want) || len(a.Mine) != 1 || len(a.Theirs) != 1 {
		t.Errorf("got %#v", a)
	}
}

func TestAnalyzeAcceptsAPIValues(t *testing.T) {
	// The live object as the API client decodes it: int64, float64.
	base := mustParse(t, "spec:\n  replicas: 2\n  ratio: 0.5\n")
	live := map[string]any{"spec": map[string]any{"replicas": int64(2), "ratio": 0.5}}
	mine := mustParse(t, "spec:\n  replicas: 3\n  ratio: 0.5\n")
	a, err := Analyze(base, live, mine)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Theirs) != 0 || len(a.Conflicts) != 0 || len(a.Mine) != 1 {
		t.Errorf("got %#v", a)
	}
	if _, err := Analyze(base, map[string]any{"f": func() {}}, mine); err == nil {
		t.Error("a func analyzed")
	}
}

func TestAnalyzeMany(t *testing.T) {
	// Thousands of leaves on each side, a conflict among them.
	base, live, mine := map[string]any{}, map[string]any{}, map[string]any{}
	for i := 0; i < 5000; i++ {
		k := strings.Repeat("k", i%7+1) + "." + string(rune('a'+i%26)) + "\x00" + strconv.Itoa(i)
		base[k] = map[string]any{"v": json.Number("0")}
		live[k] = map[string]any{"v": json.Number("1")}
		mine[k] = map[string]any{"v": json.Number("0"), "w": json.Number("2")}
	}
	live["x"] = json.Number("1")
	mine["x"] = json.Number("2")
	a, err := Analyze(base, live, mine)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Mine) != 5001 || len(a.Theirs) != 5001 || len(a.Conflicts) != 1 || a.Conflicts[0].Path != "x" {
		t.Errorf("got %d, %d, %#v", len(a.Mine), len(a.Theirs), a.Conflicts)
	}
}

// BenchmarkAnalyzeMany measures the analysis of a large conflict (what
// TestAnalyzeMany checks for correctness), so a quadratic slip shows as a
// figure rather than as a flaky timed test.
func BenchmarkAnalyzeMany(b *testing.B) {
	base, live, mine := map[string]any{}, map[string]any{}, map[string]any{}
	for i := 0; i < 5000; i++ {
		k := "k" + strconv.Itoa(i)
		base[k] = map[string]any{"v": json.Number("0")}
		live[k] = map[string]any{"v": json.Number("1")}
		mine[k] = map[string]any{"v": json.Number("0"), "w": json.Number("2")}
	}
	for b.Loop() {
		if _, err := Analyze(base, live, mine); err != nil {
			b.Fatal(err)
		}
	}
}
