package corpusgen

import (
	"fmt"
	"math/rand/v2"
)

// mistake is the one thing an app gets wrong, if any; the mix follows what
// the real corpus shows most often.
type mistake int

const (
	none                mistake = iota
	noToleration                // Windows pods stay Pending
	noSelector                  // Windows pods pinned by nothing but their image
	tolerationCase              // toleration value "Windows": taints are case-sensitive
	privileged                  // privileged containers do not exist on Windows
	runAsUser                   // Linux identity fields on a Windows pod
	linuxImageOnWindows         // a Linux image pinned to Windows nodes
	linuxUnpinned               // a Linux workload without kubernetes.io/os
	placeholderImage            // a template never filled in (a load error)
	quotedReplicas              // replicas: "2" (a load error)
)

var (
	teams      = []string{"payments", "search", "identity", "catalog", "billing", "ops", "data", "web"}
	words      = []string{"api", "worker", "gateway", "cache", "portal", "sync", "report", "ingest", "notify", "auth", "export", "legacy"}
	linuxImgs  = []string{"nginx:1.27.2", "redis:7.4-alpine", "ghcr.io/example/api:2.14.1", "registry.k8s.io/pause:3.10", "quay.io/prometheus/node-exporter:v1.8.2", "docker.io/library/postgres:16.4", "mcr.microsoft.com/dotnet/aspnet:8.0"}
	windowsImg = []string{
		"mcr.microsoft.com/windows/servercore:ltsc2022",
		"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022",
		"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
		"mcr.microsoft.com/windows/nanoserver:ltsc2022",
		"contoso.azurecr.io/legacy/billing:3.2.0-ltsc2022",
		"mcr.microsoft.com/dotnet/framework/runtime:4.8.1-windowsservercore-ltsc2022",
	}
)

type app struct {
	id         int
	name, team string
	kind       string // Deployment, StatefulSet or DaemonSet
	windows    bool
	rc         string // RuntimeClass carrying the Windows scheduling, or ""
	replicas   int
	containers int
	port       int
	config     bool // has a ConfigMap
	service    bool // has a Service
	mistake    mistake
}

func newApp(r *rand.Rand, id int, rcs []string, unreadable bool) app {
	a := app{id: id, team: teams[id%len(teams)], windows: r.IntN(3) == 0, replicas: 1 + r.IntN(5), containers: 1, port: pick(r, []int{80, 8080, 8443, 9000, 5000})}
	a.name = fmt.Sprintf("%s-%s-%d", a.team, pick(r, words), id)
	switch n := r.IntN(100); {
	case n < 74:
		a.kind = "Deployment"
	case n < 90:
		a.kind = "StatefulSet"
	default:
		a.kind = "DaemonSet"
	}
	if chance(r, 0.3) {
		a.containers = 2 // a sidecar
	}
	a.config = a.kind != "DaemonSet" || chance(r, 0.5)
	a.service = a.kind != "DaemonSet" && chance(r, 0.85)
	if a.windows && chance(r, 0.25) {
		a.rc = pick(r, rcs)
	}
	a.mistake = pickMistake(r, a.windows, unreadable)
	return a
}

func pickMistake(r *rand.Rand, windows, unreadable bool) mistake {
	n := r.IntN(1000)
	if n < 2 && unreadable {
		return placeholderImage
	}
	if n < 3 && unreadable {
		return quotedReplicas
	}
	if !windows {
		if n < 150 {
			return linuxUnpinned
		}
		return none
	}
	switch {
	case n < 60:
		return noToleration
	case n < 100:
		return noSelector
	case n < 115:
		return tolerationCase
	case n < 140:
		return privileged
	case n < 160:
		return runAsUser
	case n < 175:
		return linuxImageOnWindows
	}
	return none
}

func (a app) image(r *rand.Rand) string {
	switch {
	case a.mistake == placeholderImage:
		return "<image-name>"
	case a.windows && a.mistake != linuxImageOnWindows:
		return pick(r, windowsImg)
	}
	return pick(r, linuxImgs)
}
