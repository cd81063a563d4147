package simulate

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
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
func htmlResult() *Result {
	gi := int64(1 << 30)
	return &Result{
		Version: "1.36",
		Pools: []PoolUsage{
			{Pool: "linux", OS: "linux", Nodes: 3, Requested: Resources{4500, 12 * gi, 9}, Allocatable: Resources{12000, 48 * gi, 330}},
			{Pool: "win-2022", OS: "windows", Nodes: 2, Requested: Resources{7600, 6 * gi, 4}, Allocatable: Resources{8000, 8 * gi, 8}},
			{Pool: "over", OS: "linux", Nodes: 1, Requested: Resources{5000, gi, 1}, Allocatable: Resources{4000, 4 * gi, 3}},
			{Pool: "empty", OS: "windows"},
		},
		Workloads: []WorkloadResult{
			{Workload: "Deployment/default/web", File: "web.yaml", Line: 1, Replicas: 3, Placed: []PoolCount{{"linux", 3}}},
			{Workload: "Deployment/default/iis", File: "iis.yaml", Line: 7, Replicas: 4, Placed: []PoolCount{{"win-2022", 2}},
				Pending: 2, PendingMessage: htmlPendingMsg, StartFailures: 1, StartFailure: htmlStartMsg},
			{Workload: "Job/default/job", Replicas: 1, Rejected: 1, RejectMessage: htmlRejectMsg},
		},
		Pods: []PodResult{
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
		Notes: []string{htmlHostile},
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteHTML(&b, htmlResult()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// Nothing may be fetched: no URLs, external references or scripts.
	for _, re := range []string{`(?i)https?:`, `(?i)\ssrc=`, `(?i)\shref=`, `(?i)url\(`, `(?i)<script`, `(?i)@import`} {
		if loc := regexp.MustCompile(re).FindStringIndex(page); loc != nil {
			t.Errorf("report matches %s at %q; it must be self-contained", re, page[max(0, loc[0]-40):min(len(page), loc[1]+40)])
		}
	}
}

// TestWriteHTMLInChromium renders the report in headless Chromium and checks
// what the browser built: pools, bar widths, tables and messages.
func TestWriteHTMLInChromium(t *testing.T) {
	t.Parallel()
	browser := chromiumPath(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, htmlResult()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, browser, dir, "--dump-dom", "file://"+page)
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
		pool := domFind(doc, func(n *html.Node) bool { return domAttr(n, "data-pool") == want.pool })
		if pool == nil {
			t.Errorf("no pool %q in the rendered page", want.pool)
			continue
		}
		if h := domFind(pool, domElement("h3")); h == nil || !strings.HasPrefix(domText(h), want.pool+" ") {
			t.Errorf("pool %q: heading %q", want.pool, domText(h))
		}
		row := domFind(pool, func(n *html.Node) bool { return domAttr(n, "data-resource") == want.resource })
		if row == nil {
			t.Errorf("pool %q: no %s bar", want.pool, want.resource)
			continue
		}
		fill := domFind(row, func(n *html.Node) bool { return n.Data == "rect" && domAttr(n, "class") != "track" })
		if got := domAttr(row, "data-percent"); got != want.percent {
			t.Errorf("pool %q %s: data-percent %q, want %q", want.pool, want.resource, got, want.percent)
		}
		if fill == nil || domAttr(fill, "width") != want.width || domAttr(fill, "class") != want.level {
			t.Errorf("pool %q %s: bar %s, want width %q class %q", want.pool, want.resource, domAttrs(fill), want.width, want.level)
		}
		if !strings.Contains(domText(row), "("+want.percent+"%)") {
			t.Errorf("pool %q %s: label %q lacks %q", want.pool, want.resource, domText(row), want.percent+"%")
		}
	}

	// The workload table.
	rows := map[string]string{"Deployment/default/web": "3/3", "Deployment/default/iis": "2/4", "Job/default/job": "0/1"}
	for wl, scheduled := range rows {
		tr := domFind(doc, func(n *html.Node) bool { return n.Data == "tr" && domAttr(n, "data-workload") == wl })
		if tr == nil || !strings.Contains(domText(tr), scheduled) {
			t.Errorf("workload row %s: %q, want %q scheduled", wl, domText(tr), scheduled)
		}
	}

	// Messages verbatim, grouped per workload, with explanations.
	for _, want := range []struct{ section, msg, pods string }{
		{"pending", htmlPendingMsg, "iis-2, iis-3"},
		{"rejected", htmlRejectMsg, "job-0"},
		{"failing", htmlStartMsg, "iis-1"},
	} {
		sec := domFind(doc, func(n *html.Node) bool { return domAttr(n, "id") == want.section })
		msg := domFind(sec, func(n *html.Node) bool { return domAttr(n, "class") == "msg" })
		if msg == nil || domText(msg) != want.msg {
			t.Errorf("%s section: message %q, want %q", want.section, domText(msg), want.msg)
		}
		if !strings.Contains(domText(sec), want.pods) {
			t.Errorf("%s section %q does not name pods %s", want.section, domText(sec), want.pods)
		}
	}
	if expl := domFind(doc, domElement("li")); expl == nil || domText(expl) != "3 Linux nodes: taint os=windows:NoSchedule is not tolerated" {
		t.Errorf("first explanation %q", domText(expl))
	}

	// Escaping: the hostile note is text, not markup.
	if s := domFind(doc, domElement("script")); s != nil {
		t.Errorf("the page has a <script> element: %q", domText(s))
	}
	if notes := domFind(doc, func(n *html.Node) bool { return domAttr(n, "id") == "notes" }); domText(notes) != htmlHostile {
		t.Errorf("note rendered as %q, want the text %q", domText(notes), htmlHostile)
	}

	// The outcome bar's segments follow each other and fill the track.
	var x float64
	for _, seg := range domFindAll(doc, func(n *html.Node) bool { return domAttr(n, "data-outcome") != "" }) {
		if got := htmlPercent(t, domAttr(seg, "x")); got < x-0.11 || got > x+0.11 {
			t.Errorf("outcome %s starts at %v%%, want %v%%", domAttr(seg, "data-outcome"), got, x)
		}
		x += htmlPercent(t, domAttr(seg, "width"))
	}
	if x < 99.8 || x > 100.2 {
		t.Errorf("outcome segments add up to %v%%, want 100%%", x)
	}

	htmlScreenshot(t, browser, dir, page)
}

// TestWriteHTMLOfARun renders a real simulation of the reference cluster:
// every pool, workload and pending message of the result is on the page.
func TestWriteHTMLOfARun(t *testing.T) {
	t.Parallel()
	const manifests = `apiVersion: apps/v1
kind: Deployment
metadata: {name: iis, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: iis}}
  template:
    metadata: {labels: {app: iis}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      containers: [{name: iis, image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27, resources: {requests: {cpu: 500m, memory: 256Mi}}}]
`
	var objs []*manifest.Object
	s := manifest.NewSplitter("shop.yaml", strings.NewReader(manifests), false)
	for {
		doc, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		o, errs := manifest.Decode(doc)
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		objs = append(objs, o...)
	}
	nodes, pools := cluster.Reference().Nodes()
	res, err := Run(t.Context(), Input{Nodes: nodes, Pools: pools, Objects: objs, Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, res); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pools) == 0 || res.Count().Pending == 0 {
		t.Fatalf("the run should have pools and pending pods: %+v", res.Count())
	}
	for _, p := range res.Pools {
		if domFind(doc, func(n *html.Node) bool { return domAttr(n, "data-pool") == p.Pool }) == nil {
			t.Errorf("pool %s is not on the page", p.Pool)
		}
	}
	for _, w := range res.Workloads {
		if domFind(doc, func(n *html.Node) bool { return n.Data == "tr" && domAttr(n, "data-workload") == w.Workload }) == nil {
			t.Errorf("workload %s has no row", w.Workload)
		}
	}
	pending := domFind(doc, func(n *html.Node) bool { return domAttr(n, "id") == "pending" })
	msgs := map[string]bool{}
	for _, n := range domFindAll(pending, func(n *html.Node) bool { return domAttr(n, "class") == "msg" }) {
		msgs[domText(n)] = true
	}
	for _, p := range res.Pods {
		if p.Pending && !msgs[strings.Join(strings.Fields(p.Message), " ")] {
			t.Errorf("pending pod %s: message %q is not on the page", p.Pod, p.Message)
		}
	}
}

// htmlScreenshot renders the page to a PNG and checks that the bars are
// painted in their colours (SVG rendered, CSS applied).
func htmlScreenshot(t *testing.T, browser, dir, page string) {
	t.Helper()
	shot := filepath.Join(dir, "report.png")
	runChromium(t, browser, dir, "--screenshot="+shot, "--window-size=1200,1400", "--hide-scrollbars", "file://"+page)
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

// chromiumPath finds the browser; the test fails (never skips) without it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, c := range []string{os.Getenv("WINKUBE_CHROMIUM"), "/usr/bin/chromium"} {
		if c != "" {
			if _, err := os.Stat(c); err == nil {
				return c
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Fatal("headless Chromium renders the HTML report in this test and was not found " +
		"($WINKUBE_CHROMIUM, /usr/bin/chromium, chromium on PATH); install it with hack/ensure-chromium.sh")
	return ""
}

func runChromium(t *testing.T, browser, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	profile, err := os.MkdirTemp(dir, "profile-")
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// DOM helpers over golang.org/x/net/html.

func domFindAll(root *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	return out
}

func domFind(root *html.Node, match func(*html.Node) bool) *html.Node {
	if all := domFindAll(root, match); len(all) > 0 {
		return all[0]
	}
	return nil
}

func domElement(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

// attrs renders an element's attributes for messages.
func domAttrs(n *html.Node) string {
	if n == nil {
		return "(missing)"
	}
	var b strings.Builder
	b.WriteString("<" + n.Data)
	for _, a := range n.Attr {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Val)
	}
	return b.String() + ">"
}

func domAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the node's text content with runs of white space collapsed.
func domText(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func htmlPercent(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscanf(s, "%g%%", &f); err != nil {
		t.Errorf("%q is not a percentage", s)
	}
	return f
}
