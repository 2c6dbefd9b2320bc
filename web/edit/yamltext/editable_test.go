package yamltext

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestEditableObject(t *testing.T) {
	secret := func() map[string]any {
		return map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{
				"name": "creds", "managedFields": []any{map[string]any{"manager": "kubectl"}},
				"annotations": map[string]any{lastApplied: `{"data":{"password":"aHVudGVyMg=="}}`},
			},
			"data":       map[string]any{"password": "aHVudGVyMg=="},
			"stringData": map[string]any{"token": "plain"},
			"type":       "Opaque",
		}
	}
	for _, tc := range []struct {
		name string
		obj  map[string]any
		opts ViewOptions
		want map[string]any
	}{
		{"secret: no values, no last-applied copy of them",
			secret(), ViewOptions{},
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds"}, "type": "Opaque"}},
		{"secret with SecretData",
			secret(), ViewOptions{SecretData: true},
			map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
				"metadata":   map[string]any{"name": "creds", "annotations": map[string]any{lastApplied: `{"data":{"password":"aHVudGVyMg=="}}`}},
				"data":       map[string]any{"password": "aHVudGVyMg=="},
				"stringData": map[string]any{"token": "plain"}}},
		{"secret keeps its other annotations",
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"annotations": map[string]any{lastApplied: "{}", "team": "a"}}},
			ViewOptions{},
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"annotations": map[string]any{"team": "a"}}}},
		{"a ConfigMap's data is kept",
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}, "status": map[string]any{"x": "y"}},
			ViewOptions{},
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}},
		{"a Secret of another group is not core/v1's",
			map[string]any{"apiVersion": "example.com/v1", "kind": "Secret", "data": map[string]any{"k": "v"}},
			ViewOptions{},
			map[string]any{"apiVersion": "example.com/v1", "kind": "Secret", "data": map[string]any{"k": "v"}}},
		{"status kept when asked",
			map[string]any{"kind": "Pod", "status": map[string]any{"phase": "Running"}, "metadata": map[string]any{"managedFields": []any{}}},
			ViewOptions{Status: true},
			map[string]any{"kind": "Pod", "status": map[string]any{"phase": "Running"}, "metadata": map[string]any{}}},
		{"metadata not a map", map[string]any{"metadata": "odd"}, ViewOptions{}, map[string]any{"metadata": "odd"}},
		{"nil", nil, ViewOptions{}, map[string]any{}},
	} {
		got := EditableObject(tc.obj, tc.opts)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}

	// A deep copy: changing it leaves the object alone.
	obj := secret()
	got := EditableObject(obj, ViewOptions{SecretData: true})
	got["data"].(map[string]any)["password"] = "changed"
	got["metadata"].(map[string]any)["annotations"].(map[string]any)["x"] = "y"
	if !reflect.DeepEqual(obj, secret()) {
		t.Errorf("EditableObject changed its argument: %#v", obj)
	}
}

func TestEditableOrder(t *testing.T) {
	obj := map[string]any{
		"status": map[string]any{"replicas": int64(2)},
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "web", "image": "nginx:1.27", "args": []any{"--port", "8080"}, "ports": []any{map[string]any{"containerPort": int64(8080)}},
			}}}}},
		"metadata": map[string]any{
			"uid": "u1", "resourceVersion": "41", "generation": int64(3), "creationTimestamp": "2024-01-01T00:00:00Z",
			"annotations": map[string]any{"deployment.kubernetes.io/revision": "2"},
			"labels":      map[string]any{"tier": "front", "app.kubernetes.io/name": "web"},
			"namespace":   "demo", "name": "web",
			"managedFields": []any{map[string]any{"manager": "kubectl"}},
		},
		"kind": "Deployment", "apiVersion": "apps/v1",
		"data": map[string]any{}, "aaa": nil, "zzz": []any{},
	}
	want := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
  labels:
    app.kubernetes.io/name: web
    tier: front
  annotations:
    deployment.kubernetes.io/revision: "2"
  creationTimestamp: "2024-01-01T00:00:00Z"
  generation: 3
  resourceVersion: "41"
  uid: u1
