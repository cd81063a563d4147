package simreport

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/simulate"
)

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and SVG, no scripts, nothing fetched over the network, so it can be
// attached to a CI run or mailed. It shows the pod outcomes, the
// requested-versus-allocatable bars of every pool, a row per workload, and
// the pending, rejected and failing pods with Kubernetes' messages verbatim
// (users grep their events for them) and winkube's explanations.
func WriteHTML(w io.Writer, r *simulate.Result) error {
	if err := htmlTemplate.Execute(w, newHTMLReport(r)); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	return nil
}

type htmlReport struct {
	Version   string
	Counts    simulate.Counts
	Workloads int
	Outcomes  []htmlBar // stacked: scheduled, failing at start, pending, rejected
	Pools     []htmlPool
	Rows      []htmlWorkload
	Pending   []htmlGroup
	Rejected  []htmlGroup
	Failing   []htmlGroup
	Deps      []htmlDep
	Notes     []string
}

// htmlDep is one Service dependency of a workload on Windows nodes.
type htmlDep struct {
	simulate.Dependency
	Status, Class string
}

type htmlPool struct {
	Name, OS string
	Nodes    int
	Bars     []htmlBar
}

// htmlBar is one SVG bar; Width is a percentage of the bar's full length.
type htmlBar struct {
	Name, Detail, Level string
	Percent             string // "37.5"
	Width, X            string // "37.5%"
}

type htmlWorkload struct {
	Name, Where, Placed, Class    string
	PerNode                       string
	Replicas, Scheduled           int
	Pending, Rejected, StartFails int
	MoreFit                       *int
	NotModelled                   []string
}

// htmlGroup is the pods of one workload that share an outcome message.
type htmlGroup struct {
	Workload, Message string
	Explanation       []string
	Pods, Nodes       []string // the first few
	Count, More       int
}

const htmlListed = 8 // pod names listed per group before "and N more"

func newHTMLReport(r *simulate.Result) *htmlReport {
	c := r.Count()
	rep := &htmlReport{Version: r.Version, Counts: c, Workloads: len(r.Workloads), Notes: r.Notes}
	x := 0.0
	for _, o := range []struct {
		name, level string
		n           int
	}{{"scheduled and starting", "ok", c.Scheduled - c.StartFailures}, {"failing at start", "warn", c.StartFailures},
		{"pending", "full", c.Pending}, {"rejected", "bad", c.Rejected}} {
		b := bar(o.name, int64(o.n), int64(c.Pods), fmt.Sprintf("%d %s", o.n, o.name))
		b.Level, b.X = o.level, pct(x)+"%"
		x += math.Min(percent(int64(o.n), int64(c.Pods)), 100)
		rep.Outcomes = append(rep.Outcomes, b)
	}
	for _, p := range r.Pools {
		rep.Pools = append(rep.Pools, htmlPool{Name: p.Pool, OS: p.OS, Nodes: p.Nodes, Bars: []htmlBar{
			bar("CPU", p.Requested.MilliCPU, p.Allocatable.MilliCPU, simulate.FormatCPU(p.Requested.MilliCPU)+" / "+simulate.FormatCPU(p.Allocatable.MilliCPU)),
			bar("Memory", p.Requested.Memory, p.Allocatable.Memory, simulate.FormatMemory(p.Requested.Memory)+" / "+simulate.FormatMemory(p.Allocatable.Memory)),
			bar("Pods", p.Requested.Pods, p.Allocatable.Pods, fmt.Sprintf("%d / %d", p.Requested.Pods, p.Allocatable.Pods)),
		}})
	}
	for _, wr := range r.Workloads {
		rep.Rows = append(rep.Rows, workloadRow(wr))
	}
	rep.Pending, rep.Rejected, rep.Failing = groupPods(r.Pods)
	for _, d := range r.Dependencies {
		status, class := depStatus(d)
		rep.Deps = append(rep.Deps, htmlDep{Dependency: d, Status: status, Class: class})
	}
	return rep
}

// bar sizes used against total, coloured by report.UsageLevel.
func bar(name string, used, total int64, detail string) htmlBar {
	p := percent(used, total)
	return htmlBar{Name: name, Detail: detail, Level: report.UsageLevel(p), Percent: pct(p), Width: pct(math.Min(p, 100)) + "%"}
}

func percent(used, total int64) float64 {
	if total <= 0 {
		return 0
	}
	return float64(used) * 100 / float64(total)
}

// pct renders a percentage with at most one decimal: 37.5, 33.3, 100.
func pct(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64)
}

