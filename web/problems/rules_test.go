package problems

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient"
)

var (
	podsRes       = apiclient.Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true}
	deploymentRes = apiclient.Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", Namespaced: true}
	widgetRes     = apiclient.Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true}
	nodesRes      = apiclient.Resource{Version: "v1", Name: "nodes", Kind: "Node"}
	eventsRes     = apiclient.Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Kind: "Event", Namespaced: true}
)

// obj reads a YAML object in which {{T-5m}} stands for now minus five
// minutes (any Go duration).
func obj(t *testing.T, now time.Time, text string) *unstructured.Unstructured {
	t.Helper()
	for {
		i := strings.Index(text, "{{T-")
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], "}}")
		d, err := time.ParseDuration(text[i+4 : i+j])
		if err != nil {
			t.Fatal(err)
		}
		text = text[:i] + now.Add(-d).UTC().Format(time.RFC3339) + text[i+j+2:]
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	// YAML numbers are float64 here; unstructured wants int64.
	if err := intsOf(m); err != nil {
		t.Fatal(err)
	}
	return u
}

func intsOf(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if f, ok := x.(float64); ok && f == float64(int64(f)) {
				v[k] = int64(f)
				continue
			}
			if err := intsOf(x); err != nil {
				return err
			}
		}
	case []any:
		for i, x := range v {
			if f, ok := x.(float64); ok && f == float64(int64(f)) {
				v[i] = int64(f)
				continue
			}
			if err := intsOf(x); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestJudge(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	after := 5 * time.Minute
	for _, tc := range []struct {
		name string
		r    apiclient.Resource
		yaml string
		// want is "category reason" now, "" for no problem now; from and
		// until are the verdict's window, relative to now.
		want        string
		container   string
		restarts    int64
		from, until time.Duration
	}{
		{name: "crash loop", r: podsRes, want: "pods CrashLoopBackOff", container: "app", restarts: 7, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  phase: Running
  conditions: [{type: Ready, status: "False", lastTransitionTime: "{{T-1h}}"}]
  containerStatuses:
  - name: sidecar
    ready: true
    restartCount: 0
    state: {running: {startedAt: "{{T-1h}}"}}
  - name: app
    ready: false
    restartCount: 7
    state: {waiting: {reason: CrashLoopBackOff, message: back-off 5m0s restarting failed container}}
    lastState: {terminated: {reason: Error, exitCode: 1, finishedAt: "{{T-2m}}"}}`},
		{name: "image pull in an init container", r: podsRes, want: "pods ImagePullBackOff", container: "init", yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1m}}"}
status:
  phase: Pending
  initContainerStatuses:
  - name: init
    restartCount: 0
    state: {waiting: {reason: ImagePullBackOff, message: "Back-off pulling image \"nope\""}}`},
		{name: "OOM-killed a minute ago", r: podsRes, want: "pods OOMKilled", container: "app", restarts: 1, until: restartWindow - time.Minute, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "{{T-50s}}"}]
  containerStatuses:
  - name: app
    ready: true
    restartCount: 1
    state: {running: {startedAt: "{{T-50s}}"}}
    lastState: {terminated: {reason: OOMKilled, exitCode: 137, finishedAt: "{{T-1m}}"}}`},
		{name: "restarted long ago, ready now", r: podsRes, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-5h}}"}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "{{T-4h}}"}]
  containerStatuses:
  - name: app
    ready: true
    restartCount: 3
    state: {running: {startedAt: "{{T-4h}}"}}
    lastState: {terminated: {reason: Error, exitCode: 2, finishedAt: "{{T-4h}}"}}`},
		{name: "not ready for ten minutes", r: podsRes, want: "pods NotReady", from: -5 * time.Minute, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  phase: Running
  conditions: [{type: Ready, status: "False", lastTransitionTime: "{{T-10m}}", message: "readiness probe failed"}]`},
		{name: "not ready for a minute: not yet", r: podsRes, from: 4 * time.Minute, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  phase: Running
  conditions: [{type: Ready, status: "False", lastTransitionTime: "{{T-1m}}"}]`},
		{name: "unschedulable", r: podsRes, want: "pods Unschedulable", from: -5 * time.Minute, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-10m}}"}
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable, message: "0/2 nodes are available"}]`},
		{name: "evicted", r: podsRes, want: "pods Evicted", yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1h}}"}
status: {phase: Failed, reason: Evicted, message: "The node was low on resource: memory."}`},
		{name: "succeeded", r: podsRes, yaml: `
metadata: {name: p, namespace: demo, creationTimestamp: "{{T-1h}}"}
status: {phase: Succeeded}`},
		{name: "a deployment past its progress deadline", r: deploymentRes, want: "failed ProgressDeadlineExceeded", yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: demo, generation: 2, creationTimestamp: "{{T-1h}}"}
