package simreport

import (
	"bytes"
	"github.com/winkube/winkube/internal/simulate"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/htmldom"
)

func TestWriteHTMLSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	res := shopRun(t)
	// A note carries user text; it must be escaped, not run.
	res.Notes = append(res.Notes, `<script>alert("x")</script> & <b>not bold</b>`)
	if err := WriteHTML(&b, res); err != nil {
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

// TestWriteHTMLOfARun renders a real simulation of the reference cluster:
// every pool, workload and pending message of the result is on the page.
func TestWriteHTMLOfARun(t *testing.T) {
	t.Parallel()
	res := shopRun(t)
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
	checkRunOnPage(t, res, doc)
}

// shopRun simulates two Deployments on the reference cluster: one pending
// Windows workload (untolerated taint) and one Linux workload.
func shopRun(t *testing.T) *simulate.Result {
	t.Helper()
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
	objs, errs := manifest.ReadAll([]manifest.Input{manifest.BytesInput("shop.yaml", []byte(manifests))})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	nodes, pools := cluster.Reference().Nodes()
	res, err := simulate.Run(t.Context(), simulate.Input{Nodes: nodes, Pools: pools, Objects: objs, Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkRunOnPage: every pool, workload and pending message of the result
// is on the page.
func checkRunOnPage(t *testing.T, res *simulate.Result, doc *html.Node) {
	t.Helper()
	for _, p := range res.Pools {
		if htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "data-pool") == p.Pool }) == nil {
			t.Errorf("pool %s is not on the page", p.Pool)
		}
	}
	for _, w := range res.Workloads {
		if htmldom.Find(doc, func(n *html.Node) bool { return n.Data == "tr" && htmldom.Attr(n, "data-workload") == w.Workload }) == nil {
			t.Errorf("workload %s has no row", w.Workload)
		}
	}
	pending := htmldom.Find(doc, func(n *html.Node) bool { return htmldom.Attr(n, "id") == "pending" })
	msgs := map[string]bool{}
	for _, n := range htmldom.FindAll(pending, func(n *html.Node) bool { return htmldom.Attr(n, "class") == "msg" }) {
		msgs[htmldom.Text(n)] = true
	}
	for _, p := range res.Pods {
		if p.Pending && !msgs[strings.Join(strings.Fields(p.Message), " ")] {
			t.Errorf("pending pod %s: message %q is not on the page", p.Pod, p.Message)
		}
	}
}