func workloadRow(wr simulate.WorkloadResult) htmlWorkload {
	row := htmlWorkload{Name: wr.Workload, Replicas: wr.Replicas, Pending: wr.Pending, Rejected: wr.Rejected,
		StartFails: wr.StartFailures, MoreFit: wr.MoreFit, NotModelled: wr.NotModelled, Class: "ok"}
	if wr.File != "" {
		row.Where = wr.File
		if wr.Line > 0 {
			row.Where += ":" + strconv.Itoa(wr.Line)
		}
	}
	var placed []string
	for _, pc := range wr.Placed {
		row.Scheduled += pc.Count
		placed = append(placed, fmt.Sprintf("%s %d", pc.Pool, pc.Count))
	}
	row.Placed = strings.Join(placed, ", ")
	if !strings.HasPrefix(wr.Workload, "DaemonSet/") {
		row.PerNode = perNode(wr.Nodes)
	}
	if wr.Pending+wr.Rejected+wr.StartFailures > 0 {
		row.Class = "bad"
	}
	return row
}

// groupPods groups the pending, rejected and failing pods by workload and
// message, in the order they were placed.
func groupPods(pods []simulate.PodResult) (pending, rejected, failing []htmlGroup) {
	type key struct{ kind, workload, msg string }
	index := map[key]*htmlGroup{}
	var order []key
	for _, p := range pods {
		k := key{workload: p.Workload}
		switch {
		case p.Rejected:
			k.kind, k.msg = "rejected", p.RejectMessage
		case p.Pending:
			k.kind, k.msg = "pending", p.Message
		case p.StartFailure != "":
			k.kind, k.msg = "failing", p.StartFailure
		default:
			continue
		}
		g := index[k]
		if g == nil {
			g = &htmlGroup{Workload: p.Workload, Message: k.msg, Explanation: p.Explanation}
			index[k] = g
			order = append(order, k)
		}
		g.Count += p.Pods()
		if len(g.Pods) < htmlListed {
			g.Pods = append(g.Pods, p.Pod)
			if p.Node != "" {
				g.Nodes = append(g.Nodes, p.Node)
			}
		}
		g.More = g.Count - len(g.Pods)
	}
	for _, k := range order {
		switch k.kind {
		case "rejected":
			rejected = append(rejected, *index[k])
		case "pending":
			pending = append(pending, *index[k])
		default:
			failing = append(failing, *index[k])
		}
	}
	return pending, rejected, failing
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"count": plural2,
	"wrap": func(kind string, g htmlGroup) any {
		return struct {
			Kind string
			G    htmlGroup
		}{kind, g}
	},
}).Parse(htmlPage))

