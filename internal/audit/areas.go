package audit

import (
	"github.com/winkube/winkube/internal/rule"
)

// Area is the readiness of one part of the cluster.
type Area struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ready, at-risk, not-ready, or unknown when a kind it reads could not be listed
	// Unread names the kinds this area reads that could not be listed.
	Unread   []string `json:"unread,omitempty"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Infos    int      `json:"infos"`
}

// areaOf maps a rule's category to the readiness area it counts in.
func areaOf(c rule.Category, id string) string {
	switch c {
	case CategoryNodes, CategoryAccess, rule.NodeConfig:
		return AreaNodes
	case rule.Placement:
		return AreaPlacement
	case rule.Images:
		return AreaImages
	case rule.Resources, CategoryCapacity:
		return AreaCapacity
	}
	return AreaSecurity // identity, linux-only fields, API rejections, services, input
}

// readBy lists the areas whose judgement needs the kind.
func readBy(kind string) []string {
	switch kind {
	case "nodes":
		return []string{AreaNodes, AreaPlacement, AreaCapacity}
	case "runtimeclasses":
		return []string{AreaPlacement}
	case "services", "namespaces":
		return []string{AreaSecurity}
	case "events":
		return nil
	}
	// pods and the workload kinds
	return []string{AreaPlacement, AreaImages, AreaSecurity, AreaCapacity}
}

// Areas sums the unsuppressed findings per area.
func Areas(res *Result) []Area {
	cat := map[string]rule.Category{}
	for _, r := range res.Rules {
		cat[r.ID] = r.Category
	}
	names := []string{AreaNodes, AreaPlacement, AreaImages, AreaSecurity, AreaCapacity}
	idx := map[string]*Area{}
	out := make([]Area, len(names))
	for i, n := range names {
		out[i] = Area{Name: n}
		idx[n] = &out[i]
	}
	for _, f := range res.Findings {
		if f.Suppressed {
			continue
		}
		a := idx[areaOf(cat[f.Rule], f.Rule)]
		switch f.Severity {
		case rule.Error:
			a.Errors++
		case rule.Warning:
			a.Warnings++
		default:
			a.Infos++
		}
	}
	for _, kind := range res.Unread {
		for _, n := range readBy(kind) {
			idx[n].Unread = append(idx[n].Unread, kind)
		}
	}
	for i := range out {
		switch a := &out[i]; {
		case len(a.Unread) > 0:
			a.Status = "unknown"
		case a.Errors > 0:
			a.Status = "not-ready"
		case a.Warnings > 0:
			a.Status = "at-risk"
		default:
			a.Status = "ready"
		}
	}
	return out
}
