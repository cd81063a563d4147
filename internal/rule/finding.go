package rule

import "github.com/winkube/winkube/internal/manifest"

// Finding is one problem a rule reported.
type Finding struct {
	Rule     string
	Severity Severity
	Message  string
	// Hint says what to do, when the message (kept in the API server's
	// wording) does not.
	Hint string
	// Path is the field path in the API server's notation, relative to the
	// object: spec.template.spec.containers[0].securityContext.privileged.
	Path   string
	Object *manifest.Object
	// File, Line and Column locate the finding; the engine fills them in
	// from Object and Path.
	File         string
	Line, Column int
	Fix          *Fix
	Suppressed   bool
	// Related are further places the finding concerns: for an input
	// rendered from a Helm chart or a kustomization, File and Line are
	// the template or base line and Related holds the rendered position.
	Related []Location
}

// Location is a position in a file with a note saying what is there.
type Location struct {
	File         string
	Line, Column int
	Message      string
}

// WithSeverity returns f reporting at s instead of the rule's default.
func (f Finding) WithSeverity(s Severity) Finding {
	f.Severity = s
	return f
}

// Fix repairs a finding by editing fields.
type Fix struct {
	Title string // what the fix does, shown in diffs and patches
	// Safe fixes are applied by default. Fixes that change security
	// posture (removing Linux-only security fields, replacing privileged
	// with HostProcess) need --unsafe or a per-rule opt-in.
	Safe  bool
	Edits []Edit
}

// Op is the kind of an Edit.
type Op string

const (
	// Set sets the field at Path to Value, creating parents.
	Set Op = "set"
	// Remove deletes the field at Path.
	Remove Op = "remove"
	// Append adds Value to the list at Path, creating it, unless an equal
	// element is already there.
	Append Op = "append"
)

// Edit is one field change. Path is in the API server's notation relative
// to the object root; Value is a JSON-compatible value (string, bool,
// int64, float64, map[string]any, []any).
type Edit struct {
	Op    Op
	Path  string
	Value any
}
