package policy

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

func export(t *testing.T, o Options, format string) []byte {
	t.Helper()
	if o.Rules == nil {
		o.Rules = rules.Suite()
	}
	if o.Model.V == (winsupport.Version{}) {
		o.Model = winsupport.Default()
	}
	out, err := Export(o, format)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// kinds decodes a multi-document export into name→kind, failing on
// anything that is not YAML.
func decodeAll(t *testing.T, y []byte) []map[string]any {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(y), 4096)
	var out []map[string]any
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("the export is not YAML: %v", err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

// TestExportPassesLint: winkube lint finds nothing in its own export.
func TestExportPassesLint(t *testing.T) {
	t.Parallel()
	for _, format := range Formats {
		y := export(t, Options{Fixes: true}, format)
		res, err := engine.Run(t.Context(), []manifest.Input{manifest.BytesInput("export.yaml", y)}, engine.Options{Rules: rules.Suite(), Model: winsupport.Default()})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			t.Errorf("%s: lint reports %s at line %d: %s", format, f.Rule, f.Line, f.Message)
		}
		if res.Objects < 2 {
			t.Errorf("%s: lint read %d objects of the export", format, res.Objects)
		}
	}
}

// TestAdmissionPolicyObjects: the default export validates only, so that
// it decides as lint does on the submitted object; Fixes adds the
// mutating policy.
func TestAdmissionPolicyObjects(t *testing.T) {
	t.Parallel()
	validating := []string{"ConfigMap/winkube-cluster",
		"ValidatingAdmissionPolicy/winkube-error", "ValidatingAdmissionPolicyBinding/winkube-error",
		"ValidatingAdmissionPolicy/winkube-warning", "ValidatingAdmissionPolicyBinding/winkube-warning",
		// windows-linux-path reports at info: an Audit binding.
		"ValidatingAdmissionPolicy/winkube-info", "ValidatingAdmissionPolicyBinding/winkube-info"}
	var y []byte
	for _, tc := range []struct {
		fixes bool
		want  []string
	}{
		{false, validating},
		{true, append(validating[:len(validating):len(validating)], "MutatingAdmissionPolicy/winkube-fix", "MutatingAdmissionPolicyBinding/winkube-fix")},
	} {
		y = export(t, Options{Fixes: tc.fixes}, "admission-policy")
		var kinds []string
		for _, m := range decodeAll(t, y) {
			kinds = append(kinds, m["kind"].(string)+"/"+m["metadata"].(map[string]any)["name"].(string))
		}
		if diff := cmp.Diff(tc.want, kinds); diff != "" {
			t.Errorf("fixes %v: objects (-want +got):\n%s", tc.fixes, diff)
		}
	}
	head := string(y[:bytes.Index(y, []byte("apiVersion:"))])
	for _, want := range []string{"# winkube policy export", "windows-service-ipv6-single-stack: needs other objects", "missing-os-pin"} {
		if !strings.Contains(head, want) {
			t.Errorf("the comment header lacks %q:\n%s", want, head)
		}
	}
}

func TestBindingOptions(t *testing.T) {
	t.Parallel()
	sel, _ := metav1.ParseToLabelSelector("env=prod")
	tests := []struct {
		name    string
		o       Options
		actions map[rule.Severity][]admissionregistrationv1.ValidationAction
		nsSel   *metav1.LabelSelector
		params  string
	}{
		{name: "enforce", o: Options{Mode: Enforce, ExcludeNamespaces: []string{"kube-system"}, ParamsNamespace: "kube-system"},
			actions: map[rule.Severity][]admissionregistrationv1.ValidationAction{rule.Error: {"Deny"}, rule.Warning: {"Warn"}, rule.Info: {"Audit"}},
			nsSel:   &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: "NotIn", Values: []string{"kube-system"}}}},
			params:  "kube-system"},
		{name: "warn with a selector", o: Options{Mode: WarnOnly, NamespaceSelector: sel},
			actions: map[rule.Severity][]admissionregistrationv1.ValidationAction{rule.Error: {"Warn"}, rule.Warning: {"Warn"}, rule.Info: {"Warn"}},
			nsSel:   sel},
		{name: "audit", o: Options{Mode: AuditOnly},
			actions: map[rule.Severity][]admissionregistrationv1.ValidationAction{rule.Error: {"Audit"}, rule.Warning: {"Audit"}, rule.Info: {"Audit"}},
			nsSel:   &metav1.LabelSelector{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.o
			for s, want := range tc.actions {
				if diff := cmp.Diff(want, o.actions(s)); diff != "" {
					t.Errorf("%s actions (-want +got):\n%s", s, diff)
				}
			}
			if diff := cmp.Diff(tc.nsSel, o.namespaceSelector()); diff != "" {
				t.Errorf("namespace selector (-want +got):\n%s", diff)
			}
			if got := o.paramRef().Namespace; got != tc.params {
				t.Errorf("params namespace %q, want %q", got, tc.params)
			}
		})
	}
}

