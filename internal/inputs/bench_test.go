package inputs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// benchChart writes a chart of n Deployment templates, each with
// includes, a conditional block and toYaml of values, as charts are
// written, and returns its folder.
func benchChart(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("Chart.yaml", "apiVersion: v2\nname: bench\nversion: 0.1.0\n")
	write("values.yaml", "image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022\nnodeSelector:\n  kubernetes.io/os: windows\ntolerations:\n- key: os\n  value: windows\n  effect: NoSchedule\nresources:\n  requests:\n    cpu: 100m\n    memory: 128Mi\n")
	write("templates/_helpers.tpl", "{{- define \"bench.labels\" -}}\napp.kubernetes.io/name: {{ .Chart.Name }}\napp.kubernetes.io/instance: {{ .Release.Name }}\n{{- end }}\n")
	for i := range n {
		write(fmt.Sprintf("templates/app%02d.yaml", i), fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-app%02d
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: app%02d
  template:
    metadata:
      labels:
        app: app%02d
        {{- include "bench.labels" . | nindent 8 }}
    spec:
      nodeSelector:
        {{- toYaml .Values.nodeSelector | nindent 8 }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
      - name: app
        image: {{ .Values.image | quote }}
        resources:
          {{- toYaml .Values.resources | nindent 10 }}
`, i, i, i))
	}
	return dir
}

func lintOpts() engine.Options {
	return engine.Options{Rules: rules.Suite(), Cluster: cluster.Reference(), Model: winsupport.Default()}
}

// BenchmarkLintChart50 is lint of a 50-template chart: render and check.
// BenchmarkLintRendered50 checks the same rendered text from memory; the
// difference is what rendering adds.
func BenchmarkLintChart50(b *testing.B) {
	dir := benchChart(b, 50)
	ctx := context.Background()
	for b.Loop() {
		ins, errs := Resolve([]string{dir}, nil, Options{})
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		if _, err := engine.Run(ctx, ins, lintOpts()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLintRendered50(b *testing.B) {
	dir := benchChart(b, 50)
	ins, errs := Resolve([]string{dir}, nil, Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	plain := make([]manifest.Input, len(ins))
	for i, in := range ins {
		r, err := in.Open()
		if err != nil {
			b.Fatal(err)
		}
		data, _ := readAll(r)
		plain[i] = manifest.BytesInput(in.Name, data)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := engine.Run(ctx, plain, lintOpts()); err != nil {
			b.Fatal(err)
		}
	}
}
