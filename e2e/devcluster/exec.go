package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	osuser "os/user"
	"path/filepath"
	"strconv"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kwokv1alpha1 "sigs.k8s.io/kwok/pkg/apis/v1alpha1"
)

// Exec and attach into the fake pods. kwok serves pods/exec by running the
// command as a local process on this host, as its own child, in the work
// directory and with the environment of the first matching kwok Exec (by
// pod name) or ClusterExec (by selector). devcluster gives each pod of the
// demo namespaces its own directory through an Exec named after the pod
// (see execcontroller.go); every other pod falls back to one ClusterExec
// and a shared directory. Development only: whoever may exec into a pod
// runs processes on the machine.

const (
	// unprivilegedID is the uid and gid of "nobody"/"nogroup", which exec'd
	// processes run as when devcluster runs as root.
	unprivilegedID = 65534
	// sharedExecDirName is the fallback directory under <data>/exec. A
	// namespace name cannot contain '_', so it never clashes with one.
	sharedExecDirName = "_shared"
	// execDirEnv marks every exec'd process (and what it starts) with its
	// work directory, so tests can find them on the host even after a cd.
	execDirEnv = "DEVCLUSTER_EXEC_DIR"
	execPath   = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// execUser is who kwok runs exec'd processes as: nil ids mean kwok's own
// user, which is devcluster's.
type execUser struct {
	uid, gid *int64
}

func (u execUser) String() string {
	if u.uid == nil {
		return "devcluster's own user (uid " + strconv.Itoa(os.Geteuid()) + ")"
	}
	return fmt.Sprintf("uid %d, gid %d", *u.uid, *u.gid)
}

// chooseExecUser runs exec'd processes as nobody when devcluster runs as
// root, so a shell in a fake pod cannot read the data directory's keys and
// tokens. Any other user cannot switch uid, so processes run as that user.
// The reason says why root is kept, if it is.
func chooseExecUser(dataDir string) (u execUser, reason string) {
	if os.Geteuid() != 0 {
		return execUser{}, ""
	}
	id := strconv.Itoa(unprivilegedID)
	// kwok looks both up before it starts a process as them.
	if _, err := osuser.LookupId(id); err != nil {
		return execUser{}, fmt.Sprintf("no user %s on this host (%v)", id, err)
	}
	if _, err := osuser.LookupGroupId(id); err != nil {
		return execUser{}, fmt.Sprintf("no group %s on this host (%v)", id, err)
	}
	if dir, ok := searchable(filepath.Dir(dataDir), unprivilegedID, unprivilegedID); !ok {
		return execUser{}, fmt.Sprintf("uid %d cannot enter %s, so it could not reach the data directory", unprivilegedID, dir)
	}
	n := int64(unprivilegedID)
	return execUser{uid: &n, gid: &n}, ""
}

// searchable reports whether uid (with primary group gid) may enter dir and
// every directory above it, from the permission bits, and if not, the first
// directory that stops it.
func searchable(dir string, uid, gid uint32) (string, bool) {
	for {
		info, err := os.Stat(dir)
		if err != nil {
			return dir, false
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return dir, false
		}
		mode := info.Mode().Perm()
		var bit fs.FileMode
		switch {
		case st.Uid == uid:
			bit = 0o100
		case st.Gid == gid:
			bit = 0o010
		default:
			bit = 0o001
		}
		if mode&bit == 0 {
			return dir, false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", true
		}
		dir = parent
	}
}

// prepareExecDirs creates <data>/exec and its shared fallback directory.
// For an unprivileged exec user, the data directory becomes 0711: that user
// may pass through it to <data>/exec but not list it, and its files keep
// their own (0600 for keys and tokens) permissions.
func prepareExecDirs(l layout, u execUser) error {
	if err := os.MkdirAll(l.execDir(), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(l.execDir(), 0o755); err != nil {
		return err
	}
	if u.uid != nil {
		if err := os.Chmod(l.root, 0o711); err != nil {
			return err
		}
	}
	return ensureWorkDir(l.sharedExecDir(), "", u)
}

// ensureWorkDir creates one work directory, owned by the exec user, with a
// .bashrc whose prompt names the pod (interactive bash reads it, as HOME is
// the work directory; Debian's /etc/bash.bashrc would otherwise set its
// own). An existing directory and .bashrc are kept as they are.
func ensureWorkDir(dir, podRef string, u execUser) error {
	// 0755 whatever the umask: the exec user must pass through the
	// namespace's directory, which stays root's.
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(parent, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if u.uid != nil {
		if err := os.Lchown(dir, int(*u.uid), int(*u.gid)); err != nil {
			return err
		}
	}
	// O_EXCL: never follow or replace what the exec user put there.
	f, err := os.OpenFile(filepath.Join(dir, ".bashrc"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "# Written by devcluster: this directory is the HOME of exec sessions in %s.\nPS1='%s:\\w\\$ '\n", promptName(podRef), promptName(podRef))
	if err == nil && u.uid != nil {
		err = f.Chown(int(*u.uid), int(*u.gid))
	}
	return errors.Join(err, f.Close())
}

func promptName(podRef string) string {
	if podRef == "" {
		return "kwok-pod"
	}
	return podRef
}

// execLocal is how kwok runs a command for one work directory. kwok adds
// these variables to its own environment, which devcluster keeps small
// (see kwokEnv); the pod spec's env is not applied.
func execLocal(dir, namespace, pod string, u execUser) *kwokv1alpha1.ExecTargetLocal {
	ref := ""
	if pod != "" {
		ref = namespace + "/" + pod
	}
	envs := []kwokv1alpha1.EnvVar{
		{Name: "HOME", Value: dir},
		{Name: "TERM", Value: "xterm-256color"},
		{Name: "PATH", Value: execPath},
		{Name: "PS1", Value: promptName(ref) + " $ "},
		{Name: execDirEnv, Value: dir},
	}
	if pod != "" {
		envs = append(envs,
			kwokv1alpha1.EnvVar{Name: "HOSTNAME", Value: pod},
			kwokv1alpha1.EnvVar{Name: "POD_NAMESPACE", Value: namespace},
			kwokv1alpha1.EnvVar{Name: "POD_NAME", Value: pod},
		)
	}
	local := &kwokv1alpha1.ExecTargetLocal{WorkDir: dir, Envs: envs}
	if u.uid != nil {
		local.SecurityContext = &kwokv1alpha1.SecurityContext{RunAsUser: u.uid, RunAsGroup: u.gid}
	}
	return local
}

// kwokEnv is kwok's whole environment, and so the base of every exec'd
// process's: not the environment devcluster was started with, which may
// hold anything of the developer's or the CI's.
func kwokEnv() []string {
	env := []string{"PATH=" + execPath}
	for _, name := range []string{"HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// fallbackClusterExec serves exec for every pod without an Exec of its own.
func fallbackClusterExec(l layout, u execUser) *kwokv1alpha1.ClusterExec {
	return &kwokv1alpha1.ClusterExec{
		TypeMeta:   metav1.TypeMeta{APIVersion: kwokv1alpha1.GroupVersion.String(), Kind: kwokv1alpha1.ClusterExecKind},
		ObjectMeta: metav1.ObjectMeta{Name: "shared-exec"},
		Spec: kwokv1alpha1.ClusterExecSpec{
			Selector: &kwokv1alpha1.ObjectSelector{},
			Execs:    []kwokv1alpha1.ExecTarget{{Local: execLocal(l.sharedExecDir(), "", "", u)}},
		},
	}
}

// demoAttach serves pods/attach as a follow of the demo log, from its end
// (kwok reads no stdin and opens no tty for attach).
func demoAttach(demoLogPath string) *kwokv1alpha1.ClusterAttach {
	return &kwokv1alpha1.ClusterAttach{
		TypeMeta:   metav1.TypeMeta{APIVersion: kwokv1alpha1.GroupVersion.String(), Kind: kwokv1alpha1.ClusterAttachKind},
		ObjectMeta: metav1.ObjectMeta{Name: "demo-attach"},
		Spec: kwokv1alpha1.ClusterAttachSpec{
			Selector: &kwokv1alpha1.ObjectSelector{},
			Attaches: []kwokv1alpha1.AttachConfig{{LogsFile: &demoLogPath}},
		},
	}
}
