package webhook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []string // every problem, in order; nil = valid
	}{
		{name: "minimal", yaml: configHeader},
		{name: "everything", yaml: configHeader + `mode: mutate
namespaces: {include: [shop, web], exclude: [kube-system, winkube-system]}
objectSelector: {matchExpressions: [{key: winkube.io/skip, operator: DoesNotExist}]}
kubernetesVersion: "1.33"
controlledPods: check
rules: {disable: [missing-spec-os], enable: [], severity: {missing-os-pin: error}}
cluster:
  pools:
  - {name: linux, count: 2, os: linux, cpu: "4", memory: 16Gi}
  - {name: win, count: 2, os: windows, windowsBuild: "10.0.17763", cpu: "4", memory: 16Gi, taints: [{key: os, value: windows, effect: NoSchedule}]}
runtimeClasses:
- metadata: {name: windows-2019}
  handler: runhcs-wcow-process
`},
		{name: "unknown field", yaml: configHeader + "mdoe: warn\n",
			want: []string{`x.yaml:3:1: unknown field "mdoe"`, `did you mean "mode"?`}},
		{name: "every problem at once", yaml: `apiVersion: winkube.io/v1
kind: Config
mode: audit
namespaces: {exclude: [Kube_System]}
objectSelector: {matchExpressions: [{key: a, operator: Near}]}
kubernetesVersion: "2.0"
controlledPods: sometimes
rules: {disable: [no-such-rule], severity: {missing-os-pin: fatal}}
cluster: {pools: [{name: win, count: 1, os: windows, windowsBuild: "10.0.1", cpu: "1", memory: 1Gi}]}
runtimeClasses: [{metadata: {name: ""}}]
`, want: []string{
			`x.yaml:1:1: apiVersion: must be winkube.io/v1alpha1, got "winkube.io/v1"`,
			`x.yaml:2:1: kind: must be WebhookConfig, got "Config"`,
			`x.yaml:3:1: mode: must be enforce, warn or mutate, got "audit"`,
			`x.yaml:7:1: controlledPods: must be skip or check, got "sometimes"`,
			`x.yaml:4:24: namespaces.exclude[0]: "Kube_System" is not a namespace name`,
			`x.yaml:5:1: objectSelector: "Near" is not a valid label selector operator`,
			`x.yaml:10:30: runtimeClasses[0].metadata.name: required`,
			`runtimeClasses[0].handler: required`,
			`x.yaml:6:1: kubernetesVersion: invalid Kubernetes version "2.0"`,
			`x.yaml:8:19: rules.disable[0]: unknown rule "no-such-rule"`,
			`x.yaml:8:45: rules.severity[missing-os-pin]: unknown severity "fatal"`,
			`x.yaml:9:54: cluster.pools[0].windowsBuild: "10.0.1" is not a build like 10.0.20348`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseConfig("x.yaml", []byte(tc.yaml))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error:\n%v", err)
				}
				if _, err := compile("x.yaml", c, nil); err != nil {
					t.Fatalf("compile: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			for _, want := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.Contains(l, want)
				}
				if !found {
					t.Errorf("no problem mentions %q in:\n%v", want, err)
				}
			}
		})
	}
}

func TestCompileDefaults(t *testing.T) {
	t.Parallel()
	p, err := compile("defaults", defaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.mode != Enforce || p.checkControlled || p.selector != nil {
		t.Errorf("mode %s, checkControlled %v, selector %v; want enforce, false, none", p.mode, p.checkControlled, p.selector)
	}
	if diff := cmp.Diff(map[string]bool{"kube-system": true}, p.exclude); diff != "" {
		t.Errorf("excluded namespaces (-want +got):\n%s", diff)
	}
	for _, r := range p.engine.Rules {
		if r.Corpus != nil {
			t.Errorf("rule %s looks across objects; admission sees one", r.ID)
		}
	}
	if p.rules["windows-forbidden-field"] == nil || p.rules["missing-os-pin"] == nil {
		t.Error("the default rules are missing")
	}
}

// TestConfigNamesEveryFamily holds the webhook's config to the IDs
// .winkube.yaml accepts: every rule of the catalogue is known, its lint
// settings are applied, and a rule of a family the webhook does not report
// is refused at its line, naming the family.
func TestConfigNamesEveryFamily(t *testing.T) {
	t.Parallel()
	known := append(rules.Suite(),
		&rule.Rule{ID: "kubelet-x", Family: rule.FamilyNodeConfig},
		&rule.Rule{ID: "node-x", Family: rule.FamilyAudit},
		&rule.Rule{ID: "cause-x", Family: rule.FamilyDoctor})
	tests := []struct {
		name string
		yaml string
		want []string // every problem; nil = valid
	}{
		{name: "lint settings", yaml: "rules: {disable: [missing-spec-os], severity: {missing-os-pin: error}}\n"},
		{name: "other families", yaml: "rules:\n  disable: [missing-spec-os, node-x]\n  enable: [cause-x]\n  severity: {kubelet-x: warning}\n", want: []string{
			`x.yaml:4:30: rules.disable[1]: "node-x" is an audit rule, which the webhook does not report (it reports lint rules): remove it here; .winkube.yaml configures it for winkube audit`,
			`x.yaml:5:12: rules.enable[0]: "cause-x" is a doctor rule, which the webhook does not report`,
			`x.yaml:6:14: rules.severity[kubelet-x]: "kubelet-x" is a node-config rule, which the webhook does not report`,
		}},
		{name: "unknown still unknown", yaml: "rules: {disable: [no-such-rule]}\n", want: []string{
			`x.yaml:3:19: rules.disable[0]: unknown rule "no-such-rule"`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := decodeConfig("x.yaml", []byte(configHeader+tc.yaml), known)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error:\n%v", err)
				}
				p, err := compile("x.yaml", c, nil)
				if err != nil {
					t.Fatal(err)
				}
				if p.rules["missing-spec-os"] != nil || p.rules["missing-os-pin"] == nil || p.rules["missing-os-pin"].Severity != rule.Error {
					t.Errorf("the lint settings are not applied: missing-spec-os %v, missing-os-pin %v", p.rules["missing-spec-os"], p.rules["missing-os-pin"])
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("no problem reads %q in:\n%v", want, err)
				}
			}
			if got := len(strings.Split(err.Error(), "\n")); got != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%v", got, len(tc.want), err)
			}
		})
	}
}

// TestNetworkRulesReachTheWebhook: the networking rules that one object
// decides (issue 22) run in the webhook's default configuration.
func TestNetworkRulesReachTheWebhook(t *testing.T) {
	t.Parallel()
	enabled := map[*rule.Rule]bool{}
	for _, r := range (&WebhookConfig{}).enabledRules() {
		enabled[r] = true
	}
	for _, r := range []*rule.Rule{rules.WindowsDNSPartialName, rules.WindowsICMPOutbound, rules.WindowsNodePortFromNode,
		rules.WindowsHostProcessClusterDNS, rules.WindowsDNSConfigIgnored, rules.WindowsContainerPortLoopback} {
		if !enabled[r] {
			t.Errorf("the webhook does not run %s", r.ID)
		}
	}
}
