package policy

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// check is one validation of an exported rule: expr is true when the rule
// reports the workload, detail a CEL string for the message.
type check struct {
	expr   string
	detail string
	// severity, when set, overrides the rule's for this check, as a
	// finding's WithSeverity does (missing-os-pin is an error for a
	// Windows workload).
	severity *rule.Severity
}

func sev(s rule.Severity) *rule.Severity { return &s }

// exporter returns a rule's checks for a Kubernetes release; none when the
// rule cannot fire there (a feature the release always has).
type exporter func(m winsupport.Model) []check

// exported maps rules, by value, to their CEL: adding a rule to the
// suite shows here whether it is exported (TestEveryRuleExportedOrExplained
// fails until it is in this table or in notExportable). Expressions read
// the variables of workloadVariables; windows below means
// variables.os == 'windows'.
var exported = merge(placementChecks, apiChecks, linuxOnlyChecks, imageChecks, identityChecks, networkChecks, hostProcessChecks)

func merge(groups ...map[*rule.Rule]exporter) map[*rule.Rule]exporter {
	out := map[*rule.Rule]exporter{}
	for _, g := range groups {
		for r, e := range g {
			out[r] = e
		}
	}
	return out
}

// suiteRule is the suite's value a rule is, or copies: config.Apply
// re-grades a rule by copying it, and the copy keeps the ID.
func suiteRule(r *rule.Rule) *rule.Rule {
	if _, ok := exported[r]; ok {
		return r
	}
	if _, ok := notExportable[r]; ok {
		return r
	}
	for s := range exported {
		if s.ID == r.ID {
			return s
		}
	}
	for s := range notExportable {
		if s.ID == r.ID {
			return s
		}
	}
	return r
}

// exporterOf is the rule's CEL, if it has any.
func exporterOf(r *rule.Rule) (exporter, bool) {
	e, ok := exported[suiteRule(r)]
	return e, ok
}

// notExportable says, for every rule of the suite without CEL, why.
var notExportable = map[*rule.Rule]string{
	rules.LoadError:                  "reports input that could not be read; the API server decodes requests itself",
	rules.WindowsTemplateNotRendered: "reports a chart template that rendered nothing with the values linted; an admission request holds an object, never a chart",

	rules.UnknownField:        "admission sees the decoded object, in which unknown fields are already dropped (or refused by strict field validation)",
	rules.RemovedAPIVersion:   "the API server refuses a version it no longer serves before any admission runs",
	rules.InvalidObjectName:   "the API server's own validation rejects the name before validating admission policies run",
	rules.ImageUnresolved:     "needs the image registry; a policy sees only the request's object",
	rules.HostProcessBuildPin: "names the Windows builds a HostProcess DaemonSet's windows-build pin leaves out: the cluster profile's Windows pools, or with none the builds the Kubernetes release supports, read from winkube's table of Windows Server releases; not compiled to CEL yet",
	rules.ImplausibleQuantity: "fires on workloads of any OS, so the skip of workloads no rule can fire on would have to read every container's memory quantities, and its message prints the byte count as Go's %.3f of a float, whose ties CEL does not round alike; not compiled to CEL yet",
	rules.LegacyNodeLabel:     "needs the cluster's node labels (a hand-made label the nodes carry is fine); the API server already warns on the beta OS label",

	rules.WindowsOptionsOnLinux:        "API rejection: the API server's own validation rejects these pods before admission policies run",
	rules.HostProcessConsistency:       "API rejection: the API server's own validation rejects these pods before admission policies run",
	rules.InvalidOSName:                "API rejection: the API server's own validation rejects these pods before admission policies run",
	rules.WindowsUsernameFormat:        "API rejection: the API server's own validation rejects these pods before admission policies run",
	rules.GMSACredentialSpecNameFormat: "API rejection: the API server's own validation rejects these pods before admission policies run",

	rules.HyperVRuntimeClass:            "needs the RuntimeClass object the workload names; a policy sees only the request's object",
	rules.RuntimeClassIsolationMismatch: "checks RuntimeClass objects against their handlers; the exported policies match workloads only",
	rules.RuntimeClassBuildUnsupported:  "checks RuntimeClass objects' own scheduling pins; the exported policies match workloads only (a workload naming the class is windows-build-unsupported's)",

	rules.WindowsServiceExternalTrafficLocal:   "needs other objects: a Service against the pods its selector matches",
	rules.WindowsServiceSessionAffinity:        "needs other objects: a Service against the pods its selector matches",
	rules.WindowsServiceSessionAffinityTimeout: "needs other objects: a Service against the pods its selector matches",
	rules.WindowsServiceIPv6SingleStack:        "needs other objects: a Service against the pods its selector matches",

	rules.WindowsPoolUntainted: "checks node pools kept as code (Karpenter NodePools, eksctl ClusterConfig); the exported policies match workloads only",

	rules.SelectorTemplateMismatch: "API rejection: the API server's own validation rejects these objects before admission policies run",
	rules.OSLabelTypo:              "needs the cluster's node labels (a key the nodes carry is not a typo) and an edit distance to the known OS label keys, which CEL cannot compute",

	rules.WindowsDNSPartialNameConfig:     "needs other objects: the ConfigMaps a workload reads",
	rules.WindowsNetworkPolicyNotEnforced: "needs other objects: a NetworkPolicy against the workloads its selector matches",
	rules.WindowsServiceBackendLimit:      "needs other objects: a Service against the replicas of the workloads its selector matches",
	rules.WindowsServiceDualStack:         "needs other objects: a Service against the pods its selector matches, and the pools' network mode",

	rules.WindowsNetworkPolicyUntranslated: "needs other objects and the profile: a NetworkPolicy against the workloads its selector matches, and each Windows pool's policy engine",
}

// exportedInPart says, for an exported rule whose CEL leaves out part of
// what lint reports, which part and why.
var exportedInPart = map[*rule.Rule]string{
	rules.WindowsDNSPartialName:        serviceNamespaceForm,
	rules.WindowsHostProcessClusterDNS: serviceNamespaceForm,
}

const serviceNamespaceForm = "names of the service.namespace form (kubernetes.default aside) are left out: such a name is a Service name only where the input holds that Service, which a policy does not see (lint, given the request's object alone, does not report them either)"

// Exportable reports whether the rule with the ID has CEL and, if not,
// why; for an exported rule, what its CEL leaves out, if anything. (By
// ID for the docs generator, which lists IDs.)
func Exportable(id string) (bool, string) {
	r := suiteRule(&rule.Rule{ID: id})
	if _, ok := exported[r]; ok {
		return true, exportedInPart[r]
	}
	if why, ok := notExportable[r]; ok {
		return false, why
	}
	return false, "not in the policy table"
}

// Covers reports whether the exported policies check the rule with the
// ID at the model's release.
func Covers(id string, m winsupport.Model) bool {
	e, ok := exporterOf(&rule.Rule{ID: id})
	return ok && len(e(m)) > 0
}
