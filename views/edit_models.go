package views

import "github.com/a-h/templ"

// ObjectRef names the object a write page is about, with ways back.
type ObjectRef struct {
	Kind         string
	Name         string // "" on the create page until the text names one
	Namespace    string
	GroupVersion string
	ObjectHref   templ.SafeURL // "" when the object does not exist (yet)
	ListHref     templ.SafeURL
}

// EditState is what an edit carries from page to page (editor, review,
// conflict) in hidden fields, so the user's text survives every path.
type EditState struct {
	// ResourceVersion is the version Base was loaded at: the precondition.
	ResourceVersion string
	// Base is the editor text of the object as loaded; the patch is
	// computed from it, so it is never re-fetched (and cannot drift).
	Base string
	// Text is the user's text.
	Text string
	// SecretSet are new values the user typed for a Secret's keys, and
	// SecretRemove the keys to delete. Values never come from the server
	// unless revealed.
	SecretSet    []SecretValue
	SecretRemove []string
	// Namespace is where a new object goes when its text names none.
	Namespace string
}

// SecretValue is one key's new value.
type SecretValue struct {
	Key, Value string
}

// EditorPage is the YAML editor of an object, or of a new one.
type EditorPage struct {
	Layout Layout
	Object ObjectRef
	Create bool
	Action templ.SafeURL
	State  EditState
	// StatusYAML is the object's status, shown read-only on request.
	StatusYAML string
	// SchemaURL serves the kind's OpenAPI schema for field help ("" none).
	SchemaURL string
	// DraftKey is where the browser keeps the unsaved text.
	DraftKey string
	// LiveURL follows the object while the editor is open ("" none).
	LiveURL string
	Error   *EditError
	Notice  string
	// Secret lists a Secret's keys with masked values.
	Secret *SecretForm
	// Namespaces feed the create page's namespace choice.
	Namespaced bool
}

// EditError is why the last attempt failed, shown beside the text.
type EditError struct {
	Title   string
	Code    int
	Reason  string
	Message string
	// Line and Column locate a YAML syntax error (1-based; 0 unknown).
	Line, Column int
	Causes       []EditCause
	Links        []Link
}

// EditCause is one StatusCause, mapped to a line of the text when found.
type EditCause struct {
	Field, Reason, Message string
	Line                   int
}

// SecretForm edits a Secret's data without pre-filling any value.
type SecretForm struct {
	Keys []SecretKey
}

// SecretKey is one data key.
type SecretKey struct {
	Key  string
	Size int // decoded bytes
	// Revealed holds the value when the user asked to see it.
	Revealed bool
	Value    string
	// Binary values cannot be shown or edited as text.
	Binary bool
	// NewValue is what the user typed (kept across round trips).
	NewValue string
	Remove   bool
}

// ChangeRow is one path a patch sets or removes.
type ChangeRow struct {
	Path    string
	Removed bool
	Value   string
}

// DiffHunk is part of a line diff.
type DiffHunk struct {
	Header string
	Lines  []DiffLine
}

// DiffLine is one line of a diff: Op is "add", "del" or "ctx".
type DiffLine struct {
	Op       string
	Old, New string // line numbers, "" when not on that side
	Text     string
}

// Diff is a titled line diff.
type Diff struct {
	Title          string
	Hunks          []DiffHunk
	Added, Removed int
	// Empty says why there are no hunks.
	Empty string
}

// ReviewPage shows what a save will do before it is done: the patch and
// the server's dry-run result against the live object.
type ReviewPage struct {
	Layout Layout
	Object ObjectRef
	Create bool
	Action templ.SafeURL
	State  EditState
	// PatchType says which patch was sent to the dry run.
	PatchType string
	Patch     string
	Changes   []ChangeRow
	// ReplacesArrays is set when the patch sets a list: merge patches
	// replace lists whole.
	ReplacesArrays bool
	DryRun         Diff
	// SecretChanges name the data keys set or removed (never values).
	SecretChanges []ChangeRow
	// Reapplied is the version the change was re-applied on, after a
	// conflict; Overwrites lists what of their change is undone.
	Reapplied  string
	Overwrites []ChangeRow
}

// ConflictPage is a 409: someone changed the object since it was loaded.
type ConflictPage struct {
	Layout   Layout
	Object   ObjectRef
	Action   templ.SafeURL
	EditHref templ.SafeURL
	State    EditState
	LoadedRV string
	LiveRV   string
	// ChangedBy names the last writer from managedFields, if known.
	ChangedBy string
	Mine      []ChangeRow
	MinePatch string
	Theirs    []ChangeRow
	TheirDiff Diff
	Conflicts []ConflictRow
	// Lost is what overwriting would undo.
	Lost []ChangeRow
	// Deleted: the object is gone, so nothing can be re-applied.
	Deleted bool
	// SecretDataUnknown: the user set or removed Secret data keys, whose
	// loaded values the console never had, so it cannot tell whether their
	// change touched the same keys.
	SecretDataUnknown bool
}

// ConflictRow is one path both changes touch.
type ConflictRow struct {
	Path, Loaded, Theirs, Mine string
}

// DeletePage confirms a deletion.
type DeletePage struct {
	Layout          Layout
	Object          ObjectRef
	Action          templ.SafeURL
	ResourceVersion string
	Propagation     string
	GracePeriod     string
	Finalizers      []string
	Error           *EditError
}

// DeleteResult is what the server answered to DELETE.
type DeleteResult struct {
	Layout Layout
	Object ObjectRef
	// Status is set when the server answered a Status.
	Status *StatusView
	// Pending is set when the object remains, marked for deletion.
	Pending *PendingDeletion
	// Body is the answer as YAML.
	Body string
}

// StatusView is a metav1.Status.
type StatusView struct {
	Status, Reason, Message string
	Details                 []Field
}

// PendingDeletion is an object kept by finalizers.
type PendingDeletion struct {
	DeletionTimestamp string
	Finalizers        []string
}

// ScalePage sets replicas through the scale subresource.
type ScalePage struct {
	Layout          Layout
	Object          ObjectRef
	Action          templ.SafeURL
	ResourceVersion string
	Desired         int32
	Current         int32
	Requested       string
	Error           *EditError
}
