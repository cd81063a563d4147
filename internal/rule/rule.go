package rule

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Severity orders findings; --fail-on compares against it. The zero
// value is Unset, so that info is a severity a rule, a finding or a
// config can choose like any other: an Unset finding takes its rule's
// severity, and a rule must set one.
type Severity int

const (
	Unset Severity = iota
	Info
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return "unset"
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return Unset, fmt.Errorf("unknown severity %q: want error, warning or info", s)
}

// MarshalText writes the severity's name; Unset has none.
func (s Severity) MarshalText() ([]byte, error) {
	if s == Unset {
		return nil, fmt.Errorf("severity is unset")
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Category groups rules in the catalogue.
type Category string

const (
	Input      Category = "input"
	Placement  Category = "placement"
	API        Category = "api-rejection"
	LinuxOnly  Category = "linux-only"
	Images     Category = "images"
	Resources  Category = "resources"
	Networking Category = "services"
	Identity   Category = "identity"
	// NodeConfig rules check a Windows node's own configuration files
	// (kubelet, kube-proxy, containerd, CNI); package nodeconfig runs them.
	NodeConfig Category = "node-config"
)

// Doc explains a rule to its reader.
type Doc struct {
	What    string   // what the rule checks
	Why     string   // why it matters on Windows
	Fix     string   // how to fix a finding
	Sources []string // seeds and upstream code or docs it rests on
}

// Rule is one check. A lint rule sets exactly one of Workload, Object
// and Corpus; a node-config or audit node rule sets Run.
type Rule struct {
	ID       string // kebab-case, stable forever
	Title    string
	Severity Severity // of its findings, unless a finding sets its own
	// Configured is the severity a config gives every finding of the
	// rule, its own choices included; Unset leaves them to the rule.
	Configured Severity
	Category   Category
	// Family is what the rule inspects; the zero value is Lint.
	Family Family
	Doc    Doc
	// Workload runs once per object with a pod template.
	Workload func(*Pass)
	// Object runs once per object whose kind is in Kinds.
	Object func(*Pass)
	Kinds  []string
	// Corpus runs once, after every object has been read.
	Corpus func(*CorpusPass)
	// Run is the run function of a rule of another family: a node-config
	// rule's nodeconfig.Run, an audit node rule's audit.Run. Its pass type
	// lives in the family's package, which runs it.
	Run Runner
}

// Runner is a run function whose pass type lives in the package of the
// family that runs it (nodeconfig.Run, audit.Run). It keeps the run inside
// the rule value, as go/analysis keeps Run inside Analyzer, without
// package rule importing the families.
type Runner interface {
	// Family is the family whose package runs the function.
	Family() Family
}

// Pass is what a rule sees of one object.
type Pass struct {
	Rule     *Rule
	Object   *manifest.Object
	Workload *manifest.Workload // nil for Object rules
	Target   *target.Facts      // nil for Object rules
	Cluster  *cluster.Cluster
	Model    winsupport.Model
	// Images answers what a registry says of an image reference; nil
	// unless the run resolves images (--resolve-images).
	Images ImageLookup
	Emit   func(Finding)
	// Defer holds a finding until the whole input is read (see Later);
	// set by the engine's runs, nil where an object is checked alone.
	Defer func(Finding, Decide)
}

// ImageLookup resolves an image reference to its digest and platforms.
// The registry package implements it; rules stay registry-agnostic and
// tests use an in-memory map. Implementations are safe for concurrent use
// and answer each reference once per run.
type ImageLookup interface {
	Lookup(ref string) (*winsupport.ResolvedImage, error)
}

// Reportf reports a finding at path with the rule's severity.
func (p *Pass) Reportf(path *field.Path, format string, args ...any) {
	p.Report(Finding{Path: pathString(path), Message: fmt.Sprintf(format, args...)})
}

// Report reports a finding. Rule, Object and Severity are filled in: set
// Severity (or use WithSeverity) to report this finding at another
// severity than the rule's; a configured severity wins over both.
func (p *Pass) Report(f Finding) {
	f.Rule = p.Rule.ID
	f.Severity = p.Rule.SeverityOf(f)
	f.Object = p.Object
	p.Emit(f)
}

func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
}

// Path renders a field path as the API server does; rules use it to fill
// Finding.Path.
func Path(p *field.Path) string { return pathString(p) }

// Summary is what a Corpus rule knows of a workload after its object has
// been released.
type Summary struct {
	Kind, Namespace, Name string
	Labels                map[string]string // pod template labels
	OS                    target.OS
	// Replicas is the workload's manifest.Workload.Replicas (0 for a
	// DaemonSet: one per node).
	Replicas int32
	// ConfigMaps names the ConfigMaps the pods read: volumes (projected
	// too), envFrom and configMapKeyRef.
	ConfigMaps []string
	// HostProcess: the pods run HostProcess containers; DNSPolicy is the
	// pod's dnsPolicy as written (empty: ClusterFirst).
	HostProcess bool
	DNSPolicy   string
}

// CorpusPass is what a Corpus rule sees: every Service, NetworkPolicy and
// ConfigMap object and a summary of every workload.
type CorpusPass struct {
	Rule            *Rule
	Services        []*manifest.Object
	NetworkPolicies []*manifest.Object
	ConfigMaps      []*manifest.Object
	Workloads       []Summary
	Cluster         *cluster.Cluster
	Model           winsupport.Model
	Emit            func(Finding)
}

// Report reports a finding on obj.
func (p *CorpusPass) Report(obj *manifest.Object, f Finding) {
	f.Rule = p.Rule.ID
	f.Severity = p.Rule.SeverityOf(f)
	f.Object = obj
	p.Emit(f)
}

// SeverityOf is the severity a finding of the rule is reported at: the
// configured one if any, else the finding's own, else the rule's.
func (r *Rule) SeverityOf(f Finding) Severity {
	switch {
	case r.Configured != Unset:
		return r.Configured
	case f.Severity != Unset:
		return f.Severity
	}
	return r.Severity
}

// UserLookup is an ImageLookup that can also read the user an image's
// config names (the registry package's Resolver is one).
type UserLookup interface {
	ImageUser(ref string) winsupport.ImageUser
}

// ImageUser is the user ref's config names: from the registry when
// images can say, else from the model's table of well-known images, else
// unknown (Known false).
func ImageUser(images ImageLookup, m winsupport.Model, ref string) winsupport.ImageUser {
	if u, ok := images.(UserLookup); ok && images != nil && ref != "" {
		if got := u.ImageUser(ref); got.Known {
			return got
		}
	}
	return m.ImageUser(ref)
}
