package policy

import (
	"errors"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Mode chooses the bindings' validationActions.
type Mode string

const (
	// Enforce denies error findings, warns on warnings and audits info.
	Enforce Mode = "enforce"
	// WarnOnly turns every finding into a warning.
	WarnOnly Mode = "warn"
	// AuditOnly records every finding in the audit log only.
	AuditOnly Mode = "audit"
)

// ParseMode reads enforce, warn or audit.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Enforce, WarnOnly, AuditOnly:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q: want enforce, warn or audit", s)
}

// Options configures an export.
type Options struct {
	// Rules are the enabled rules, severities already applied (as lint
	// resolves them). Rules without CEL are reported as skipped.
	Rules       []*rule.Rule
	MinSeverity rule.Severity
	Cluster     *cluster.Cluster
	Model       winsupport.Model
	Mode        Mode
	// NamespaceSelector further restricts the namespaces checked.
	NamespaceSelector *metav1.LabelSelector
	// ExcludeNamespaces are never checked (kube-system by default).
	ExcludeNamespaces []string
	// ParamsNamespace holds the params ConfigMap. Empty means each
	// request's own namespace, so that namespaces can carry different
	// cluster profiles.
	ParamsNamespace string
	// Name prefixes every exported object's name; default "winkube".
	Name string
	// Fixes adds the MutatingAdmissionPolicy of the safe fixes. It runs
	// before the validating policies, which then see the fixed object:
	// what it fixes is neither denied nor warned about, and the policies
	// no longer decide as lint does on the submitted object. Off by
	// default for that reason (issue 19: a Windows Deployment without
	// its toleration was admitted silently).
	Fixes bool
}

// Skipped is a selected rule that is not exported, and why.
type Skipped struct {
	Rule, Reason string
}

// selected splits the enabled rules at or above MinSeverity into those
// with checks at the model's release and those skipped.
func (o *Options) selected() (chosen []*rule.Rule, checks map[*rule.Rule][]check, skipped []Skipped) {
	checks = map[*rule.Rule][]check{}
	for _, r := range o.Rules {
		if r.Severity < o.MinSeverity && !anyCheckAtLeast(r, o) {
			continue
		}
		e, ok := exporterOf(r)
		if !ok {
			_, why := Exportable(r.ID)
			skipped = append(skipped, Skipped{r.ID, why})
			continue
		}
		cs := e(o.Model)
		if len(cs) == 0 {
			skipped = append(skipped, Skipped{r.ID, fmt.Sprintf("cannot fire on Kubernetes %s", o.Model.V)})
			continue
		}
		var kept []check
		for _, c := range cs {
			if checkSeverity(r, c) >= o.MinSeverity {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			chosen = append(chosen, r)
			checks[r] = kept
		}
	}
	sort.SliceStable(skipped, func(i, j int) bool { return skipped[i].Rule < skipped[j].Rule })
	return chosen, checks, skipped
}

func anyCheckAtLeast(r *rule.Rule, o *Options) bool {
	e, ok := exporterOf(r)
	if !ok {
		return false
	}
	for _, c := range e(o.Model) {
		if checkSeverity(r, c) >= o.MinSeverity {
			return true
		}
	}
	return false
}

// checkSeverity is the severity of a check's findings as
// rule.Rule.SeverityOf decides a finding's: the configured one, else the
// check's own override, else the rule's.
func checkSeverity(r *rule.Rule, c check) rule.Severity {
	if r.Configured != rule.Unset {
		return r.Configured
	}
	if c.severity != nil {
		return *c.severity
	}
	return r.Severity
}

func (o *Options) defaults() {
	if o.Name == "" {
		o.Name = "winkube"
	}
	if o.Mode == "" {
		o.Mode = Enforce
	}
	if o.Cluster == nil {
		o.Cluster = cluster.Reference()
	}
}

// Validate reports every option the API server would refuse in the
// exported objects: the name prefix must make valid object names (DNS-1123
// subdomains, with the longest suffix the export adds), the params
// namespace a namespace name (or empty) and each excluded namespace a
// namespace name, as the label value the bindings select on.
func (o *Options) Validate() error {
	var errs []error
	if o.Name != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(o.Name + "-" + rule.Warning.String()) {
			errs = append(errs, fmt.Errorf("name %q: %s (the exported objects are named %s-error, %s-warning, %s-info and %s-fix)", o.Name, msg, o.Name, o.Name, o.Name, o.Name))
		}
	}
	if o.ParamsNamespace != "" {
		for _, msg := range utilvalidation.IsDNS1123Label(o.ParamsNamespace) {
			errs = append(errs, fmt.Errorf("params namespace %q: %s", o.ParamsNamespace, msg))
		}
	}
	for _, ns := range o.ExcludeNamespaces {
		for _, msg := range utilvalidation.IsDNS1123Label(ns) {
			errs = append(errs, fmt.Errorf("excluded namespace %q: %s", ns, msg))
		}
	}
	return errors.Join(errs...)
}
