package webhook

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/manifest"
)

// Endpoints.
const (
	validateEndpoint = "validate"
	mutateEndpoint   = "mutate"
)

// supportedKind: the webhook checks the kinds that create pods
// (manifest.WorkloadKinds), at their current API versions.
func supportedKind(k metav1.GroupVersionKind) bool { return slices.Contains(manifest.WorkloadKinds, k) }

// badRequest is a review the webhook cannot read; it is answered 400.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

// decision is the outcome of one request.
type decision struct {
	resp   *admissionv1.AdmissionResponse
	result string // for the requests metric
	why    string // for the log: why it was skipped, or what was done
	rules  []string
}

// admit decides one admission request against the current policy.
func (s *server) admit(endpoint string, req *admissionv1.AdmissionRequest, log *slog.Logger) (decision, error) {
	p := s.policy.Load()
	d := decision{resp: &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}, result: resultSkipped}
	switch {
	case req.Operation != admissionv1.Create && req.Operation != admissionv1.Update:
		d.why = "operation " + string(req.Operation)
		return d, nil
	case req.SubResource != "":
		d.why = "subresource " + req.SubResource
		return d, nil
	case !supportedKind(req.Kind):
		d.why = "kind " + req.Kind.String()
		return d, nil
	case !p.namespaceChecked(req.Namespace):
		d.why = "namespace " + req.Namespace + " excluded"
		return d, nil
	}
	obj, err := decodeObject(objectFile, req.Object.Raw, req.Namespace)
	if err != nil {
		return d, badRequest{err.Error()}
	}
	var old *manifest.Object
	sets := []map[string]string{labelsOf(obj)}
	if req.Operation == admissionv1.Update {
		if old, err = decodeObject("request.oldObject", req.OldObject.Raw, req.Namespace); err != nil {
			return d, badRequest{err.Error()}
		}
		sets = append(sets, labelsOf(old))
	}
	switch {
	case obj.Workload().Meta.DeletionTimestamp != nil:
		d.why = "being deleted" // never block finalizer removal
		return d, nil
	case !p.selects(sets...):
		d.why = "objectSelector does not match"
		return d, nil
	case !p.checkControlled && controlledPod(obj):
		d.why = "pod of a checked controller"
		return d, nil
	}
	if endpoint == mutateEndpoint {
		return s.mutateDecision(p, req, obj, old, log)
	}
	return s.validateDecision(p, obj, old), nil
}

func labelsOf(o *manifest.Object) map[string]string { return o.Workload().Meta.Labels }

func (s *server) mutateDecision(p *policy, req *admissionv1.AdmissionRequest, obj, old *manifest.Object, log *slog.Logger) (decision, error) {
	d := decision{resp: &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}, result: resultAllowed}
	switch {
	case p.mode == Warn:
		d.why = "warn mode"
		return d, nil
	case obj.Kind == "Pod" && old != nil:
		d.why = "pod update" // pod specs are mostly immutable
		return d, nil
	}
	m, err := p.mutate(req.Object.Raw, obj, p.preexisting(old), func(msg string, args ...any) { log.Warn(msg, args...) })
	if err != nil {
		return d, badRequest{err.Error()}
	}
	if len(m.ops) == 0 {
		return d, nil
	}
	patch, err := json.Marshal(m.ops)
	if err != nil {
		return d, err
	}
	pt := admissionv1.PatchTypeJSONPatch
	d.resp.Patch, d.resp.PatchType = patch, &pt
	d.resp.AuditAnnotations = map[string]string{"fixed-by": strings.Join(m.rules, ",")}
	d.result, d.rules = resultMutated, m.rules
	for _, r := range m.rules {
		s.metrics.mutations.WithLabelValues(r).Inc()
	}
	return d, nil
}

func (s *server) validateDecision(p *policy, obj, old *manifest.Object) decision {
	fs := p.check(obj)
	var prior map[string]bool
	if len(fs) > 0 {
		prior = p.preexisting(old)
	}
	v := judge(p.mode, fs, prior)
	d := decision{resp: &admissionv1.AdmissionResponse{Allowed: true}, result: resultAllowed}
	if len(v.warnings) > 0 {
		d.resp.Warnings = warningTexts(v.warnings)
		d.result = resultWarned
		for _, f := range v.warnings {
			s.metrics.warnings.WithLabelValues(f.Rule).Inc()
		}
	}
	if len(v.denied) > 0 {
		d.resp.Allowed = false
		d.resp.Result = denial(v.denied)
		d.result = resultDenied
		for _, f := range v.denied {
			s.metrics.denials.WithLabelValues(f.Rule).Inc()
			d.rules = append(d.rules, f.Rule)
		}
	}
	return d
}