spec: {replicas: 2}
status:
  observedGeneration: 2
  replicas: 2
  conditions:
  - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded, lastTransitionTime: "{{T-20m}}"}
  - {type: Available, status: "True", lastTransitionTime: "{{T-1h}}"}`},
		{name: "a kind no code knows, Ready=False for ten minutes", r: widgetRes, want: "stuck BackendUnavailable", from: -5 * time.Minute, yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  conditions: [{type: Ready, status: "False", reason: BackendUnavailable, message: "the backend does not answer", lastTransitionTime: "{{T-10m}}"}]`},
		{name: "the same kind, Ready=True", r: widgetRes, yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  conditions: [{type: Ready, status: "True", reason: Serving, lastTransitionTime: "{{T-1m}}"}]`},
		{name: "stalled", r: widgetRes, want: "failed InvalidSpec", yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: demo, creationTimestamp: "{{T-1h}}"}
status:
  conditions: [{type: Stalled, status: "True", reason: InvalidSpec, message: "size must be positive"}]`},
		{name: "a finalizer that does not finish", r: widgetRes, want: "stuck Terminating", from: -5 * time.Minute, yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: demo, creationTimestamp: "{{T-1h}}", deletionTimestamp: "{{T-10m}}", finalizers: [example.com/cleanup]}`},
		{name: "a node not ready", r: nodesRes, want: "stuck KubeletNotReady", from: -5 * time.Minute, yaml: `
