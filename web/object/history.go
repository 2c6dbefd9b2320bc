package object

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/edit/yamltext"
	"github.com/tabula-console/tabula/web/textdiff"
)

// The History tab: an object's revisions (a Deployment's ReplicaSets, any
// other object's ControllerRevisions), a diff between any two of their pod
// templates, and a rollback that is an edit like any other: the editor's
// dry-run review of the object with the revision's template, then a merge
// patch guarded by the resourceVersion the page was read at, so a change
// made meanwhile takes the editor's conflict page.

// historyView builds the tab. from and to pick the diff ("" for none):
// revision numbers.
func historyView(base templ.SafeURL, obj *unstructured.Unstructured, revs []apiclient.Revision, revErr error, from, to string, now time.Time) *views.HistoryView {
	v := &views.HistoryView{Action: base, EditHref: base + "/edit", From: from, To: to}
	if revErr != nil {
		v.Note = "The revisions could not all be read: " + revErr.Error()
	}
	byNumber := map[string]apiclient.Revision{}
	current := currentNumber(revs)
	for _, r := range revs {
		n := strconv.FormatInt(r.Number, 10)
		byNumber[n] = r
		row := views.RevisionRow{Number: n, Object: r.Object, ChangeCause: r.ChangeCause, Images: strings.Join(r.Images, ", "), Replicas: r.Replicas, Current: r.Current}
		if !r.Created.IsZero() {
			row.Age = duration.HumanDuration(now.Sub(r.Created))
			row.Time = r.Created.UTC().Format(time.RFC3339)
		}
		if current != "" && current != n {
			row.DiffHref = base + templ.SafeURL("?"+url.Values{"view": {"history"}, "from": {n}, "to": {current}}.Encode())
		}
		if r.Rollback && !r.Current {
			row.Rollback = rollbackState(obj, r)
		}
		v.Rows = append(v.Rows, row)
	}
	if len(revs) == 0 && revErr == nil {
		v.Note = "No revisions: nothing owned by this object keeps one."
	}
	if from == "" && to == "" {
		return v
	}
	a, okA := byNumber[from]
	b, okB := byNumber[to]
	if !okA || !okB {
		v.DiffError = fmt.Sprintf("Revisions %q and %q are not both among the object's revisions.", truncate(from, 20), truncate(to, 20))
		return v
	}
	before, errA := yaml.Marshal(a.Template)
	after, errB := yaml.Marshal(b.Template)
	if errA != nil || errB != nil {
		v.DiffError = "The revisions could not be shown as YAML."
		return v
	}
	what := "pod template"
	if !a.Rollback || !b.Rollback {
		what = "revision data"
	}
	d := textdiff.Titled(fmt.Sprintf("The %s of revision %s against revision %s", what, from, to), string(before), string(after), "The two revisions are the same.")
	v.Diff = &d
	return v
}

func currentNumber(revs []apiclient.Revision) string {
	for _, r := range revs {
		if r.Current {
			return strconv.FormatInt(r.Number, 10)
		}
	}
	return ""
}

// rollbackState is the editor's state of a rollback to r: the object as
// read (the base) and the object with r's pod template (the text), at the
// resourceVersion read, reviewed by the editor like any edit.
func rollbackState(obj *unstructured.Unstructured, r apiclient.Revision) *views.EditState {
	base, err := yamltext.Editable(obj.Object, yamltext.ViewOptions{})
	if err != nil {
		return nil
	}
	rolled := obj.DeepCopy()
	if err := unstructured.SetNestedField(rolled.Object, runtimeCopy(r.Template), "spec", "template"); err != nil {
		return nil
	}
	text, err := yamltext.Editable(rolled.Object, yamltext.ViewOptions{})
	if err != nil {
		return nil
	}
	return &views.EditState{ResourceVersion: obj.GetResourceVersion(), Namespace: obj.GetNamespace(), Base: base, Text: text}
}

// runtimeCopy is a deep copy unstructured accepts (SetNestedField copies
// its value with DeepCopyJSONValue, which refuses what JSON has no type for).
func runtimeCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}
