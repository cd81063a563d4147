package simulatehtml_test

import (
	"bytes"
	"fmt"
	"github.com/winkube/winkube/test/chromium"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/winkube/winkube/internal/report/simreport"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/test/htmldom"
)

const (
	htmlPendingMsg = "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s). no new claims to deallocate, " +
		"preemption: 0/5 nodes are available: 2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
	htmlRejectMsg = `pods "job-0" is forbidden: pod rejected: RuntimeClass "windows-2019" not found`
	htmlStartMsg  = "image mcr.microsoft.com/windows/servercore:ltsc2019 needs Windows build 10.0.17763; node win-1 runs 10.0.20348"
	htmlHostile   = `<script>alert("x")</script> & <b>not bold</b>`
)

// htmlResult has a pool at each utilisation level, one over 100% and one
// with nothing allocatable, and a pod of every outcome.
func htmlResult() *simulate.Result {
	gi := int64(1 << 30)
	return &simulate.Result{
		Version: "1.36",
		Pools: []simulate.PoolUsage{
			{Pool: "linux", OS: "linux", Nodes: 3, Requested: simulate.Resources{MilliCPU: 4500, Memory: 12 * gi, Pods: 9}, Allocatable: simulate.Resources{MilliCPU: 12000, Memory: 48 * gi, Pods: 330}},
			{Pool: "win-2022", OS: "windows", Nodes: 2, Requested: simulate.Resources{MilliCPU: 7600, Memory: 6 * gi, Pods: 4}, Allocatable: simulate.Resources{MilliCPU: 8000, Memory: 8 * gi, Pods: 8}},
			{Pool: "over", OS: "linux", Nodes: 1, Requested: simulate.Resources{MilliCPU: 5000, Memory: gi, Pods: 1}, Allocatable: simulate.Resources{MilliCPU: 4000, Memory: 4 * gi, Pods: 3}},
			{Pool: "empty", OS: "windows"},
		},
		Workloads: []simulate.WorkloadResult{
			{Workload: "Deployment/default/web", File: "web.yaml", Line: 1, Replicas: 3, Placed: []simulate.PoolCount{{Pool: "linux", Count: 3}}},
			{Workload: "Deployment/default/iis", File: "iis.yaml", Line: 7, Replicas: 4, Placed: []simulate.PoolCount{{Pool: "win-2022", Count: 2}},
				Pending: 2, PendingMessage: htmlPendingMsg, StartFailures: 1, StartFailure: htmlStartMsg},
			{Workload: "Job/default/job", Replicas: 1, Rejected: 1, RejectMessage: htmlRejectMsg},
		},
		Pods: []simulate.PodResult{
			{Workload: "Deployment/default/web", Namespace: "default", Pod: "web-0", Node: "lin-0", Pool: "linux"},
			{Workload: "Deployment/default/web", Namespace: "default", Pod: "web-1", Node: "lin-1", Pool: "linux"},
			{Workload: "Deployment/default/web", Namespace: "default", Pod: "web-2", Node: "lin-2", Pool: "linux"},
			{Workload: "Deployment/default/iis", Namespace: "default", Pod: "iis-0", Node: "win-0", Pool: "win-2022"},
			{Workload: "Deployment/default/iis", Namespace: "default", Pod: "iis-1", Node: "win-1", Pool: "win-2022", StartFailure: htmlStartMsg},
			{Workload: "Deployment/default/iis", Namespace: "default", Pod: "iis-2", Pending: true, Message: htmlPendingMsg,
				Explanation: []string{"3 Linux nodes: taint os=windows:NoSchedule is not tolerated", "add the toleration os=windows:NoSchedule"}},
			{Workload: "Deployment/default/iis", Namespace: "default", Pod: "iis-3", Pending: true, Message: htmlPendingMsg},
			{Workload: "Job/default/job", Namespace: "default", Pod: "job-0", Rejected: true, RejectMessage: htmlRejectMsg},
		},
		Dependencies: []simulate.Dependency{
			{Workload: "Deployment/default/iis", Pool: "win-2022", Name: "backend.shop", Where: `env BACKEND of container "iis"`, Service: "shop/backend",
				Blocked: "a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix; use backend.shop.svc.cluster.local"},
			{Workload: "Deployment/default/iis", Pool: "win-2022", Name: "api", Where: `env API of container "iis"`, Service: "default/api", Resolves: true},
		},
		Notes: []string{htmlHostile},
	}
}

