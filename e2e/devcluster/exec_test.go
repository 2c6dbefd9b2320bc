package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/utils/gotpl"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

// loadKwokConfig writes the kwok config devcluster writes and reads it back
// with kwok's own loader.
func loadKwokConfig(t *testing.T, u execUser) (layout, []config.InternalObject) {
	t.Helper()
	l := layout{root: t.TempDir()}
	path := filepath.Join(l.root, "kwok.yaml")
	if err := writeKwokConfig(path, l.demoLog(), "", fallbackClusterExec(l, u), demoAttach(l.demoLog())); err != nil {
		t.Fatal(err)
	}
	objs, err := config.Load(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	return l, objs
}

func TestKwokConfigServesExecAndAttach(t *testing.T) {
	id := int64(unprivilegedID)
	l, objs := loadKwokConfig(t, execUser{uid: &id, gid: &id})

	stageFiles, _ := filepath.Glob("stages/*.yaml")
	if stages := config.FilterWithType[*internalversion.Stage](objs); len(stages) != len(stageFiles) || len(stageFiles) == 0 {
		t.Errorf("kwok loads %d stages, want %d", len(stages), len(stageFiles))
	}
	execs := config.FilterWithType[*internalversion.ClusterExec](objs)
	if len(execs) != 1 || len(execs[0].Spec.Execs) != 1 || execs[0].Spec.Execs[0].Local == nil {
		t.Fatalf("ClusterExecs %+v, want one local exec", execs)
	}
	local := execs[0].Spec.Execs[0].Local
	if local.WorkDir != l.sharedExecDir() || !strings.HasSuffix(local.WorkDir, "/exec/_shared") {
		t.Errorf("shared work dir %q", local.WorkDir)
	}
	if sc := local.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != id || sc.RunAsGroup == nil || *sc.RunAsGroup != id {
		t.Errorf("security context %+v, want uid and gid %d", sc, id)
	}
	env := map[string]string{}
	for _, e := range local.Envs {
		env[e.Name] = e.Value
	}
	for name, want := range map[string]string{
		"HOME": l.sharedExecDir(), "TERM": "xterm-256color", "PATH": execPath, execDirEnv: l.sharedExecDir(), "PS1": "kwok-pod $ ",
	} {
		if env[name] != want {
			t.Errorf("%s=%q, want %q", name, env[name], want)
		}
	}
	if execs[0].Spec.Selector.Match("any", "namespace") != true {
		t.Error("the shared ClusterExec does not match every pod")
	}

	attaches := config.FilterWithType[*internalversion.ClusterAttach](objs)
	if len(attaches) != 1 || len(attaches[0].Spec.Attaches) != 1 || attaches[0].Spec.Attaches[0].LogsFile != l.demoLog() {
		t.Fatalf("ClusterAttaches %+v, want one following %s", attaches, l.demoLog())
	}
	if logs := config.FilterWithType[*internalversion.ClusterLogs](objs); len(logs) != 1 {
		t.Errorf("%d ClusterLogs, want 1", len(logs))
	}
}

func TestKwokConfigWithoutUserSwitch(t *testing.T) {
	_, objs := loadKwokConfig(t, execUser{})
	execs := config.FilterWithType[*internalversion.ClusterExec](objs)
	if len(execs) != 1 || execs[0].Spec.Execs[0].Local.SecurityContext != nil {
		t.Fatalf("ClusterExecs %+v, want no security context", execs)
	}
}

func TestPodExecIsOwnedByThePod(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-1", UID: "u-1"}}
	e := podExec(pod, "/d/exec/demo/web-1", execUser{})
	if e.Name != "web-1" || e.Namespace != "demo" {
		t.Errorf("Exec %s/%s, want demo/web-1: kwok matches it to the pod by name", e.Namespace, e.Name)
	}
	if len(e.OwnerReferences) != 1 || e.OwnerReferences[0].UID != "u-1" || e.OwnerReferences[0].Kind != "Pod" {
		t.Errorf("owner references %+v", e.OwnerReferences)
	}
	targets := e.Spec.Execs
	if len(targets) != 1 || len(targets[0].Containers) != 0 || targets[0].Local.WorkDir != "/d/exec/demo/web-1" {
		t.Fatalf("targets %+v, want one for every container in the pod's directory", targets)
	}
	var ps1, host string
	for _, env := range targets[0].Local.Envs {
		switch env.Name {
		case "PS1":
			ps1 = env.Value
		case "HOSTNAME":
			host = env.Value
		}
	}
	if ps1 != "demo/web-1 $ " || host != "web-1" {
		t.Errorf("PS1=%q HOSTNAME=%q", ps1, host)
	}
}

// ephemeralStage matches devcluster's pod stages to a pod with kwok's own
// matcher and returns the stage chosen and, for the ephemeral containers
// stage, the status patch kwok's renderer makes.
func ephemeralStage(t *testing.T, pod *corev1.Pod) (string, map[string]any) {
	t.Helper()
	_, objs := loadKwokConfig(t, execUser{})
	var podStages []*internalversion.Stage
	for _, s := range config.FilterWithType[*internalversion.Stage](objs) {
		if s.Spec.ResourceRef.Kind == "Pod" {
			podStages = append(podStages, s)
		}
	}
	lc, err := lifecycle.NewLifecycle(podStages)
	if err != nil {
		t.Fatal(err)
	}
	stage, err := lc.Match(t.Context(), &lifecycle.Event{Labels: pod.Labels, Annotations: pod.Annotations, Data: pod})
	if err != nil {
		t.Fatal(err)
	}
	if stage == nil {
		return "", nil
	}
	if stage.Name() != "pod-ephemeral-containers" {
		return stage.Name(), nil
	}
	var patch map[string]any
	_, err = stage.DoSteps(0, nil, pod, gotpl.NewRenderer(gotpl.FuncMap{}),
		func(*internalversion.StageEvent) error { return nil },
		func() error { t.Error("the stage deletes the pod"); return nil },
		func(p *lifecycle.Patch) error {
			if p.Subresource != "status" {
				t.Errorf("patch of %q, want status", p.Subresource)
			}
			return json.Unmarshal(p.Data, &patch)
		},
		func(*lifecycle.Apply) error { t.Error("the stage applies an object"); return nil },
	)
	if err != nil {
		t.Fatal(err)
	}
	return stage.Name(), patch
}

func runningPod(ephemeral []string, statuses map[string]string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-1"},
		Spec:       corev1.PodSpec{NodeName: "kwok-node-0", Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		}},
	}
	for _, name := range ephemeral {
		pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, corev1.EphemeralContainer{
			EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: name, Image: "busybox:1.36"},
		})
	}
	for _, name := range slices.Sorted(maps.Keys(statuses)) {
		started, _ := time.Parse(time.RFC3339, statuses[name])
		pod.Status.EphemeralContainerStatuses = append(pod.Status.EphemeralContainerStatuses, corev1.ContainerStatus{
			Name: name, Image: "busybox:1.36",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}},
		})
	}
	return pod
}

