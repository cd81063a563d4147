package policy

import (
	"github.com/winkube/winkube/internal/rule"
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

// exported maps rule IDs to their CEL. Expressions read the variables of
// workloadVariables; windows below means variables.os == 'windows'.
var exported = merge(placementChecks, apiChecks, linuxOnlyChecks, imageChecks)

func merge(groups ...map[string]exporter) map[string]exporter {
	out := map[string]exporter{}
	for _, g := range groups {
		for id, e := range g {
			out[id] = e
		}
	}
	return out
}

// notExportable says, for every rule of the suite without CEL, why.
var notExportable = map[string]string{
	"load-error": "reports input that could not be read; the API server decodes requests itself",

	"unknown-field":        "admission sees the decoded object, in which unknown fields are already dropped (or refused by strict field validation)",
	"removed-api-version":  "the API server refuses a version it no longer serves before any admission runs",
	"invalid-object-name":  "the API server's own validation rejects the name before validating admission policies run",
	"image-unresolved":     "needs the image registry; a policy sees only the request's object",
	"implausible-quantity": "not compiled to CEL yet",
	"legacy-node-label":    "needs the cluster's node labels (a hand-made label the nodes carry is fine); the API server already warns on the beta OS label",

	"windows-options-on-linux":         "API rejection: the API server's own validation rejects these pods before admission policies run",
	"hostprocess-consistency":          "API rejection: the API server's own validation rejects these pods before admission policies run",
	"invalid-os-name":                  "API rejection: the API server's own validation rejects these pods before admission policies run",
	"windows-username-format":          "API rejection: the API server's own validation rejects these pods before admission policies run",
	"gmsa-credential-spec-name-format": "API rejection: the API server's own validation rejects these pods before admission policies run",

	"image-build-mismatch":            "needs each image's Windows build from the tag tables (with the per-repository tag exceptions) against the reachable pools' builds; not compiled to CEL yet",
	"hyperv-runtimeclass":             "needs the RuntimeClass object the workload names; a policy sees only the request's object",
	"runtimeclass-isolation-mismatch": "checks RuntimeClass objects against their handlers; the exported policies match workloads only",

	"windows-missing-startup-probe": "needs the image size table (large Windows base images); not compiled to CEL yet",

	"windows-service-external-traffic-local":   "needs other objects: a Service against the pods its selector matches",
	"windows-service-session-affinity":         "needs other objects: a Service against the pods its selector matches",
	"windows-service-session-affinity-timeout": "needs other objects: a Service against the pods its selector matches",
	"windows-service-ipv6-single-stack":        "needs other objects: a Service against the pods its selector matches",
	"gmsa-missing-credential-spec-name":        "not compiled to CEL yet",

	"windows-pool-untainted": "checks node pools kept as code (Karpenter NodePools, eksctl ClusterConfig); the exported policies match workloads only",
}

// Exportable reports whether the rule has CEL and, if not, why.
func Exportable(id string) (bool, string) {
	if _, ok := exported[id]; ok {
		return true, ""
	}
	if why, ok := notExportable[id]; ok {
		return false, why
	}
	return false, "not in the policy table"
}

// Covers reports whether the exported policies check the rule at the
// model's release.
func Covers(id string, m winsupport.Model) bool {
	e, ok := exported[id]
	return ok && len(e(m)) > 0
}
