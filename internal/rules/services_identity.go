package rules

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
)

// Legacy gMSA annotations of the v1.14 alpha, replaced by the
// windowsOptions fields (beta 1.16, GA 1.18): a pod-wide pair and a
// per-container pair prefixed with the container's name. Exported for
// the policies' CEL.
const (
	GMSAPodAnnotation       = "pod.alpha.windows.kubernetes.io/gmsa-credential-spec"
	GMSAContainerAnnotation = ".container.alpha.windows.kubernetes.io/gmsa-credential-spec"
	GMSANameSuffix          = "-name"
)

// The messages of gmsa-missing-credential-spec-name, which the exported
// CEL builds from too: the first is the gMSA webhook's, with the object
// kind and name.
const (
	GMSAInlinedWithoutNameMsg = "%s %q has a GMSA cred spec set, but does not define the name of the corresponding resource"
	GMSALegacyAnnotationMsg   = "legacy alpha gMSA annotation %q is not read by current kubelets or the gMSA webhook; use securityContext.windowsOptions.gmsaCredentialSpecName"
)

// GMSAMissingCredentialSpecName: gMSA configured without naming the
// GMSACredentialSpec resource.
var GMSAMissingCredentialSpecName = &rule.Rule{
	ID:       "gmsa-missing-credential-spec-name",
	Title:    "gMSA is configured without a credential spec name",
	Severity: rule.Warning,
	Category: rule.Identity,
	Doc: rule.Doc{
		What: "Reports pod templates that use a Group Managed Service Account without securityContext.windowsOptions.gmsaCredentialSpecName: the inlined credential spec (gmsaCredentialSpec, which the gMSA webhook writes) set without the name, at pod or container level, or the legacy alpha annotations pod.alpha.windows.kubernetes.io/gmsa-credential-spec(-name) and <container>.container.alpha.windows.kubernetes.io/gmsa-credential-spec(-name) used instead of the fields.",
		Why:  "The gMSA admission webhook resolves gmsaCredentialSpecName to a GMSACredentialSpec resource, checks that the pod's service account may use it and inlines its contents; it rejects a pod that carries contents without a name. The alpha annotations of Kubernetes 1.14 are not read by current kubelets or by the webhook, so a pod using them runs without its Active Directory identity.",
		Fix:  "Set securityContext.windowsOptions.gmsaCredentialSpecName to the GMSACredentialSpec resource and leave gmsaCredentialSpec to the webhook; replace the annotations with the field (winkube fix --unsafe moves a -name annotation's value into the field).",
		Sources: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-gmsa/ (gMSA: the webhook handles credential spec injection; pods reference gmsaCredentialSpecName)",
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-gmsa/ (gMSA needs CRDs and webhook admission controllers)",
			"https://github.com/kubernetes-sigs/windows-gmsa/blob/master/admission-webhook/webhook.go (validateCreateRequest)",
			"k8s.io/api core/v1 WindowsSecurityContextOptions (GMSACredentialSpec is where the webhook inlines the spec named by GMSACredentialSpecName)",
		},
	},
	Workload: func(p *rule.Pass) {
		s, base := p.Workload.Spec, p.Workload.SpecPath
		name := p.Object.Name
		if s.SecurityContext != nil {
			gmsaInlinedWithoutName(p, s.SecurityContext.WindowsOptions, base.Child("securityContext"), "pod", name)
		}
		visit := func(kind string, cs []corev1.Container, path *field.Path) {
			for i := range cs {
				if sc := cs[i].SecurityContext; sc != nil {
					gmsaInlinedWithoutName(p, sc.WindowsOptions, path.Index(i).Child("securityContext"), kind, cs[i].Name)
				}
			}
		}
		visit("initContainer", s.InitContainers, base.Child("initContainers"))
		visit("container", s.Containers, base.Child("containers"))
		gmsaLegacyAnnotations(p)
	},
}

// gmsaInlinedWithoutName reports credential spec contents without a name, in
// the gMSA webhook's words.
func gmsaInlinedWithoutName(p *rule.Pass, wo *corev1.WindowsSecurityContextOptions, sc *field.Path, kind, name string) {
	if wo == nil || wo.GMSACredentialSpec == nil || wo.GMSACredentialSpecName != nil {
		return
	}
	p.Report(rule.Finding{
		Path:    rule.Path(sc.Child("windowsOptions", "gmsaCredentialSpec")),
		Message: fmt.Sprintf(GMSAInlinedWithoutNameMsg, kind, name),
		Hint:    "set windowsOptions.gmsaCredentialSpecName to the GMSACredentialSpec resource and let the gMSA webhook inline its contents",
	})
}

// gmsaLegacyAnnotations reports the alpha annotations on the pod template, in
// key order so findings on one line keep a stable order.
func gmsaLegacyAnnotations(p *rule.Pass) {
	ann := p.Workload.Template.Annotations
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	meta := strings.TrimSuffix(rule.Path(p.Workload.SpecPath), "spec") + "metadata"
	for _, k := range keys {
		scope, ok := gmsaLegacyScope(p, k)
		if !ok {
			continue
		}
		path := meta + ".annotations[" + k + "]"
		f := rule.Finding{Path: path,
			Message: fmt.Sprintf(GMSALegacyAnnotationMsg, k),
			Hint:    "name the GMSACredentialSpec resource in windowsOptions.gmsaCredentialSpecName and remove the annotation"}
		f.Fix = gmsaLegacyFix(k, ann[k], path, scope)
		p.Report(f)
	}
}

// gmsaLegacyScope returns the securityContext path a legacy annotation stands
// for: the pod's, or the named container's (nil when no container has the
// name).
func gmsaLegacyScope(p *rule.Pass, key string) (*field.Path, bool) {
	base := strings.TrimSuffix(key, GMSANameSuffix)
	if base == GMSAPodAnnotation {
		return p.Workload.SpecPath.Child("securityContext"), true
	}
	ctr, ok := strings.CutSuffix(base, GMSAContainerAnnotation)
	if !ok || ctr == "" {
		return nil, false
	}
	for i, c := range p.Workload.Spec.Containers {
		if c.Name == ctr {
			return p.Workload.SpecPath.Child("containers").Index(i).Child("securityContext"), true
		}
	}
	for i, c := range p.Workload.Spec.InitContainers {
		if c.Name == ctr {
			return p.Workload.SpecPath.Child("initContainers").Index(i).Child("securityContext"), true
		}
	}
	return nil, true
}

// gmsaLegacyFix moves a -name annotation's value into the field. It is unsafe:
// the pod gains an Active Directory identity it did not have. The contents
// annotations name no resource, so they get no fix.
func gmsaLegacyFix(key, value, path string, scope *field.Path) *rule.Fix {
	if !strings.HasSuffix(key, GMSANameSuffix) || scope == nil || value == "" {
		return nil
	}
	return &rule.Fix{Title: "move " + key + " into gmsaCredentialSpecName", Edits: []rule.Edit{
		{Op: rule.Set, Path: rule.Path(scope.Child("windowsOptions", "gmsaCredentialSpecName")), Value: value},
		{Op: rule.Remove, Path: path},
	}}
}
