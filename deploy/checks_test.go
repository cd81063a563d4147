package deploy

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// lintAtWarning runs the full suite against the reference cluster over the
// paths ("-" reads stdin from the given text) and returns the findings at
// warning or above.
func lintAtWarning(t *testing.T, path string, stdin ...string) []rule.Finding {
	t.Helper()
	ins, errs := manifest.Inputs([]string{path}, strings.NewReader(strings.Join(stdin, "")))
	for _, e := range errs {
		t.Fatal(e)
	}
	res, err := engine.Run(context.Background(), ins, engine.Options{
		Rules: rules.Suite(), Cluster: cluster.Reference(), Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects == 0 {
		t.Fatalf("lint saw no objects in %s", path)
	}
	var out []rule.Finding
	for _, f := range res.Findings {
		if f.Severity >= rule.Warning {
			out = append(out, f)
		}
	}
	return out
}

// checkDeployment holds the webhook's Deployment to the requirements in
// README.md: Linux only, two replicas spread over nodes, restricted
// security context, probes, resources, and files for config and TLS.
func checkDeployment(t *testing.T, d *appsv1.Deployment, secret, configMap string) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	if pod.NodeSelector[corev1.LabelOSStable] != "linux" {
		t.Errorf("nodeSelector = %v, want kubernetes.io/os: linux", pod.NodeSelector)
	}
	if pod.OS == nil || pod.OS.Name != corev1.Linux {
		t.Errorf("spec.os = %v, want name linux", pod.OS)
	}
	for _, tol := range pod.Tolerations {
		if tol.Operator == corev1.TolerationOpExists && tol.Key == "" || tol.Key == "os" {
			t.Errorf("toleration %+v would let the pod onto Windows nodes", tol)
		}
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("pod: automountServiceAccountToken must be false; the webhook does not call the API server")
	}
	checkAntiAffinity(t, d)
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser", psc)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod securityContext: want seccompProfile RuntimeDefault")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	checkContainer(t, pod.Containers[0])
	checkVolumes(t, pod, secret, configMap)
}

func checkAntiAffinity(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	a := d.Spec.Template.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		t.Error("no podAntiAffinity: both replicas may share a node")
		return
	}
	terms := a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	for _, w := range terms {
		term := w.PodAffinityTerm
		if term.TopologyKey == corev1.LabelHostname && term.LabelSelector != nil &&
			subset(term.LabelSelector.MatchLabels, d.Spec.Template.Labels) {
			return
		}
	}
	t.Errorf("podAntiAffinity %+v does not spread the pods over kubernetes.io/hostname", a.PodAntiAffinity)
}

func checkContainer(t *testing.T, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("container has no securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("container: allowPrivilegeEscalation must be false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("container: readOnlyRootFilesystem must be true")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("container capabilities %+v: want drop [ALL], nothing added", sc.Capabilities)
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Requests[res]; !ok {
			t.Errorf("container: no %s request", res)
		}
		if _, ok := c.Resources.Limits[res]; !ok {
			t.Errorf("container: no %s limit", res)
		}
	}
	for name, p := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != name || p.HTTPGet.Scheme != corev1.URISchemeHTTPS {
			t.Errorf("probe for %s: got %+v, want an HTTPS GET of %s", name, p, name)
		}
	}
}

// checkVolumes wants the TLS Secret and the ConfigMap mounted as whole
// directories: a subPath mount is never refreshed, and both are reloaded.
func checkVolumes(t *testing.T, pod corev1.PodSpec, secret, configMap string) {
	t.Helper()
	sources := map[string]string{}
	for _, v := range pod.Volumes {
		switch {
		case v.Secret != nil:
			sources[v.Name] = "secret/" + v.Secret.SecretName
		case v.ConfigMap != nil:
			sources[v.Name] = "configmap/" + v.ConfigMap.Name
		}
	}
	mounted := map[string]bool{}
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" {
			t.Errorf("volume %s is mounted with a subPath and will not see updates", m.Name)
		}
		if !m.ReadOnly {
			t.Errorf("volume %s is mounted read-write", m.Name)
		}
		mounted[sources[m.Name]] = true
	}
	for _, want := range []string{"secret/" + secret, "configmap/" + configMap} {
		if !mounted[want] {
			t.Errorf("%s is not mounted; mounts: %v", want, mounted)
		}
	}
	args := strings.Join(pod.Containers[0].Args, " ")
	for _, flag := range []string{"--tls-cert=", "--tls-key=", "--config="} {
		if !strings.Contains(args, flag) {
			t.Errorf("args %q lack %s", args, flag)
		}
	}
}

