package plan_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/report/planreport"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/chromium"
	"github.com/winkube/winkube/test/htmldom"
)

const hostile = `<script>alert("x")</script>`

// fixturePlan plans the move of pool win to Windows Server 2025 with a
// RuntimeClass whose handler is markup, which the page must show as text.
func fixturePlan(t *testing.T) *plan.Report {
	t.Helper()
	cur, objs := loadFixture(t)
	setPool, err := plan.SetPool("win:build=10.0.26100")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := plan.RuntimeClass("odd:handler=" + hostile)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(t.Context(), plan.Input{Current: cur, Model: winsupport.ForVersion(winsupport.Version{Minor: 33}), Objects: objs,
		Rules: rules.Suite(), Changes: []plan.Change{setPool, rc}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestHTMLInChromium renders the plan in headless Chromium and checks what
// the browser built: each pool's before and after, the workloads that
// break with their causes, and every step in order.
func TestHTMLInChromium(t *testing.T) {
	t.Parallel()
	browser := chromium.Path(t)
	rep := fixturePlan(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "plan.html")
	var b bytes.Buffer
	if err := planreport.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("http://")) || bytes.Contains(b.Bytes(), []byte("https://")) || bytes.Contains(b.Bytes(), []byte("<script")) {
		t.Error("the page links out or carries a script; it must be self-contained and static")
	}
	doc, err := html.Parse(strings.NewReader(chromium.Run(t, browser, dir, "--dump-dom", "file://"+page)))
	if err != nil {
		t.Fatalf("parsing Chromium's DOM: %v", err)
	}

	pools := []struct{ pool, podsBefore, podsAfter, nodesAfter string }{
		{"linux", "3", "3", "3"},
		{"win", "9", "4", "3"},
	}
	for _, want := range pools {
		row := htmldom.Find(doc, func(n *html.Node) bool { return n.Data == "tr" && htmldom.Attr(n, "data-pool") == want.pool })
		if row == nil {
			t.Errorf("no row for pool %s", want.pool)
			continue
		}
		pods := htmldom.Find(row, func(n *html.Node) bool { return htmldom.Attr(n, "data-pods-before") != "" })
		if got := htmldom.Attr(pods, "data-pods-before") + "->" + htmldom.Attr(pods, "data-pods-after"); got != want.podsBefore+"->"+want.podsAfter {
			t.Errorf("pool %s: pods %s, want %s->%s", want.pool, got, want.podsBefore, want.podsAfter)
		}
		for _, side := range []string{"before", "after"} {
			cell := htmldom.Find(row, func(n *html.Node) bool { return htmldom.Attr(n, "data-side") == side })
			if cell == nil || htmldom.Find(cell, func(n *html.Node) bool { return n.Data == "rect" && htmldom.Attr(n, "class") != "track" }) == nil {
				t.Errorf("pool %s: no %s CPU bar", want.pool, side)
			}
		}
	}
	// The win pool's CPU bar after the move is the simulation's figure.
	var winAfter plan.PoolDiff
	for _, p := range rep.Pools {
		if p.Pool == "win" {
			winAfter = p
		}
	}
	wantPct := strconv.FormatFloat(float64(winAfter.UsageAfter.Requested.MilliCPU)*100/float64(winAfter.UsageAfter.Allocatable.MilliCPU), 'f', 1, 64)
	cell := htmldom.Find(doc, func(n *html.Node) bool {
		return htmldom.Attr(n, "data-side") == "after" && htmldom.Attr(n.Parent, "data-pool") == "win"
	})
	if got := htmldom.Attr(cell, "data-percent"); got != wantPct {
		t.Errorf("win CPU after: %s%%, want %s%%", got, wantPct)
	}

	for _, ref := range []string{"Deployment/shop/iis", "Deployment/shop/report"} {
		row := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-workload") == ref })
		if row == nil || htmldom.Attr(row, "data-verdict") != plan.Breaks {
			t.Errorf("%s: row %s, want verdict breaks", ref, htmldom.Attrs(row))
			continue
		}
		cause := htmldom.Find(row, func(n *html.Node) bool { return htmldom.Attr(n, "data-cause") == "FailedScheduling" })
		if cause == nil || !strings.Contains(htmldom.Text(cause), "didn't match Pod's node affinity/selector") {
			t.Errorf("%s: FailedScheduling cause %q", ref, htmldom.Text(cause))
		}
	}
	if htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-workload") == "Deployment/shop/web" }) != nil {
		t.Error("an unchanged workload is listed among those that change")
	}
	if s := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "id") == "summary" }); htmldom.Attr(s, "data-broken") != "true" {
		t.Errorf("summary %s, want data-broken=true", htmldom.Attrs(s))
	}

	steps := htmldom.FindAll(doc, func(n *html.Node) bool { return n.Data == "li" && htmldom.Attr(n, "data-step") != "" })
	if len(steps) != len(rep.Steps) {
		t.Fatalf("%d steps on the page, the plan has %d", len(steps), len(rep.Steps))
	}
	for i, s := range steps {
		if htmldom.Attr(s, "data-step") != rep.Steps[i].Kind || !strings.Contains(htmldom.Text(s), rep.Steps[i].Title) {
			t.Errorf("step %d: %s %q, want %s %q", i+1, htmldom.Attr(s, "data-step"), htmldom.Text(s), rep.Steps[i].Kind, rep.Steps[i].Title)
		}
	}

	if htmldom.Find(doc, htmldom.Element("script")) != nil {
		t.Error("the RuntimeClass handler became a script element")
	}
	changes := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "id") == "changes" })
	if !strings.Contains(htmldom.Text(changes), hostile) {
		t.Errorf("changes %q lack the handler as text", htmldom.Text(changes))
	}
}
