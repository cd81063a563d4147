package docs

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/internal/winsupport"
)

// forbiddenFrom is the first release whose API server rejects
// spec.os.name: windows pods for a field: the os field itself arrived in
// 1.23 (IdentifyPodOS, alpha).
var forbiddenFrom = winsupport.Version{Minor: 23}

// SupportMatrix writes the Windows support matrix from the winsupport
// model: builds, tags, forbidden fields per release, features and volumes.
func SupportMatrix(w io.Writer) error {
	bw := bufio.NewWriter(w)
	header(bw, "Windows support matrix")
	fmt.Fprintf(bw, "What winkube knows about Windows nodes, generated from the typed tables in\n`internal/winsupport`; every row names its source (the seeds are the documents\nin the project's domain spec). winkube models Kubernetes %s to %s; choose the\nrelease with `--kubernetes-version` or `kubernetesVersion` in `.winkube.yaml`\n(default %s).\n", winsupport.Oldest, winsupport.Newest, winsupport.Newest)
	m := winsupport.Default()
	writeBuilds(bw, m)
	writeNodeSupport(bw)
	writeTags(bw, m)
	writeForbidden(bw)
	writeFeatures(bw, m)
	writeVolumes(bw, m)
	return bw.Flush()
}

// rangeText renders a range of releases for readers: open ends, and
// ranges beyond the modelled releases, in words.
func rangeText(r winsupport.Range) string {
	switch {
	case winsupport.Newest.Less(r.From):
		return "not supported"
	case r.From.Minor == 0 && r.Until.Minor == 0:
		return "all releases"
	case r.From.Minor == 0:
		return "up to " + r.Until.String()
	case r.Until.Minor == 0:
		return r.From.String() + " and later"
	case r.From == r.Until:
		return r.From.String() + " only"
	}
	return r.From.String() + " to " + r.Until.String()
}

func releases() []winsupport.Version {
	var out []winsupport.Version
	for v := winsupport.Oldest; !winsupport.Newest.Less(v); v.Minor++ {
		out = append(out, v)
	}
	return out
}

func writeBuilds(w io.Writer, m winsupport.Model) {
	fmt.Fprintf(w, "\n## Windows Server builds\n\nThe build is the node's `node.kubernetes.io/windows-build` label. Under\nprocess isolation a container image must be built for the host's build.\n\n")
	fmt.Fprintf(w, "| Windows Server | build | channel | image tags | Kubernetes node support | Microsoft support | source |\n|---|---|---|---|---|---|---|\n")
	for _, b := range m.Builds() {
		eol := "supported"
		if b.EOL {
			eol = "end of life"
		}
		tags := make([]string, len(b.Tags))
		for i, t := range b.Tags {
			tags[i] = "`" + t + "`"
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %s |\n", cell(b.Name), b.Build, b.Channel, strings.Join(tags, ", "), rangeText(b.Supports), eol, cell(b.Source))
	}
}

func writeNodeSupport(w io.Writer) {
	fmt.Fprintf(w, "\n## Node operating systems by Kubernetes release\n\n| Kubernetes | Windows Server builds supported as nodes |\n|---|---|\n")
	for _, v := range releases() {
		m := winsupport.ForVersion(v)
		var names []string
		for _, b := range m.Builds() {
			if m.NodeSupported(b) {
				names = append(names, fmt.Sprintf("%s (`%s`)", b.Name, b.Build))
			}
		}
		fmt.Fprintf(w, "| %s | %s |\n", v, cell(strings.Join(names, ", ")))
	}
}

func writeTags(w io.Writer, m winsupport.Model) {
	fmt.Fprintf(w, "\n## Image tags that imply a build\n\n"+
		"`winkube` reads the Windows build an image needs from its tag: a full build\n"+
		"number (`10.0.20348`), or a word of the tag that is one of these names, alone\n"+
		"or after `windowsservercore` or `nanoserver` (`ltsc2022`,\n"+
		"`windowsservercore-ltsc2022`). Bare Semi-Annual Channel numbers such as\n"+
		"`1809` count only for images otherwise known to be Windows, so a Linux image's\n"+
		"version tag is not misread.\n\n| tag | build | Windows Server |\n|---|---|---|\n")
	for _, b := range m.Builds() {
		for _, t := range b.Tags {
			fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", t, b.Build, cell(b.Name))
		}
	}
}

// writeForbidden lists, for each field the API server rejects in a
// Windows pod, the releases that reject it, then what changed per release.
func writeForbidden(w io.Writer) {
	type span struct{ from, until winsupport.Version }
	spans := map[string]*span{}
	var order []string
	added := map[winsupport.Version][]string{}
	for v := forbiddenFrom; !winsupport.Newest.Less(v); v.Minor++ {
		pod, ctr := winsupport.ForVersion(v).ForbiddenFieldNames()
		var names []string
		for _, p := range pod {
			names = append(names, "spec."+p)
		}
		for _, c := range ctr {
			names = append(names, "spec.containers[*]."+c)
		}
		for _, n := range names {
			s, ok := spans[n]
			if !ok {
				s = &span{from: v}
				spans[n] = s
				order = append(order, n)
				added[v] = append(added[v], n)
			}
			s.until = v
		}
	}
	fmt.Fprintf(w, "\n## Fields the API server rejects for Windows pods\n\n"+
		"Once a pod sets `spec.os.name: windows`, the API server rejects these fields\n"+
		"with `FIELD: Forbidden: cannot be set for a windows pod` (pod-level `resources`:\n"+
		"`may not be set`). Container fields apply to init and ephemeral containers\n"+
		"too. Paths are relative to a Pod; in a workload they sit under the pod\n"+
		"template (`spec.template.spec.hostPID`). A field appears from the release\n"+
		"that serves it by default.\n\n"+
		"| field | rejected in |\n|---|---|\n")
	for _, n := range order {
		r := winsupport.Range{From: spans[n].from}
		if spans[n].until != winsupport.Newest {
			r.Until = spans[n].until
		}
		fmt.Fprintf(w, "| `%s` | %s |\n", n, rangeText(r))
	}
	fmt.Fprintf(w, "\n| Kubernetes | fields rejected | new in this release |\n|---|---|---|\n")
	for v := forbiddenFrom; !winsupport.Newest.Less(v); v.Minor++ {
		pod, ctr := winsupport.ForVersion(v).ForbiddenFieldNames()
		news := make([]string, len(added[v]))
		for i, n := range added[v] {
			news[i] = "`" + n + "`"
		}
		if v == forbiddenFrom {
			news = []string{"first release that validates `spec.os.name`"}
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", v, len(pod)+len(ctr), strings.Join(news, ", "))
	}
}

func writeFeatures(w io.Writer, m winsupport.Model) {
	fmt.Fprintf(w, "\n## Features\n\nWhether a capability works on Windows nodes with default feature gates.\n\n| feature | ID | works on Windows | note | source |\n|---|---|---|---|---|\n")
	for _, f := range m.Features() {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s |\n", cell(f.Title), f.ID, rangeText(f.Enabled), cell(f.Note), cell(f.Source))
	}
}

func writeVolumes(w io.Writer, m winsupport.Model) {
	fmt.Fprintf(w, "\n## Volume types\n\n| volume type | on Windows | note | source |\n|---|---|---|---|\n")
	for _, v := range m.VolumeTypes() {
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", v.Name, v.Windows, cell(v.Note), cell(v.Source))
	}
}