func TestEphemeralContainersStartRunning(t *testing.T) {
	name, patch := ephemeralStage(t, runningPod([]string{"debugger"}, nil))
	if name != "pod-ephemeral-containers" {
		t.Fatalf("stage %q, want pod-ephemeral-containers", name)
	}
	var status struct {
		Status corev1.PodStatus `json:"status"`
	}
	raw, _ := json.Marshal(patch)
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatalf("patch %s: %v", raw, err)
	}
	got := status.Status.EphemeralContainerStatuses
	if len(got) != 1 || got[0].Name != "debugger" || got[0].Image != "busybox:1.36" || got[0].State.Running == nil || got[0].State.Running.StartedAt.IsZero() {
		t.Fatalf("ephemeral container statuses %+v", got)
	}
	if len(patch["status"].(map[string]any)) != 1 {
		t.Errorf("the patch touches more than ephemeralContainerStatuses: %s", raw)
	}
}

func TestAnotherEphemeralContainerKeepsTheFirstOnesStart(t *testing.T) {
	const first = "2026-01-02T03:04:05Z"
	_, patch := ephemeralStage(t, runningPod([]string{"one", "two"}, map[string]string{"one": first}))
	raw, _ := json.Marshal(patch)
	var status struct {
		Status corev1.PodStatus `json:"status"`
	}
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatal(err)
	}
	got := status.Status.EphemeralContainerStatuses
	if len(got) != 2 || got[0].Name != "one" || got[1].Name != "two" {
		t.Fatalf("statuses %s, want one and two", raw)
	}
	if s := got[0].State.Running.StartedAt.UTC().Format(time.RFC3339); s != first {
		t.Errorf("one started at %s, want %s kept", s, first)
	}
	if got[1].State.Running == nil || got[1].State.Running.StartedAt.Format(time.RFC3339) == first {
		t.Errorf("two: %+v", got[1].State)
	}
}