func TestSelection(t *testing.T) {
	t.Parallel()
	o := Options{Rules: []*rule.Rule{rules.ByID("missing-os-pin"), rules.ByID("windows-linux-path"), rules.ByID("windows-service-ipv6-single-stack")},
		MinSeverity: rule.Warning, Model: winsupport.Default()}
	o.defaults()
	got, checks, skipped := o.selected()
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	// windows-linux-path is info: below --severity warning.
	if diff := cmp.Diff([]string{"missing-os-pin"}, ids); diff != "" {
		t.Errorf("exported rules (-want +got):\n%s", diff)
	}
	if len(checks[rules.MissingOSPin]) != 3 {
		t.Errorf("missing-os-pin: %d checks, want its Windows, Linux and unknown cases", len(checks[rules.MissingOSPin]))
	}
	if len(skipped) != 1 || skipped[0].Rule != "windows-service-ipv6-single-stack" || skipped[0].Reason == "" {
		t.Errorf("skipped %+v, want windows-service-ipv6-single-stack with its reason", skipped)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	no := false
	c := &cluster.Cluster{Pools: []cluster.Pool{{Name: "linux", Count: 1, OS: "linux"},
		{Name: "win", Count: 1, OS: "windows", WindowsBuild: "10.0.20348.2461", Taints: []corev1.Taint{cluster.WindowsTaint, {Key: "soft", Effect: "PreferNoSchedule"}, {Key: "gpu", Effect: "NoExecute"}}, CNI: "win-overlay"},
		{Name: "win2", Count: 1, OS: "windows", WindowsBuild: "10.0.26100", CNIPortMappings: &no, CNI: "calico", NetworkMode: "L2Bridge"}},
		ClusterDomain: "corp.example."}
	cm, err := Params(c, winsupport.Default(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cm.Data["windowsPools"], "win|10.0.20348|os=windows:NoSchedule,gpu:NoExecute|10.0.20348.2461||win-overlay|overlay|drops\nwin2|10.0.26100||10.0.26100|false|calico|l2bridge|"; got != want {
		t.Errorf("windowsPools %q, want %q", got, want)
	}
	if got := cm.Data["clusterDomain"]; got != "corp.example" {
		t.Errorf("clusterDomain %q, want the cluster's domain without its root dot", got)
	}
	if !strings.HasPrefix(cm.Data["builds"], "10.0.20348.2461,10.0.26100,10.0.14393,10.0.16299,") || !strings.HasPrefix(cm.Data["buildNumbers"], "10.0.20348,10.0.26100,10.0.14393,10.0.16299,") {
		t.Errorf("builds %q / %q: the cluster's first, normalised in buildNumbers", cm.Data["builds"], cm.Data["buildNumbers"])
	}
	if cm.Data["hybrid"] != "true" {
		t.Errorf("hybrid %q", cm.Data["hybrid"])
	}
	bad := &cluster.Cluster{Pools: []cluster.Pool{{Name: "a|b", Count: 1, OS: "windows"}}}
	if _, err := Params(bad, winsupport.Default(), ""); err == nil || !strings.Contains(err.Error(), `"a|b"`) {
		t.Errorf("a pool name with '|': err %v, want one naming the pool", err)
	}
}

// TestParamsRefusesWhatItCannotEncode: a taint, pool name or build that
// carries one of the encoding's delimiters (or anything else the API
// server would refuse on a Node) is refused with the field and value,
// never encoded where the policies' CEL would misread it (issue 26).
func TestParamsRefusesWhatItCannotEncode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pool cluster.Pool
		want string
	}{
		{"comma in a taint key", cluster.Pool{Name: "win", Taints: []corev1.Taint{{Key: "os,gpu", Value: "windows", Effect: "NoSchedule"}}}, `pools[1].taints[0].key: Invalid value: "os,gpu"`},
		{"colon in a taint value", cluster.Pool{Name: "win", Taints: []corev1.Taint{{Key: "os", Value: "windows:NoExecute", Effect: "NoSchedule"}}}, `pools[1].taints[0].value: Invalid value: "windows:NoExecute"`},
		{"carriage return in a taint value", cluster.Pool{Name: "win", Taints: []corev1.Taint{{Key: "os", Value: "windows\r", Effect: "NoSchedule"}}}, `pools[1].taints[0].value: Invalid value: "windows\r"`},
		{"equals sign in a taint key", cluster.Pool{Name: "win", Taints: []corev1.Taint{{Key: "os=windows", Effect: "NoSchedule"}}}, `pools[1].taints[0].key: Invalid value: "os=windows"`},
		{"unknown effect", cluster.Pool{Name: "win", Taints: []corev1.Taint{{Key: "os", Value: "windows", Effect: "NoSchedule,x"}}}, `pools[1].taints[0].effect: Unsupported value: "NoSchedule,x"`},
		{"pipe in a pool name", cluster.Pool{Name: "a|b"}, `pools[1].name: Invalid value: "a|b"`},
		{"pipe in a CNI", cluster.Pool{Name: "win", CNI: "flannel|x"}, `pools[1].cni: Invalid value: "flannel|x"`},
		{"newline in a network mode", cluster.Pool{Name: "win", NetworkMode: "overlay\nx"}, `pools[1].networkMode: Invalid value: "overlay\nx"`},
		{"newline in a build", cluster.Pool{Name: "win", WindowsBuild: "10.0.20348\nx|y"}, `pools[1].windowsBuild: Invalid value: "10.0.20348\nx|y"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.pool.OS, tc.pool.Count = "windows", 1
			c := &cluster.Cluster{Pools: []cluster.Pool{{Name: "linux", Count: 1, OS: "linux"}, tc.pool}}
			_, err := Params(c, winsupport.Default(), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one containing %q", err, tc.want)
			}
			// Export refuses it too, in both formats (Kyverno carries the
			// params in a CEL literal).
			for _, format := range Formats {
				if _, err := Export(Options{Rules: rules.Suite(), Model: winsupport.Default(), Cluster: c}, format); err == nil {
					t.Errorf("%s: exported a cluster whose params cannot be encoded", format)
				}
			}
		})
	}
}

// TestCELStringEscapes: every value rendered into CEL is a literal CEL
// reads back as the same string, control characters included.
func TestCELStringEscapes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`it's`:    `'it\'s'`,
		`a\b`:     `'a\\b'`,
		"a\nb\rc": `'a\nb\rc'`,
		"x\x00\t": `'x\u0000\u0009'`,
		"\u2028":  `'\u2028'`,
	} {
		if got := celString(in); got != want {
			t.Errorf("celString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestOptionsValidate: names the API server would refuse in the exported
// objects are refused before anything is written (issue 26).
func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		o    Options
		want string // "" for valid
	}{
		{Options{Name: "winkube", ParamsNamespace: "kube-system", ExcludeNamespaces: []string{"kube-system"}}, ""},
		{Options{Name: "winkube"}, ""},
		{Options{Name: "Winkube"}, `name "Winkube"`},
		{Options{Name: "a/b"}, `name "a/b"`},
		{Options{Name: strings.Repeat("a", 250)}, "must be no more than 253 characters"},
		{Options{Name: "w", ParamsNamespace: "kube_system"}, `params namespace "kube_system"`},
		{Options{Name: "w", ParamsNamespace: "a\nb"}, `params namespace "a\nb"`},
		{Options{Name: "w", ExcludeNamespaces: []string{"ok", "Not OK"}}, `excluded namespace "Not OK"`},
	}
	for _, tc := range tests {
		err := tc.o.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.o, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: err %v, want one containing %q", tc.o, err, tc.want)
		}
		if tc.want != "" {
			if _, err := Export(tc.o, "admission-policy"); err == nil {
				t.Errorf("%+v: Export accepted it", tc.o)
			}
		}
	}
}

// TestConfiguredSeverityWins: a rule the config re-grades (config.Apply
// copies it) is exported at the configured severity, its checks' own
// severities included, as lint reports every finding of it (issue 18).
func TestConfiguredSeverityWins(t *testing.T) {
	t.Parallel()
	cp := *rules.MissingOSPin
	cp.Severity, cp.Configured = rule.Info, rule.Info
	o := Options{Rules: []*rule.Rule{&cp}, Model: winsupport.Default(), MinSeverity: rule.Info}
	o.defaults()
	chosen, checks, _ := o.selected()
	if len(chosen) != 1 || len(checks[&cp]) != 3 {
		t.Fatalf("the re-graded copy was not exported with its three checks: %v %v", chosen, checks)
	}
	for _, c := range checks[&cp] {
		if s := checkSeverity(&cp, c); s != rule.Info {
			t.Errorf("check %q exported at %s, the config says info", c.detail, s)
		}
	}
	y := export(t, Options{Rules: []*rule.Rule{&cp}}, "admission-policy")
	if bytes.Contains(y, []byte("name: winkube-error")) {
		t.Error("a re-graded missing-os-pin still has an error policy")
	}
}

// TestCELFormat: a rule's message template becomes one CEL concatenation,
// %q as plain double quotes, literal text escaped.
func TestCELFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format string
		args   []string
		want   string
	}{
		{rules.MissingSpecOSMsg, []string{"variables.by"}, `('Windows workload (from ' + (variables.by) + ') does not set spec.os.name: windows')`},
		{rules.UntoleratedTaintMsg, []string{"x[3]", "x[4]"}, `('Windows workload does not tolerate taint ' + (x[3]) + ' of Windows pool "' + (x[4]) + '"; its pods will stay Pending')`},
		{"100%% of %d pods can't", []string{"n"}, `('100% of ' + string(n) + ' pods can\'t')`},
		{rules.MissingOSPinAnyMsg, nil, `('workload has no kubernetes.io/os selector and may be scheduled onto Linux or Windows nodes')`},
	}
	for _, tc := range tests {
		if got := celf(tc.format, tc.args...); got != tc.want {
			t.Errorf("celf(%q) =\n  %s\nwant\n  %s", tc.format, got, tc.want)
		}
	}
	for _, bad := range []struct {
		format string
		args   []string
	}{{"%s and %s", []string{"a"}}, {"%s", []string{"a", "b"}}, {"%v", []string{"a"}}, {"50%", nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("celf(%q, %q) did not panic", bad.format, bad.args)
				}
			}()
			celf(bad.format, bad.args...)
		}()
	}
}
