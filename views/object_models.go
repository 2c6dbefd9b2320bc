package views

import "github.com/a-h/templ"

// ObjectPage describes one object: the server's own description when it
// offers one, otherwise Tabula's generic describe; or its YAML.
type ObjectPage struct {
	Layout       Layout
	Kind         string
	Name         string
	Namespace    string
	GroupVersion string
	ListHref     templ.SafeURL
	// NamespaceHref lists the same resource in the object's namespace.
	NamespaceHref templ.SafeURL
	Age           string
	Created       string
	Tabs          []Tab
	// YAML is set on the YAML tab.
	YAML           *YAMLView
	Summary        []Field
	Source         string
	ServerDescribe []Section
	Generic        *GenericDescribe
	// Live follows the object: its sections re-render when it or its
	// events change.
	Live bool
	// LogsHref opens the logs of a pod or of a workload's pods.
	LogsHref templ.SafeURL
	// LogsDenied, when set, says why the user may not read them: the link
	// is shown disabled with the reason.
	LogsDenied string
	// TerminalHref opens a terminal to the pod, or picks one of a
	// workload's pods; only offered where the user may create pods/exec.
	TerminalHref templ.SafeURL
	// DebugHref adds a debug container to the pod, where the server has
	// them and the user may.
	DebugHref templ.SafeURL
	Actions   ObjectActions
	// Kubectl is the kubectl command getting what the page shows.
	Kubectl string
	// Usage is the object's usage from metrics.k8s.io (pods, nodes and
	// workloads, where the server serves it); nil shows nothing.
	Usage *UsageSection
	// Rest is what the overview shows below its first screen: the Related
	// section and the events, which take the longest to read. A streamed
	// page sends its top before it waits for them.
	Rest Later[ObjectRest]
	// RestNote says what is being read while a streamed page waits for
	// Rest ("Reading events…"); empty, it waits without a note.
	RestNote string
	// Map is set on the Map tab.
	Map *RelationMap
	// Blame is set on the YAML tab with ?blame=1.
	Blame *BlameView
	// History is set on the History tab.
	History *HistoryView
	// Health is the object's kstatus; HealthNote its reason when it is
	// not Current.
	Health     *HealthBadge
	HealthNote string
}

// ObjectActions are the object's write pages; empty ones are not offered.
// An action whose …Denied is set is shown disabled with that reason: the
// server said the user may not take it.
type ObjectActions struct {
	EditHref, ScaleHref, DeleteHref templ.SafeURL
	// RestartAction is a form (a write), with the version it was shown at.
	RestartAction   templ.SafeURL
	ResourceVersion string

	EditDenied, ScaleDenied, RestartDenied, DeleteDenied string
}

// ObjectLiveSections are the parts of an object page a live page replaces,
// by their data-live-section id.
func ObjectLiveSections(p ObjectPage) map[string]templ.Component {
	out := map[string]templ.Component{"header": objectHead(p)}
	rest := p.Rest.Wait()
	if rest.Related != nil {
		out["related"] = RelatedSectionView(*rest.Related)
	}
	if g := p.Generic; g != nil {
		out["scale"] = scaleSection(g.Scale)
		out["conditions"] = conditionsSection(g.Conditions)
		out["events"] = eventsSection(rest)
		out["spec"] = treeSection("Spec", "spec", g.Spec)
		out["status"] = treeSection("Status", "status", g.Status)
	}
	return out
}

// Tab is one view of the object.
type Tab struct {
	Label   string
	Href    templ.SafeURL
	Current bool
}

// Field is a name/value pair.
type Field struct {
	Name  string
	Value string
}

// Section is one titled part of a server-side description.
type Section struct {
	Title  string
	Fields []Field
	Tables []SmallTable
}

// SmallTable is a compact table of strings.
type SmallTable struct {
	Title   string
	Columns []string
	Rows    [][]string
}

// GenericDescribe is what Tabula shows for any kind from the object itself.
type GenericDescribe struct {
	Labels      []Chip
	Annotations []Annotation
	Owners      []RelatedLink
	Finalizers  []string
	Conditions  []Condition
	Scale       *ScaleView
	Spec        []TreeNode
	Status      []TreeNode
}