func TestNoStageOnceEveryEphemeralContainerRuns(t *testing.T) {
	for name, pod := range map[string]*corev1.Pod{
		"none":        runningPod(nil, nil),
		"all running": runningPod([]string{"one"}, map[string]string{"one": "2026-01-02T03:04:05Z"}),
		"being deleted": func() *corev1.Pod {
			p := runningPod([]string{"one"}, nil)
			now := metav1.Now()
			p.DeletionTimestamp = &now
			return p
		}(),
	} {
		if stage, _ := ephemeralStage(t, pod); stage == "pod-ephemeral-containers" {
			t.Errorf("%s: the ephemeral stage matches", name)
		}
	}
}

func TestSearchable(t *testing.T) {
	base := t.TempDir()
	// The test's temporary directories are 0700: open them for the check.
	for dir := base; dir != os.TempDir() && dir != "/"; dir = filepath.Dir(dir) {
		if err := os.Chmod(dir, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	mid := filepath.Join(base, "mid")
	leaf := filepath.Join(mid, "leaf")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	const other = 4242
	if err := os.Chmod(mid, 0o700); err != nil {
		t.Fatal(err)
	}
	if dir, ok := searchable(leaf, other, other); ok || dir != mid {
		t.Errorf("0700 directory: searchable = %q, %v; want %q, false", dir, ok, mid)
	}
	me := uint32(os.Geteuid())
	if _, ok := searchable(leaf, me, me); !ok {
		t.Error("the owner cannot enter its 0700 directory")
	}
	if err := os.Chmod(mid, 0o701); err != nil {
		t.Fatal(err)
	}
	if dir, ok := searchable(leaf, other, other); !ok {
		t.Errorf("0701 directory: stopped at %q", dir)
	}
	if os.Geteuid() == 0 {
		// Group bits decide for a member of the directory's group.
		if err := os.Chown(mid, 0, other); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(mid, 0o710); err != nil {
			t.Fatal(err)
		}
		if _, ok := searchable(leaf, other+1, other); !ok {
			t.Error("group member cannot enter a 0710 directory")
		}
		if _, ok := searchable(leaf, other+1, other+1); ok {
			t.Error("a stranger enters a 0710 directory")
		}
	}
}

func TestEnsureWorkDirKeepsWhatIsThere(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "exec", "demo", "web-1")
	u := execUser{}
	if os.Geteuid() == 0 {
		id := int64(unprivilegedID)
		u = execUser{uid: &id, gid: &id}
	}
	if err := ensureWorkDir(dir, "demo/web-1", u); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, ".bashrc")
	b, err := os.ReadFile(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `PS1='demo/web-1:\w\$ '`) {
		t.Errorf(".bashrc is\n%s", b)
	}
	if u.uid != nil {
		for _, p := range []string{dir, rc} {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st := info.Sys().(*syscall.Stat_t); st.Uid != unprivilegedID || st.Gid != unprivilegedID {
				t.Errorf("%s is owned by %d:%d", p, st.Uid, st.Gid)
			}
		}
	}

	// A second start keeps an edited .bashrc, and never writes through a
	// symlink the exec user may have put in its place.
	if err := os.WriteFile(rc, []byte("PS1='mine '\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensureWorkDir(dir, "demo/web-1", u); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(rc); string(b) != "PS1='mine '\n" {
		t.Errorf(".bashrc rewritten: %q", b)
	}
	target := filepath.Join(root, "target")
	if err := os.WriteFile(target, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "exec", "demo", "web-2")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(other, ".bashrc")); err != nil {
		t.Fatal(err)
	}
	if err := ensureWorkDir(other, "demo/web-2", u); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "untouched" {
		t.Errorf("ensureWorkDir wrote through a symlink: %q", b)
	}
}