// htmlPage is the page. Bars are SVG rects whose width is the percentage
// used; colours come from the level classes, so the page has no inline
// style for html/template to vet.
const htmlPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>winkube simulate report</title>
<style>
:root{--ok:#2e7d32;--warn:#ed8b00;--full:#c62828;--bad:#6a1b9a;--track:#e8eaed;--fg:#1f2328;--dim:#656d76;--line:#d0d7de}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0 auto;max-width:1100px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
.dim{color:var(--dim)}code,.msg{font:12.5px/1.4 ui-monospace,SFMono-Regular,Consolas,monospace}
.summary{display:flex;gap:18px;flex-wrap:wrap;margin:12px 0 6px}.summary span b{font-size:18px}
.pools{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:14px}
.pool{border:1px solid var(--line);border-radius:8px;padding:12px 14px}.pool h3{margin:0 0 8px;font-size:15px}
.bar-row{display:grid;grid-template-columns:58px 1fr 132px;align-items:center;gap:8px;margin:6px 0}
.bar-row .value{font-size:12.5px;text-align:right;white-space:nowrap}
svg.bar{display:block}.track{fill:var(--track)}.ok{fill:var(--ok)}.warn{fill:var(--warn)}.full{fill:var(--full)}.bad{fill:var(--bad)}
.legend span{margin-right:14px;font-size:12.5px}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
.legend i.ok{background:var(--ok)}.legend i.warn{background:var(--warn)}.legend i.full{background:var(--full)}.legend i.bad{background:var(--bad)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12.5px;color:var(--dim);font-weight:600}td.num{text-align:right}tr.bad td:first-child{border-left:3px solid var(--full)}tr.ok td:first-child{border-left:3px solid var(--ok)}
.group{border:1px solid var(--line);border-left:4px solid var(--full);border-radius:6px;padding:10px 12px;margin:10px 0}
.group.rejected{border-left-color:var(--bad)}.group.failing{border-left-color:var(--warn)}
.msg{background:#f6f8fa;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-word;margin:6px 0}
ul.expl{margin:4px 0 0 18px;padding:0}
</style>
</head>
<body>
<h1>winkube simulate report</h1>
<div class="dim">Simulated {{count .Counts.Pods "pod"}} of {{count .Workloads "workload"}} on {{count .Counts.Nodes "node"}}{{with .Version}} (Kubernetes {{.}}){{end}}</div>
<div class="summary" id="summary">
<span><b>{{.Counts.Scheduled}}</b> scheduled</span><span><b>{{.Counts.Pending}}</b> pending</span>
<span><b>{{.Counts.Rejected}}</b> rejected</span><span><b>{{.Counts.StartFailures}}</b> failing at start</span>
</div>
<svg class="bar" id="outcomes" width="100%" height="18" role="img" aria-label="pod outcomes">
<rect class="track" width="100%" height="18" rx="3"/>{{range .Outcomes}}
<rect class="{{.Level}}" data-outcome="{{.Name}}" x="{{.X}}" width="{{.Width}}" height="18"><title>{{.Detail}} ({{.Percent}}%)</title></rect>{{end}}
</svg>
<div class="legend">{{range .Outcomes}}<span><i class="{{.Level}}"></i>{{.Detail}}</span>{{end}}</div>

<h2>Pools: requested / allocatable</h2>
{{if not .Pools}}<p class="dim">No pools.</p>{{end}}
<div class="pools">{{range .Pools}}
<section class="pool" data-pool="{{.Name}}">
<h3>{{.Name}} <span class="dim">{{.OS}} · {{count .Nodes "node"}}</span></h3>{{range .Bars}}
<div class="bar-row" data-resource="{{.Name}}" data-percent="{{.Percent}}">
<span>{{.Name}}</span>
<svg class="bar" width="100%" height="16" role="img" aria-label="{{.Name}} {{.Percent}}% requested"><rect class="track" width="100%" height="16" rx="3"/><rect class="{{.Level}}" width="{{.Width}}" height="16" rx="3"/></svg>
<span class="value">{{.Detail}} ({{.Percent}}%)</span>
</div>{{end}}
</section>{{end}}
</div>

<h2>Workloads</h2>
<table id="workloads">
<thead><tr><th>Workload</th><th>Scheduled</th><th>Placed per pool</th><th>Pending</th><th>Rejected</th><th>Failing at start</th></tr></thead>
<tbody>{{range .Rows}}
<tr class="{{.Class}}" data-workload="{{.Name}}"><td><code>{{.Name}}</code>{{with .Where}}<div class="dim">{{.}}</div>{{end}}{{range .NotModelled}}<div class="dim">not modelled: {{.}}</div>{{end}}{{with .MoreFit}}<div class="dim">{{.}} more would fit</div>{{end}}</td>
<td class="num">{{.Scheduled}}/{{.Replicas}}</td><td>{{.Placed}}{{with .PerNode}}<div class="dim">per node: {{.}}</div>{{end}}</td><td class="num">{{.Pending}}</td><td class="num">{{.Rejected}}</td><td class="num">{{.StartFails}}</td></tr>{{end}}
</tbody>
</table>
{{define "group"}}<div class="group {{.Kind}}" data-workload="{{.G.Workload}}">
<div><b>{{.G.Count}}</b> of <code>{{.G.Workload}}</code>: {{range $i, $p := .G.Pods}}{{if $i}}, {{end}}{{$p}}{{end}}{{if .G.More}} and {{.G.More}} more{{end}}{{with .G.Nodes}} <span class="dim">on {{range $i, $n := .}}{{if $i}}, {{end}}{{$n}}{{end}}</span>{{end}}</div>
<div class="msg">{{.G.Message}}</div>{{with .G.Explanation}}
<ul class="expl">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
</div>{{end}}
<h2>Pending pods</h2>
<div id="pending">{{range .Pending}}{{template "group" (wrap "pending" .)}}{{else}}<p class="dim">None: every admitted pod was scheduled.</p>{{end}}</div>
<h2>Rejected by the API server</h2>
<div id="rejected">{{range .Rejected}}{{template "group" (wrap "rejected" .)}}{{else}}<p class="dim">None.</p>{{end}}</div>
<h2>Start failures</h2>
<div id="failing">{{range .Failing}}{{template "group" (wrap "failing" .)}}{{else}}<p class="dim">None: every scheduled pod starts.</p>{{end}}</div>
{{with .Deps}}<h2>Service dependencies of Windows workloads</h2>
<table id="dependencies">
<thead><tr><th>Workload</th><th>Pool</th><th>Name</th><th>Service</th><th>From a Windows pod</th></tr></thead>
<tbody>{{range .}}
<tr class="{{.Class}}" data-workload="{{.Workload}}" data-service="{{.Service}}"><td><code>{{.Workload}}</code><div class="dim">{{.Where}}</div></td><td>{{.Pool}}</td><td><code>{{.Name}}</code></td><td>{{.Service}}</td><td>{{.Status}}{{with .Note}}<div class="dim">{{.}}</div>{{end}}</td></tr>{{end}}
</tbody>
</table>{{end}}
{{with .Notes}}<h2>Notes</h2>
<ul id="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body>
</html>
`