apiVersion: v1
kind: Node
metadata: {name: n, creationTimestamp: "{{T-1h}}"}
status:
  conditions: [{type: Ready, status: "False", reason: KubeletNotReady, lastTransitionTime: "{{T-10m}}"}]`},
		{name: "a malformed status says nothing", r: widgetRes, yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: demo}
status: {conditions: "nonsense"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(tc.r, obj(t, now, tc.yaml), now, after)
			got := ""
			if v.at(now) {
				got = categoryIDs[v.problem.Category] + " " + v.problem.Reason
			}
			if got != tc.want {
				t.Fatalf("judged %q, want %q (verdict %+v)", got, tc.want, v.problem)
			}
			if v.problem == nil {
				return
			}
			if v.problem.Container != tc.container || v.problem.Restarts != tc.restarts {
				t.Errorf("container %q, %d restarts; want %q, %d", v.problem.Container, v.problem.Restarts, tc.container, tc.restarts)
			}
			if tc.from != 0 && !v.from.Equal(now.Add(tc.from)) {
				t.Errorf("from %s, want now%+v", v.from, tc.from)
			}
			if tc.until != 0 && !v.until.Equal(now.Add(tc.until)) {
				t.Errorf("until %s, want now%+v", v.until, tc.until)
			}
		})
	}
}

func warning(t *testing.T, uid, name, reason string, count int, first, last string) *unstructured.Unstructured {
	return obj(t, time.Now(), fmt.Sprintf(`
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: %s, namespace: demo, uid: %s}
type: Warning
reason: %s
note: "it went wrong: %s"
regarding: {apiVersion: v1, kind: Pod, namespace: demo, name: %s, uid: u-%s}
deprecatedCount: %d
deprecatedFirstTimestamp: "%s"
deprecatedLastTimestamp: "%s"
eventTime: null`, uid, uid, reason, uid, name, name, count, first, last))
}

func TestBoardGroupsWarningsAndKeepsItsBounds(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	ts := func(d time.Duration) string { return now.Add(-d).UTC().Format(time.RFC3339) }
	b := newBoard(5*time.Minute, 2, 3)
	b.observeEvent(eventsRes, warning(t, "e1", "web-1", "BackOff", 4, ts(time.Hour), ts(10*time.Minute)))
	b.observeEvent(eventsRes, warning(t, "e2", "web-1", "BackOff", 3, ts(30*time.Minute), ts(time.Minute)))
	b.observeEvent(eventsRes, warning(t, "e3", "web-1", "Unhealthy", 1, ts(2*time.Minute), ts(2*time.Minute)))
	normal := warning(t, "e4", "web-2", "Pulled", 1, ts(time.Minute), ts(time.Minute))
	normal.Object["type"] = "Normal"
	b.observeEvent(eventsRes, normal)
	b.observeEvent(eventsRes, warning(t, "e5", "web-3", "Failed", 1, ts(time.Minute), ts(time.Minute))) // past the bound
	rep := b.report(now, 10)
	if len(rep.Warnings) != 2 || rep.Counts[Warnings] != 2 || rep.LostWarnings != 1 {
		t.Fatalf("%d groups (count %d), %d lost: %+v", len(rep.Warnings), rep.Counts[Warnings], rep.LostWarnings, rep.Warnings)
	}
	g := rep.Warnings[0]
	if g.Reason != "BackOff" || g.Count != 7 || g.Events != 2 || !g.First.Equal(now.Add(-time.Hour)) || !g.Last.Equal(now.Add(-time.Minute)) || g.Message != "it went wrong: e2" {
		t.Errorf("the BackOff group, last seen first: %+v", g)
	}
	b.forgetEvent("e2")
	if g := b.report(now, 10).Warnings[1]; g.Count != 4 || !g.Last.Equal(now.Add(-10*time.Minute)) {
		t.Errorf("after its newest event went: %+v", g)
	}

	// Problems: two kept, the third counted as lost; a cleared one goes.
	crash := func(name string) *unstructured.Unstructured {
		return obj(t, now, `
metadata: {name: `+name+`, namespace: demo}
status:
  phase: Running
  containerStatuses: [{name: app, restartCount: 2, state: {waiting: {reason: CrashLoopBackOff}}}]`)
	}
	b.observe(podsRes, crash("a"), now)
	b.observe(podsRes, crash("b"), now)
	b.observe(podsRes, crash("c"), now)
	if rep := b.report(now, 1); rep.Counts[Pods] != 2 || len(rep.Problems[Pods]) != 1 || rep.Lost != 1 {
		t.Errorf("counts %v, %d shown, %d lost", rep.Counts, len(rep.Problems[Pods]), rep.Lost)
	}
	b.observe(podsRes, obj(t, now, `{metadata: {name: a, namespace: demo}, status: {phase: Succeeded}}`), now)
	b.forget(podsRes, "demo", "b")
	if rep := b.report(now, 10); rep.Counts[Pods] != 0 {
		t.Errorf("cleared problems still shown: %+v", rep.Problems[Pods])
	}
}

func TestBoardTimesItsVerdicts(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	b := newBoard(5*time.Minute, 10, 10)
	b.observe(podsRes, obj(t, now, `
metadata: {name: slow, namespace: demo}
status:
  phase: Running
  conditions: [{type: Ready, status: "False", lastTransitionTime: "{{T-2m}}"}]`), now)
	if rep := b.report(now, 10); rep.Counts[Pods] != 0 {
		t.Fatal("a pod not ready for 2 minutes is a problem at a 5-minute threshold")
	}
	next := b.nextChange(now)
	if !next.Equal(now.Add(3 * time.Minute)) {
		t.Fatalf("next change at %s, want in 3 minutes", next)
	}
	if rep := b.report(next, 10); rep.Counts[Pods] != 1 || rep.Problems[Pods][0].Reason != "NotReady" {
		t.Errorf("at its threshold: %+v", rep.Problems[Pods])
	}
}