// ObjectRest is the part of an object's overview that is read after its
// top (ObjectPage.Rest).
type ObjectRest struct {
	// Related is the Related section; nil leaves it out.
	Related *RelatedSection
	// Events are shown by a generic describe; EventsNote explains missing
	// ones ("hidden: forbidden").
	Events     []EventView
	EventsNote string
}

// Chip is a label, k=v. With links, it opens a small menu: the list
// filtered by it (Href) and the list with it as a column (ColumnHref).
type Chip struct {
	Text       string
	Href       templ.SafeURL
	ColumnHref templ.SafeURL
}

// Annotation is one annotation; long values start collapsed.
type Annotation struct {
	Key   string
	Value string
	Long  bool
}

// RelatedLink is an owner, child or selected object.
type RelatedLink struct {
	Kind     string
	Name     string
	Href     templ.SafeURL
	Relation string
	Ready    string
}

// Condition is one entry of status.conditions.
type Condition struct {
	Type    string
	Status  string
	Reason  string
	Message string
	Age     string
	Time    string
}

// StatusClass styles the condition's status: one of the three the
// conventions define, and nothing for anything else a server sends, so
// API data never names a class.
func (c Condition) StatusClass() string {
	switch c.Status {
	case "True", "False", "Unknown":
		return "status-" + c.Status
	}
	return ""
}

// ScaleView is the scale subresource.
type ScaleView struct {
	Desired  int32
	Current  int32
	Selector string
}

// TreeNode is one key of a nested spec or status.
type TreeNode struct {
	Key      string
	Value    string
	Children []TreeNode
	// List marks a node whose children are list items.
	List bool
}

// EventView is one (merged) event.
type EventView struct {
	Type    string
	Reason  string
	Message string
	Source  string
	Count   int32
	Age     string
	Time    string
}

// YAMLView is the object as YAML.
type YAMLView struct {
	Text string
	// ManagedFields says whether metadata.managedFields is included;
	// ToggleHref flips it; empty shows no toggle (the status view).
	ManagedFields bool
	ToggleHref    templ.SafeURL
	// BlameHref shows who owns each field (?blame=1).
	BlameHref templ.SafeURL
}

// BlameView is the YAML view with each field's owners, from the object's
// managedFields.
type BlameView struct {
	Lines []BlameLine
	// Managers is the legend: each manager once, newest write first.
	Managers []BlameManager
	// Manager, when set, is the manager the view is filtered by: the
	// lines it does not own are dimmed.
	Manager string
	// AllHref shows every manager; YAMLHref the plain YAML.
	AllHref  templ.SafeURL
	YAMLHref templ.SafeURL
	// Notes say what could not be read (no managedFields, a malformed
	// entry) or was cut.
	Notes []string
}

// BlameLine is one line of the YAML and who owns it.
type BlameLine struct {
	Depth  int
	Text   string
	Owners []BlameOwner
	Dim    bool
}

// BlameOwner is one managedFields entry owning a line.
type BlameOwner struct {
	Manager     string
	Operation   string
	Subresource string
	Age, Time   string
	// Color indexes the manager's colour in the legend.
	Color int
}

// BlameManager is a manager of the legend.
type BlameManager struct {
	Name string
	// Writes are its operations, with the subresource ("Update (status)").
	Writes    []string
	Age, Time string
	// Lines is how many lines it owns.
	Lines   int
	Color   int
	Href    templ.SafeURL
	Current bool
}

// HistoryView is an object's History tab: its revisions, a diff of two,
// and a rollback to each, reviewed by the editor.
type HistoryView struct {
	Rows []RevisionRow
	// Action is the object's page, where the diff form goes; EditHref the
	// editor, which reviews a rollback.
	Action   templ.SafeURL
	EditHref templ.SafeURL
	// From and To are the revisions diffed; Diff the diff, DiffError why
	// there is none.
	From, To  string
	Diff      *Diff
	DiffError string
	Note      string
}

// RevisionRow is one revision.
type RevisionRow struct {
	Number, Object, ChangeCause, Images, Replicas string
	Age, Time                                     string
	Current                                       bool
	// DiffHref diffs it against the current revision.
	DiffHref templ.SafeURL
	// Rollback, when set, is the editor's state rolling back to it.
	Rollback *EditState
}