// TestWriteHTMLInChromium renders the report in headless Chromium and checks
// what the browser built: pools, bar widths, tables and messages.
func TestWriteHTMLInChromium(t *testing.T) {
	t.Parallel()
	browser := chromium.Path(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := simreport.WriteHTML(&b, htmlResult()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium.Run(t, browser, dir, "--dump-dom", "file://"+page)
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatalf("parsing Chromium's DOM: %v", err)
	}

	// Each pool's bars: data-percent and the SVG fill's width.
	bars := []struct{ pool, resource, percent, width, level string }{
		{"linux", "CPU", "37.5", "37.5%", "ok"},
		{"linux", "Memory", "25", "25%", "ok"},
		{"linux", "Pods", "2.7", "2.7%", "ok"},
		{"win-2022", "CPU", "95", "95%", "full"},
		{"win-2022", "Memory", "75", "75%", "warn"},
		{"win-2022", "Pods", "50", "50%", "ok"},
		{"over", "CPU", "125", "100%", "full"},
		{"empty", "Memory", "0", "0%", "ok"},
	}
	for _, want := range bars {
		pool := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-pool") == want.pool })
		if pool == nil {
			t.Errorf("no pool %q in the rendered page", want.pool)
			continue
		}
		if h := htmldom.Find(pool, htmldom.Element("h3")); h == nil || !strings.HasPrefix(htmldom.Text(h), want.pool+" ") {
			t.Errorf("pool %q: heading %q", want.pool, htmldom.Text(h))
		}
		row := htmldom.Find(pool, func(n *html.Node) bool { return htmldom.Attr(n, "data-resource") == want.resource })
		if row == nil {
			t.Errorf("pool %q: no %s bar", want.pool, want.resource)
			continue
		}
		fill := htmldom.Find(row, func(n *html.Node) bool { return n.Data == "rect" && htmldom.Attr(n, "class") != "track" })
		if got := htmldom.Attr(row, "data-percent"); got != want.percent {
			t.Errorf("pool %q %s: data-percent %q, want %q", want.pool, want.resource, got, want.percent)
		}
		if fill == nil || htmldom.Attr(fill, "width") != want.width || htmldom.Attr(fill, "class") != want.level {
			t.Errorf("pool %q %s: bar %s, want width %q class %q", want.pool, want.resource, htmldom.Attrs(fill), want.width, want.level)
		}
		if !strings.Contains(htmldom.Text(row), "("+want.percent+"%)") {
			t.Errorf("pool %q %s: label %q lacks %q", want.pool, want.resource, htmldom.Text(row), want.percent+"%")
		}
	}

	// The workload table.
	rows := map[string]string{"Deployment/default/web": "3/3", "Deployment/default/iis": "2/4", "Job/default/job": "0/1"}
	for wl, scheduled := range rows {
		tr := htmldom.Find(doc, func(n *html.Node) bool { return n.Data == "tr" && htmldom.Attr(n, "data-workload") == wl })
		if tr == nil || !strings.Contains(htmldom.Text(tr), scheduled) {
			t.Errorf("workload row %s: %q, want %q scheduled", wl, htmldom.Text(tr), scheduled)
		}
	}

	// Messages verbatim, grouped per workload, with explanations.
	for _, want := range []struct{ section, msg, pods string }{
		{"pending", htmlPendingMsg, "iis-2, iis-3"},
		{"rejected", htmlRejectMsg, "job-0"},
		{"failing", htmlStartMsg, "iis-1"},
	} {
		sec := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "id") == want.section })
		msg := htmldom.Find(sec, func(n *html.Node) bool { return htmldom.Attr(n, "class") == "msg" })
		if msg == nil || htmldom.Text(msg) != want.msg {
			t.Errorf("%s section: message %q, want %q", want.section, htmldom.Text(msg), want.msg)
		}
		if !strings.Contains(htmldom.Text(sec), want.pods) {
			t.Errorf("%s section %q does not name pods %s", want.section, htmldom.Text(sec), want.pods)
		}
	}
	if expl := htmldom.Find(doc, htmldom.Element("li")); expl == nil || htmldom.Text(expl) != "3 Linux nodes: taint os=windows:NoSchedule is not tolerated" {
		t.Errorf("first explanation %q", htmldom.Text(expl))
	}

	// Service dependencies: one row per name, its outcome in words.
	for _, want := range []struct{ service, class, status string }{
		{"shop/backend", "bad", "does not resolve: a Windows pod treats a name with a dot as fully qualified"},
		{"default/api", "ok", "resolves"},
	} {
		tr := htmldom.Find(doc, func(n *html.Node) bool { return n.Data == "tr" && htmldom.Attr(n, "data-service") == want.service })
		if tr == nil || htmldom.Attr(tr, "class") != want.class || !strings.Contains(htmldom.Text(tr), want.status) {
			t.Errorf("dependency row %s: class %q, text %q; want class %q and %q", want.service, htmldom.Attr(tr, "class"), htmldom.Text(tr), want.class, want.status)
		}
	}

	// Escaping: the hostile note is text, not markup.
	if s := htmldom.Find(doc, htmldom.Element("script")); s != nil {
		t.Errorf("the page has a <script> element: %q", htmldom.Text(s))
	}
	if notes := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "id") == "notes" }); htmldom.Text(notes) != htmlHostile {
		t.Errorf("note rendered as %q, want the text %q", htmldom.Text(notes), htmlHostile)
	}

	// The outcome bar's segments follow each other and fill the track.
	var x float64
	for _, seg := range htmldom.FindAll(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-outcome") != "" }) {
		if got := htmlPercent(t, htmldom.Attr(seg, "x")); got < x-0.11 || got > x+0.11 {
			t.Errorf("outcome %s starts at %v%%, want %v%%", htmldom.Attr(seg, "data-outcome"), got, x)
		}
		x += htmlPercent(t, htmldom.Attr(seg, "width"))
	}
	if x < 99.8 || x > 100.2 {
		t.Errorf("outcome segments add up to %v%%, want 100%%", x)
	}

	htmlScreenshot(t, browser, dir, page)
}

// htmlScreenshot renders the page to a PNG and checks that the bars are
// painted in their colours (SVG rendered, CSS applied).
func htmlScreenshot(t *testing.T, browser, dir, page string) {
	t.Helper()
	shot := filepath.Join(dir, "report.png")
	chromium.Run(t, browser, dir, "--screenshot="+shot, "--window-size=1200,1400", "--hide-scrollbars", "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("Chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	if out := os.Getenv("WINKUBE_HTML_SCREENSHOT"); out != "" { // for a person to look at
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(out, data, 0o644)
	}
	for name, c := range map[string]color.RGBA{"ok": {0x2e, 0x7d, 0x32, 0xff}, "warn": {0xed, 0x8b, 0x00, 0xff}, "full": {0xc6, 0x28, 0x28, 0xff}} {
		if n := htmlCountColor(img, c); n < 200 {
			t.Errorf("screenshot has %d pixels of the %s bar colour, want bars painted", n, name)
		}
	}
}

func htmlCountColor(img image.Image, want color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				n++
			}
		}
	}
	return n
}

func htmlPercent(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscanf(s, "%g%%", &f); err != nil {
		t.Errorf("%q is not a percentage", s)
	}
	return f
}
