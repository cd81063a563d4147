package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
)

// imageCauses are the cause IDs that say an image has no entry for the
// node's build.
var imageCauses = map[string]bool{"image-build-mismatch": true, "ErrImagePull": true, "CreateContainerError": true, "sac-image-eol": true}

// imageStep lists the images of the workloads the change breaks for want
// of an image for the new build, with the tag to use instead: the same
// reference with the new build's tag, and, with --resolve-images, whether
// the registry has it.
func imageStep(in Input, t *Target, rep *Report, migs []Migration) (Step, bool) {
	var build winsupport.Build
	for _, m := range migs {
		if b, ok := t.model.BuildByNumber(m.New.WindowsBuild); ok && m.New.OS == "windows" {
			build = b
			break
		}
	}
	if build.Build == "" {
		for _, p := range t.cluster.PoolsOf("windows") {
			if b, ok := t.model.BuildByNumber(p.WindowsBuild); ok {
				build = b
			}
		}
	}
	if build.Build == "" {
		return Step{}, false
	}
	objs := map[string]*manifest.Object{}
	for _, o := range in.Objects {
		objs[o.Kind+"/"+nsOf(o)+"/"+o.Name] = o
	}
	lines := map[string][]string{} // image -> workloads
	for _, w := range rep.Workloads {
		if !hasCause(w, imageCauses) {
			continue
		}
		o := objs[w.Workload]
		if o == nil || o.Workload() == nil {
			continue
		}
		winsupport.VisitContainers(o.Workload().Spec, field.NewPath("spec"), func(c *corev1.Container, _ *field.Path) {
			img := t.model.ParseImage(c.Image)
			if img.Build != nil && img.Build.Build != build.Build && !slices.Contains(lines[c.Image], w.Workload) {
				lines[c.Image] = append(lines[c.Image], w.Workload)
			}
		})
	}
	if len(lines) == 0 {
		return Step{}, false
	}
	s := Step{Kind: "images", Title: fmt.Sprintf("Rebuild or retag %d image(s) for %s (%s)", len(lines), build.Name, build.Build)}
	imgs := make([]string, 0, len(lines))
	for ref := range lines {
		imgs = append(imgs, ref)
	}
	sort.Strings(imgs)
	for _, ref := range imgs {
		s.Details = append(s.Details, fmt.Sprintf("%s -> %s (%s)", ref, retag(in, t.model, ref, build), strings.Join(lines[ref], ", ")))
	}
	return s, true
}

func hasCause(w Workload, ids map[string]bool) bool {
	for _, c := range w.Causes {
		if ids[c.ID] {
			return true
		}
	}
	return false
}

// retag names the image to use on the new build: ref with its build tag
// replaced, and what the registry says of it when images are resolved.
func retag(in Input, m winsupport.Model, ref string, b winsupport.Build) string {
	img := m.ParseImage(ref)
	cand := ref
	for _, old := range append(append([]string(nil), img.Build.Tags...), img.Build.Build) {
		if strings.Contains(cand, old) && len(b.Tags) > 0 {
			repl := b.Tags[0]
			if old == img.Build.Build {
				repl = b.Build
			}
			cand = strings.Replace(cand, old, repl, 1)
			break
		}
	}
	if cand == ref {
		cand = "a tag built FROM a " + b.Name + " base image"
	}
	if in.Images == nil {
		return cand
	}
	host := winsupport.Host{OS: "windows", Architecture: "amd64", Build: b.Build}
	if r, err := in.Images.Lookup(ref); err == nil && r != nil {
		if _, ok := host.Pick(r.Platforms, winsupport.ProcessIsolation); ok {
			return ref + " (the registry already has an entry for " + b.Build + ": re-pull, no rebuild)"
		}
	}
	if r, err := in.Images.Lookup(cand); err == nil && r != nil {
		if _, ok := host.Pick(r.Platforms, winsupport.ProcessIsolation); ok {
			return cand + " (in the registry, with an entry for " + b.Build + ")"
		}
	}
	return cand + " (not in the registry: rebuild and push it)"
}

// pinStep changes the build pins of the workloads and RuntimeClasses
// pinned to a replaced pool's build.
func pinStep(in Input, migs []Migration) (Step, bool) {
	moved := movedBuilds(migs)
	if len(moved) == 0 {
		return Step{}, false
	}
	s := Step{Kind: "pins", Title: "Move the build pins to the new build"}
	for _, o := range in.Objects {
		var sel map[string]string
		var patch string
		switch {
		case o.Kind == "RuntimeClass":
			sel = runtimeClassSelector(o)
			patch = `{"scheduling":{"nodeSelector":{"%s":"%s"}}}`
		case o.Workload() != nil:
			sel = o.Workload().Spec.NodeSelector
			patch = `{"spec":{"template":{"spec":{"nodeSelector":{"%s":"%s"}}}}}`
			if o.Kind == "Pod" {
				patch = `{"spec":{"nodeSelector":{"%s":"%s"}}}`
			}
		}
		to, ok := moved[sel[cluster.LabelWindowsBuild]]
		if !ok {
			continue
		}
		ns := ""
		if o.Kind != "RuntimeClass" {
			ns = " -n " + nsOf(o)
		}
		s.Commands = append(s.Commands, fmt.Sprintf("kubectl patch %s %s%s --type merge -p '%s'", strings.ToLower(o.Kind), o.Name, ns,
			fmt.Sprintf(patch, cluster.LabelWindowsBuild, to)))
		s.Details = append(s.Details, fmt.Sprintf("%s pins %s=%s: change it to %s (%s)", o.Ref(), cluster.LabelWindowsBuild, sel[cluster.LabelWindowsBuild], to, o.File))
	}
	if len(s.Commands) == 0 {
		return Step{}, false
	}
	return s, true
}

func runtimeClassSelector(o *manifest.Object) map[string]string {
	if o.Root == nil {
		return nil
	}
	ns := o.Root.Get("scheduling").Get("nodeSelector")
	if ns == nil {
		return nil
	}
	v := ns.String(cluster.LabelWindowsBuild)
	if v == "" {
		return nil
	}
	return map[string]string{cluster.LabelWindowsBuild: v}
}
