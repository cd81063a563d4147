package auditreport

import (
	"html/template"
	"io"

	"github.com/winkube/winkube/internal/audit"
	"github.com/winkube/winkube/internal/rule"
)

// HTML writes a self-contained page: no scripts, no external resources.
func HTML(w io.Writer, res *audit.Result, tool string) error {
	type row struct {
		Severity, Rule, Location, Message, Hint string
	}
	var rows []row
	for _, f := range res.Findings {
		if f.Suppressed {
			continue
		}
		loc := ""
		if f.Object != nil {
			loc = f.Object.Ref()
			if f.Path != "" {
				loc += ":" + f.Path
			}
		}
		rows = append(rows, row{f.Severity.String(), f.Rule, loc, f.Message, f.Hint})
	}
	c := lintReport(res, tool).Count()
	return page.Execute(w, map[string]any{"R": res, "Tool": tool, "Rows": rows, "Counts": c, "Error": rule.Error.String()})
}

var page = template.Must(template.New("audit").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>winkube audit</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
.area{display:inline-block;padding:.6rem 1rem;margin:.3rem;border-radius:.4rem;min-width:8rem}
.ready{background:#d7f5dd}.at-risk{background:#fff1c2}.not-ready{background:#ffd6d6}
.error{color:#b00020;font-weight:bold}.warning{color:#8a6100}.info{color:#225}
.hint{color:#555;font-size:.9em}
</style></head><body>
<h1>winkube audit</h1>
<p id="cluster">{{.R.Nodes}} nodes, {{.R.Pods}} pods, API server {{.R.Server}} (modelled as Kubernetes {{.R.Model.V}}); {{.Counts.Errors}} errors, {{.Counts.Warnings}} warnings, {{.Counts.Infos}} infos.</p>
<h2>Readiness</h2>
<div id="areas">{{range .R.Areas}}<div class="area {{.Status}}" data-area="{{.Name}}" data-status="{{.Status}}"><strong>{{.Name}}</strong><br>{{.Status}}<br>{{.Errors}} errors, {{.Warnings}} warnings</div>{{end}}</div>
<h2>Findings</h2>
<table id="findings"><thead><tr><th>Severity</th><th>Rule</th><th>Object and field</th><th>Message</th></tr></thead><tbody>
{{range .Rows}}<tr data-rule="{{.Rule}}"><td class="{{.Severity}}">{{.Severity}}</td><td>{{.Rule}}</td><td>{{.Location}}</td><td>{{.Message}}{{if .Hint}}<div class="hint">hint: {{.Hint}}</div>{{end}}</td></tr>
{{else}}<tr><td colspan="4">No findings.</td></tr>{{end}}</tbody></table>
{{if .R.Headroom}}<h2>Headroom of Windows workloads</h2>
<table id="headroom"><thead><tr><th>Workload</th><th>More replicas that fit</th></tr></thead><tbody>
{{range .R.Headroom}}<tr data-workload="{{.Workload}}"><td>{{.Workload}}</td><td>{{.MoreFit}}</td></tr>{{end}}</tbody></table>{{end}}
{{range .R.Notes}}<p class="note">note: {{.}}</p>{{end}}
<footer>winkube {{.Tool}}</footer>
</body></html>
`))
