package audit

import (
	"github.com/winkube/winkube/test/chromium"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/winkube/winkube/test/htmldom"
)

// TestAuditHTMLInChromium renders the HTML audit report of the live
// scenario in headless Chromium and checks what the browser built: one
// row per finding, the readiness of each area, the headroom table, and
// nothing loaded from elsewhere.
func TestAuditHTMLInChromium(t *testing.T) {
	browser := chromium.Path(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "audit.html")
	if code, _, stderr := winkube(t, "audit", "--kubeconfig", cp.KubeconfigPath, "-q", "--output-file", "html="+page); code != 1 {
		t.Fatalf("audit -o html: exit %d: %s", code, stderr)
	}
	_, rep, _ := runAudit(t, "--kubeconfig", cp.KubeconfigPath)

	dom := chromium.Run(t, browser, dir, "--dump-dom", "file://"+page)
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatalf("parsing Chromium's DOM: %v", err)
	}
	rows := htmldom.FindAll(doc, func(n *html.Node) bool { return n.Data == "tr" && htmldom.Attr(n, "data-rule") != "" })
	if len(rows) != len(rep.Findings) {
		t.Errorf("%d finding rows in the page, %d findings in the JSON report", len(rows), len(rep.Findings))
	}
	rules := map[string]bool{}
	for _, r := range rows {
		rules[htmldom.Attr(r, "data-rule")] = true
	}
	for _, id := range []string{"windows-node-not-ready", "windows-node-untainted", "missing-windows-toleration", "workload-pending"} {
		if !rules[id] {
			t.Errorf("no %s row in the page", id)
		}
	}
	for _, a := range rep.Areas {
		el := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-area") == a.Name })
		if el == nil {
			t.Errorf("area %s missing from the page", a.Name)
			continue
		}
		if got := htmldom.Attr(el, "data-status"); got != a.Status || !strings.Contains(htmldom.Text(el), a.Status) {
			t.Errorf("area %s: page says %q (%q), JSON %q", a.Name, got, htmldom.Text(el), a.Status)
		}
	}
	if rep.Simulation == nil || len(rep.Simulation.Headroom) == 0 {
		t.Fatal("no headroom in the JSON report")
	}
	for _, h := range rep.Simulation.Headroom {
		row := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-workload") == h.Workload })
		if row == nil {
			t.Errorf("no headroom row for %s", h.Workload)
		}
	}
	for _, n := range htmldom.FindAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
		if n.Data == "script" || n.Data == "link" || n.Data == "img" || n.Data == "iframe" {
			t.Errorf("page has a <%s>: the report must be self-contained", n.Data)
		}
		for _, a := range n.Attr {
			if (a.Key == "src" || a.Key == "href") && a.Val != "" {
				t.Errorf("<%s %s=%q>: the report must load nothing", n.Data, a.Key, a.Val)
			}
		}
	}
}
