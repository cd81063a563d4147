package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/corpusgen"
)

// FuzzEngine runs the whole rule suite over mutations of generated
// applications and of the rule fixtures: no input may panic a rule or
// the engine, and every finding must say where it is.
func FuzzEngine(f *testing.F) {
	g := corpusgen.New(corpusgen.Options{Objects: 60, Seed: 3, Unreadable: true})
	var rcs bytes.Buffer
	for _, d := range g.RuntimeClasses() {
		rcs.Write(d.Data)
		rcs.WriteString("---\n")
	}
	for range 20 {
		var app bytes.Buffer
		app.Write(rcs.Bytes())
		for i, d := range g.App() {
			if i > 0 {
				app.WriteString("---\n")
			}
			app.Write(d.Data)
		}
		f.Add(app.Bytes())
	}
	files, _ := filepath.Glob("../rules/testdata/*/*.yaml")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	suite := rules.Suite()
	opts := engine.Options{Rules: suite, Cluster: cluster.Reference(), Model: winsupport.Default(), Workers: 1}
	// Run the seeds once before fuzzing: what is initialised on first use
	// (decoder plans, caches) would otherwise look like new coverage that
	// the fuzzer cannot reproduce.
	for _, p := range files {
		ins, _ := manifest.Inputs([]string{p}, nil)
		engine.Run(context.Background(), ins, opts)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ins, errs := manifest.Inputs([]string{"-"}, bytes.NewReader(data))
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		res, err := engine.Run(context.Background(), ins, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if f.Rule == "" || f.Message == "" || f.File != "<stdin>" {
				t.Fatalf("finding without a rule, message or file: %+v", f)
			}
			if f.Object != nil && (f.Line < 1 || f.Column < 1) {
				t.Fatalf("finding of %s without a position: %+v", f.Object.Ref(), f)
			}
			if strings.ContainsAny(f.Message, "\x00") {
				t.Fatalf("finding message with a NUL: %q", f.Message)
			}
		}
		// The webhook's path: the same objects checked one at a time.
		ins, _ = manifest.Inputs([]string{"-"}, bytes.NewReader(data))
		objs, _ := manifest.ReadAll(ins)
		for _, o := range objs {
			engine.Check([]*manifest.Object{o}, opts)
		}
	})
}
