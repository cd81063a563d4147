package plan

import (
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
)

// movedBuilds maps each replaced pool's old Windows build to its new one.
func movedBuilds(migs []Migration) map[string]string {
	moved := map[string]string{}
	for _, m := range migs {
		if m.Old.WindowsBuild != "" && m.New.WindowsBuild != "" && m.Old.WindowsBuild != m.New.WindowsBuild {
			moved[m.Old.WindowsBuild] = m.New.WindowsBuild
		}
	}
	return moved
}

// applyPins is the objects once the pins step is done: every workload and
// RuntimeClass pinned to a moved build pinned to the new one. The input
// objects are left alone; changed ones are copies.
func applyPins(objs []*manifest.Object, rcs map[string]*nodev1.RuntimeClass, moved map[string]string) ([]*manifest.Object, map[string]*nodev1.RuntimeClass) {
	if len(moved) == 0 {
		return objs, rcs
	}
	outRCs := map[string]*nodev1.RuntimeClass{}
	for k, v := range rcs {
		outRCs[k] = v
	}
	out := make([]*manifest.Object, 0, len(objs))
	for _, o := range objs {
		if rc, ok := o.Typed.(*nodev1.RuntimeClass); ok && outRCs[o.Name] == nil {
			if rc.Scheduling != nil {
				if to, ok := moved[rc.Scheduling.NodeSelector[cluster.LabelWindowsBuild]]; ok {
					rc = rc.DeepCopy()
					rc.Scheduling.NodeSelector[cluster.LabelWindowsBuild] = to
					outRCs[o.Name] = rc
				}
			}
			out = append(out, o)
			continue
		}
		w := o.Workload()
		typed, isObj := o.Typed.(runtime.Object)
		if w == nil || !isObj {
			out = append(out, o)
			continue
		}
		to, ok := moved[w.Spec.NodeSelector[cluster.LabelWindowsBuild]]
		if !ok {
			out = append(out, o)
			continue
		}
		cp := *o
		cp.Typed = typed.DeepCopyObject()
		cp.Workload().Spec.NodeSelector[cluster.LabelWindowsBuild] = to
		out = append(out, &cp)
	}
	return out, outRCs
}