aaa: null
data: {}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    spec:
      containers:
      - args:
        - --port
        - "8080"
        image: nginx:1.27
        name: web
        ports:
        - containerPort: 8080
zzz: []
`
	got, err := Editable(obj, ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	withStatus, _ := Editable(obj, ViewOptions{Status: true})
	if !strings.HasSuffix(withStatus, "zzz: []\nstatus:\n  replicas: 2\n") {
		t.Errorf("status is not last:\n%s", withStatus)
	}
}

func TestEditableScalars(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  string // the rendering of "v: value"
	}{
		{"yes", `v: "yes"`},
		{"on", `v: "on"`},
		{"no", `v: "no"`},
		{"y", `v: "y"`},
		{"N", `v: "N"`},
		{"true", `v: "true"`},
		{"1.0", `v: "1.0"`},
		{"1e3", `v: "1e3"`},
		{"0x1F", `v: "0x1F"`},
		{"0o17", `v: "0o17"`},
		{"1_000", `v: "1_000"`},
		{"+1", `v: "+1"`},
		{".5", `v: ".5"`},
		{"~", `v: "~"`},
		{"null", `v: "null"`},
		{"", `v: ""`},
		{".inf", `v: ".inf"`},
		{"<<", `v: "<<"`},
		{"=", `v: "="`},
		{"1:20", `v: "1:20"`},
		{"2024-01-01", `v: "2024-01-01"`},
		{"2024-01-01T10:00:00Z", `v: "2024-01-01T10:00:00Z"`},
		{"1e999", `v: "1e999"`},
		{"0x1FFFFFFFFFFFFFFFFF", `v: "0x1FFFFFFFFFFFFFFFFF"`},
		{"plain text", `v: plain text`},
		{"nginx:1.27", `v: nginx:1.27`},
		{"500m", `v: 500m`},
		{"héllo 日本", `v: héllo 日本`},
		{"- x", `v: '- x'`},
		{" lead", `v: ' lead'`},
		{"a: b", `v: 'a: b'`},
		{"#c", `v: '#c'`},
		{"line one\nline two\n", "v: |\n  line one\n  line two"},
		{"no final newline\nx", "v: |-\n  no final newline\n  x"},
		{"kept\n\n", "v: |+\n  kept\n"},
		{"  indented\nfirst\n", "v: |2\n    indented\n  first"},
		{"\ttab first\n", `v: "\ttab first\n"`},
		{"crlf\r\nline", `v: "crlf\r\nline"`},
		{"trailing space \nx", `v: "trailing space \nx"`},
		{int64(3), "v: 3"},
		{1.0, "v: 1"},
		{0.5, "v: 0.5"},
		{1e3, "v: 1000"},
		{json.Number("1.0"), "v: 1"},
		{json.Number("12345678901234567890"), "v: 12345678901234567890"},
		{uint64(18446744073709551615), "v: 18446744073709551615"},
		{true, "v: true"},
		{nil, "v: null"},
		{map[string]any{}, "v: {}"},
		{[]any{}, "v: []"},
	} {
		got, err := Editable(map[string]any{"v": tc.value}, ViewOptions{})
		if err != nil {
			t.Errorf("%#v: %v", tc.value, err)
			continue
		}
		if got != tc.want+"\n" {
			t.Errorf("%#v: got %q, want %q", tc.value, got, tc.want+"\n")
		}
		back, err := Parse(got)
		if err != nil {
			t.Errorf("%#v: reading back %q: %v", tc.value, got, err)
			continue
		}
		want, _ := Normalize(tc.value)
		if !reflect.DeepEqual(back["v"], want) {
			t.Errorf("%#v: reads back as %#v", tc.value, back["v"])
		}
	}
	for _, key := range []string{"on", "y", "80", "1.0", "", "app.kubernetes.io/name", "a: b", "multi\nline", "<<"} {
		got, err := Editable(map[string]any{key: "x"}, ViewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(got)
		if err != nil || back[key] != "x" || len(back) != 1 {
			t.Errorf("key %q: %q reads back as %#v, %v", key, got, back, err)
		}
	}
	if _, err := Editable(map[string]any{"v": func() {}}, ViewOptions{}); err == nil {
		t.Error("a func rendered")
	}
}
