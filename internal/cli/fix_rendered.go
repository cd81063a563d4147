package cli

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// refuseRendered answers fix on a Helm chart or a kustomization: its
// edits would land in rendered text no file holds, so it names, for every
// finding with a fix, the template or base line to change and the edit,
// and where the template takes the field from a plain value
// (.Values.nodeSelector, .Values.tolerations), the values-file edit.
func (o *fixOptions) refuseRendered(ctx context.Context, ins []manifest.Input) error {
	res, err := engine.Run(ctx, ins, engine.Options{Rules: o.enabled, Cluster: o.cluster, Model: o.model, Workers: o.workers})
	if err != nil {
		return err
	}
	n := 0
	for _, f := range res.Findings {
		if f.Fix == nil || f.Suppressed {
			continue
		}
		n++
		fmt.Fprintf(o.streams.Err, "%s:%d:%d: %s [%s]\n", f.File, f.Line, f.Column, f.Message, f.Rule)
		for _, e := range f.Fix.Edits {
			fmt.Fprintf(o.streams.Err, "    change: %s\n", strings.TrimSpace(fmt.Sprintf("%s %s %s", e.Op, e.Path, valueText(e.Value))))
		}
		if v := valuesEdit(f); v != "" {
			fmt.Fprintf(o.streams.Err, "    or in the values file:\n%s", indent(v, "        "))
		}
	}
	return usagef("fix does not edit a Helm chart or a kustomization, only plain manifests: make the %d change(s) above in the templates, bases or values files, then run winkube lint again", n)
}

var valuesRef = regexp.MustCompile(`\.Values\.([A-Za-z0-9_.]+)`)

// valuesEdit is the values-file text that makes a nodeSelector or
// tolerations fix, when the template line the finding points at takes
// that field from .Values; "" otherwise.
func valuesEdit(f rule.Finding) string {
	data, err := os.ReadFile(f.File)
	if err != nil || f.Line < 1 {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if f.Line > len(lines) {
		return ""
	}
	// The field's line, or the action just under it that prints it
	// (nodeSelector:\n  {{- toYaml .Values.nodeSelector | nindent 8 }}).
	var m []string
	for i := f.Line - 1; i < min(f.Line+1, len(lines)) && m == nil; i++ {
		m = valuesRef.FindStringSubmatch(lines[i])
	}
	if m == nil {
		return ""
	}
	key := m[1]
	values := map[string]any{}
	for _, e := range f.Fix.Edits {
		switch {
		case e.Op == rule.Set && strings.Contains(e.Path, ".nodeSelector["):
			k := strings.TrimSuffix(e.Path[strings.Index(e.Path, ".nodeSelector[")+len(".nodeSelector["):], "]")
			sel, _ := values["nodeSelector"].(map[string]any)
			if sel == nil {
				sel = map[string]any{}
			}
			sel[k] = e.Value
			values["nodeSelector"] = sel
		case e.Op == rule.Append && strings.HasSuffix(e.Path, ".tolerations"):
			ts, _ := values["tolerations"].([]any)
			values["tolerations"] = append(ts, e.Value)
		}
	}
	v, ok := values[key]
	if !ok {
		return ""
	}
	out, err := yaml.Marshal(map[string]any{key: v})
	if err != nil {
		return ""
	}
	return string(out)
}

func valueText(v any) string {
	if v == nil {
		return ""
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\n", " "))
}

func indent(s, pre string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(pre + l + "\n")
	}
	return b.String()
}