// checkRegistrations holds both webhook configurations to README.md.
func checkRegistrations(t *testing.T, m *admissionregistrationv1.MutatingWebhookConfiguration,
	v *admissionregistrationv1.ValidatingWebhookConfiguration, ns string, excluded []string) {
	t.Helper()
	if len(m.Webhooks) != 1 || len(v.Webhooks) != 1 {
		t.Fatalf("want one webhook in each configuration, got %d mutating and %d validating", len(m.Webhooks), len(v.Webhooks))
	}
	mw, vw := m.Webhooks[0], v.Webhooks[0]
	type common struct {
		name        string
		sideEffects *admissionregistrationv1.SideEffectClass
		versions    []string
		timeout     *int32
		failure     *admissionregistrationv1.FailurePolicyType
		service     *admissionregistrationv1.ServiceReference
		rules       []admissionregistrationv1.RuleWithOperations
		nsSel       *metav1.LabelSelector
	}
	for _, w := range []common{
		{mw.Name, mw.SideEffects, mw.AdmissionReviewVersions, mw.TimeoutSeconds, mw.FailurePolicy, mw.ClientConfig.Service, mw.Rules, mw.NamespaceSelector},
		{vw.Name, vw.SideEffects, vw.AdmissionReviewVersions, vw.TimeoutSeconds, vw.FailurePolicy, vw.ClientConfig.Service, vw.Rules, vw.NamespaceSelector},
	} {
		if w.sideEffects == nil || *w.sideEffects != admissionregistrationv1.SideEffectClassNone {
			t.Errorf("%s: sideEffects must be None", w.name)
		}
		if !slices.Equal(w.versions, []string{"v1"}) {
			t.Errorf("%s: admissionReviewVersions %v, want [v1]", w.name, w.versions)
		}
		if w.timeout == nil || *w.timeout < 1 || *w.timeout > 10 {
			t.Errorf("%s: timeoutSeconds %v, want a few seconds", w.name, w.timeout)
		}
		if w.failure == nil {
			t.Errorf("%s: failurePolicy must be set explicitly (README.md explains it)", w.name)
		}
		if w.service == nil || w.service.Namespace != ns || w.service.Port == nil || *w.service.Port != 443 {
			t.Errorf("%s: clientConfig.service %+v, want namespace %s port 443", w.name, w.service, ns)
		}
		checkNamespaceSelector(t, w.name, w.nsSel, excluded)
		checkRuleCoverage(t, w.name, w.rules)
	}
	if mw.ClientConfig.Service != nil && mw.ClientConfig.Service.Path != nil && *mw.ClientConfig.Service.Path != "/mutate" {
		t.Errorf("mutating webhook path %q, want /mutate", *mw.ClientConfig.Service.Path)
	}
	if vw.ClientConfig.Service != nil && vw.ClientConfig.Service.Path != nil && *vw.ClientConfig.Service.Path != "/validate" {
		t.Errorf("validating webhook path %q, want /validate", *vw.ClientConfig.Service.Path)
	}
}

func checkNamespaceSelector(t *testing.T, name string, sel *metav1.LabelSelector, excluded []string) {
	t.Helper()
	if sel == nil || len(sel.MatchExpressions) != 1 {
		t.Errorf("%s: namespaceSelector %v, want one kubernetes.io/metadata.name NotIn expression", name, sel)
		return
	}
	e := sel.MatchExpressions[0]
	if e.Key != corev1.LabelMetadataName || e.Operator != "NotIn" || !slices.Equal(e.Values, excluded) {
		t.Errorf("%s: namespaceSelector %+v, want kubernetes.io/metadata.name NotIn %v", name, e, excluded)
	}
}

// checkRuleCoverage wants Pods (CREATE) and every workload kind (CREATE and
// UPDATE) matched.
func checkRuleCoverage(t *testing.T, name string, rs []admissionregistrationv1.RuleWithOperations) {
	t.Helper()
	covered := map[string][]admissionregistrationv1.OperationType{}
	for _, r := range rs {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				covered[g+"/"+res] = append(covered[g+"/"+res], r.Operations...)
			}
		}
	}
	want := map[string][]admissionregistrationv1.OperationType{
		"/pods":             {admissionregistrationv1.Create},
		"apps/deployments":  {admissionregistrationv1.Create, admissionregistrationv1.Update},
		"apps/statefulsets": {admissionregistrationv1.Create, admissionregistrationv1.Update},
		"apps/daemonsets":   {admissionregistrationv1.Create, admissionregistrationv1.Update},
		"apps/replicasets":  {admissionregistrationv1.Create, admissionregistrationv1.Update},
		"batch/jobs":        {admissionregistrationv1.Create, admissionregistrationv1.Update},
		"batch/cronjobs":    {admissionregistrationv1.Create, admissionregistrationv1.Update},
	}
	for res, ops := range want {
		for _, op := range ops {
			if !slices.Contains(covered[res], op) {
				t.Errorf("%s: %s %s is not matched; rules: %v", name, op, res, covered)
			}
		}
	}
}

func subset(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) > 0
}
