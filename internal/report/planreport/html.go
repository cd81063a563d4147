package planreport

import (
	"fmt"
	"html/template"
	"io"
	"strconv"

	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/report"
)

// WriteHTML writes the plan as one self-contained page (inline CSS and
// SVG, no scripts, nothing fetched): the changes, each pool's pods and
// CPU before and after side by side, the workloads that change with their
// causes, the node configuration and the migration steps.
func WriteHTML(w io.Writer, r *plan.Report) error {
	if err := htmlTemplate.Execute(w, newPage(r)); err != nil {
		return fmt.Errorf("writing the HTML plan: %w", err)
	}
	return nil
}

type page struct {
	*plan.Report
	PoolRows []poolRow
	Changed  []plan.Workload
}

type poolRow struct {
	plan.PoolDiff
	Before, After bar // CPU requested of allocatable
	Build         string
}

// bar is an SVG bar; Width is a percentage of its length.
type bar struct {
	Percent, Width, Level string
}

func newBar(req, alloc int64) bar {
	if alloc <= 0 {
		return bar{Percent: "0", Width: "0%", Level: "ok"}
	}
	p := float64(req) * 100 / float64(alloc)
	return bar{Percent: strconv.FormatFloat(p, 'f', 1, 64), Width: strconv.FormatFloat(min(p, 100), 'f', 1, 64) + "%", Level: report.UsageLevel(p)}
}

func newPage(r *plan.Report) page {
	p := page{Report: r}
	for _, d := range r.Pools {
		row := poolRow{PoolDiff: d, Build: buildText(d)}
		if d.UsageBefore != nil {
			row.Before = newBar(d.UsageBefore.Requested.MilliCPU, d.UsageBefore.Allocatable.MilliCPU)
		} else {
			row.Before = newBar(0, 0)
		}
		if d.UsageAfter != nil {
			row.After = newBar(d.UsageAfter.Requested.MilliCPU, d.UsageAfter.Allocatable.MilliCPU)
		} else {
			row.After = newBar(0, 0)
		}
		p.PoolRows = append(p.PoolRows, row)
	}
	for _, w := range r.Workloads {
		if w.Verdict != plan.Unchanged {
			p.Changed = append(p.Changed, w)
		}
	}
	return p
}

var htmlTemplate = template.Must(template.New("plan").Funcs(template.FuncMap{"state": stateText}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>winkube plan: Kubernetes {{.KubernetesBefore}} to {{.KubernetesAfter}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}
.breaks,.degraded{background:#fde2e2}.at-risk{background:#fff4d6}.fixed{background:#e2f7e2}.moves{background:#e8f0fe}
svg rect.track{fill:#eee}svg rect.ok{fill:#4caf50}svg rect.warn{fill:#ff9800}svg rect.full{fill:#e53935}
code,pre{background:#f6f6f6;padding:.1rem .3rem}pre{white-space:pre-wrap}
.summary span{margin-right:1rem}
</style></head><body>
<h1>winkube plan</h1>
<p>Kubernetes {{.KubernetesBefore}} &rarr; {{.KubernetesAfter}}</p>
<h2>Changes</h2><ul id="changes">{{range .Changes}}<li data-kind="{{.Kind}}"><b>{{.Kind}}</b> {{.Target}}: {{.Detail}}</li>{{end}}</ul>
{{if .Warnings}}<ul id="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p class="summary" id="summary" data-broken="{{.Broken}}"><span>{{.Summary.Workloads}} workloads</span><span data-verdict="unchanged">{{.Summary.Unchanged}} unchanged</span><span data-verdict="moves">{{.Summary.Moves}} move</span><span data-verdict="fixed">{{.Summary.Fixed}} fixed</span><span data-verdict="degraded">{{.Summary.Degraded}} lose replicas</span><span data-replicas-lost="{{.Summary.ReplicasLost}}">{{.Summary.ReplicasLost}} ready replicas lost</span><span data-verdict="breaks">{{.Summary.Breaks}} break</span><span data-verdict="at-risk">{{.Summary.AtRisk}} at risk</span></p>
<h2>Pools before and after</h2>
<table id="pools"><tr><th>Pool</th><th>OS / build</th><th>Nodes</th><th>Pods</th><th>CPU before</th><th>CPU after</th></tr>
{{range .PoolRows}}<tr data-pool="{{.Pool}}"><td>{{.Pool}}</td><td>{{.OS}}{{.Build}}</td><td data-nodes-before="{{.NodesBefore}}" data-nodes-after="{{.NodesAfter}}">{{.NodesBefore}} &rarr; {{.NodesAfter}}</td><td data-pods-before="{{.PodsBefore}}" data-pods-after="{{.PodsAfter}}">{{.PodsBefore}} &rarr; {{.PodsAfter}}</td>
<td data-side="before" data-percent="{{.Before.Percent}}"><svg width="160" height="14"><rect class="track" width="100%" height="14"/><rect class="{{.Before.Level}}" width="{{.Before.Width}}" height="14"/></svg> {{.Before.Percent}}%</td>
<td data-side="after" data-percent="{{.After.Percent}}"><svg width="160" height="14"><rect class="track" width="100%" height="14"/><rect class="{{.After.Level}}" width="{{.After.Width}}" height="14"/></svg> {{.After.Percent}}%</td></tr>
{{end}}</table>
<h2>Workloads that change</h2>
{{if .Changed}}<table id="workloads"><tr><th>Workload</th><th>Verdict</th><th>Before</th><th>After</th><th>Causes</th></tr>
{{range .Changed}}<tr class="{{.Verdict}}" data-workload="{{.Workload}}" data-verdict="{{.Verdict}}"><td>{{.Workload}}</td><td>{{.Verdict}}</td><td>{{state .Before}}</td><td>{{state .After}}</td>
<td><ul>{{range .Causes}}<li data-cause="{{.ID}}"><code>{{.ID}}</code> {{.Message}}{{if .Hint}}<br><small>{{.Hint}}</small>{{end}}</li>{{end}}</ul></td></tr>
{{end}}</table>{{else}}<p id="workloads">No workload changes.</p>{{end}}
{{if or .Nodes .NodeIssues}}<h2>Nodes</h2>
{{range .Nodes}}<h3 data-node-pool="{{.Pool}}">{{.Pool}}</h3>{{if .Error}}<p>cannot generate: {{.Error}}</p>{{else}}<p>Kubernetes {{.WindowsNode.KubernetesVersion}}, {{.WindowsNode.WindowsBuild}}, containerd {{.WindowsNode.ContainerdVersion}}, {{.WindowsNode.CNI}}</p><ul>{{range .Files}}<li><code>{{.Path}}</code></li>{{end}}</ul>{{end}}{{end}}
{{if .NodeIssues}}<table id="node-issues"><tr><th>File</th><th>Rule</th><th>Message</th></tr>{{range .NodeIssues}}<tr><td>{{.File}}:{{.Line}}</td><td>{{.Rule}}</td><td>{{.Message}}</td></tr>{{end}}</table>{{end}}{{end}}
<h2>Migration steps</h2>
<ol id="steps">{{range .Steps}}<li data-step="{{.Kind}}"><b>{{.Title}}</b>
{{if .Details}}<ul>{{range .Details}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Evictions}}<p>{{len .Evictions}} evictions</p>{{end}}
{{range .Commands}}<pre>$ {{.}}</pre>{{end}}
{{range .Blocked}}<p class="breaks">blocked: {{.}}</p>{{end}}
{{if .Check}}<p class="check">check: {{.Check}}</p>{{end}}</li>
{{end}}</ol>
</body></html>
`))
