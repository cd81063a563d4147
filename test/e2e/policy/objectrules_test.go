package policy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rules"
)

// objectRuleSamples are workloads for the rules decided from the object
// alone that were exported last: windows-missing-startup-probe (every
// base image family of winsupport's size table, by repository and by tag
// word; sidecar and plain init containers; with and without a startup
// probe) and gmsa-missing-credential-spec-name (the inlined spec at pod,
// init and container level, with and without its name, and the legacy
// annotations beside look-alikes), each placed on Windows, on Linux and
// nowhere: the gMSA rule fires whatever the OS.
const objectRuleSamples = `apiVersion: v1
kind: Pod
metadata: {name: probes}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{operator: Exists}]
  initContainers:
  - {name: sidecar, image: "mcr.microsoft.com/windows/servercore:ltsc2022", restartPolicy: Always, livenessProbe: {tcpSocket: {port: 80}}}
  containers:
  - {name: core, image: "mcr.microsoft.com/windows/servercore:ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: iis, image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: full, image: "mcr.microsoft.com/windows:ltsc2019", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: server, image: "mcr.microsoft.com/windows/server:ltsc2025", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: netfx, image: "mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: insider, image: "mcr.microsoft.com/windows/insider:10.0.26100.1", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: hub, image: "docker.io/microsoft/windowsservercore:ltsc2016", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: nano, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: pwsh, image: "mcr.microsoft.com/powershell:lts-windowsservercore-ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: aspnet, image: "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: custom, image: "contoso.azurecr.io/app:1.0-servercore-ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: started, image: "mcr.microsoft.com/windows/servercore:ltsc2022", livenessProbe: {tcpSocket: {port: 80}}, startupProbe: {tcpSocket: {port: 80}}}
  - {name: below, image: "mcr.microsoft.com/windows/servercore-other:ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: nested, image: "mcr.microsoft.com/windows/servercore/custom:1", livenessProbe: {tcpSocket: {port: 80}}}
  - {name: exact, image: "mcr.microsoft.com/windows/insider/x:1", livenessProbe: {tcpSocket: {port: 80}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: probes-spec-os}
spec:
  selector: {matchLabels: {app: p}}
  template:
    metadata: {labels: {app: p}}
    spec:
      os: {name: windows}
      containers:
      - {name: core, image: "MCR.microsoft.com/windows/servercore:ltsc2022", livenessProbe: {httpGet: {port: 80}}}
      - {name: linux, image: "nginx:1.27", livenessProbe: {httpGet: {port: 80}}}
---
apiVersion: v1
kind: Pod
metadata: {name: probes-linux}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - {name: core, image: "mcr.microsoft.com/windows/servercore:ltsc2022", livenessProbe: {tcpSocket: {port: 80}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: gmsa-pod
  annotations:
    pod.alpha.windows.kubernetes.io/gmsa-credential-spec: "{}"
    pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name: webapp1
    web.container.alpha.windows.kubernetes.io/gmsa-credential-spec-name: webapp1
    example.com/gmsa-credential-spec: "{}"
    pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name-name: x
spec:
  securityContext: {windowsOptions: {gmsaCredentialSpec: "{}"}}
  initContainers:
  - {name: init, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022", securityContext: {windowsOptions: {gmsaCredentialSpec: "{}"}}}
  containers:
  - {name: web, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022", securityContext: {windowsOptions: {gmsaCredentialSpec: "{}"}}}
  - {name: named, image: "mcr.microsoft.com/windows/nanoserver:ltsc2022", securityContext: {windowsOptions: {gmsaCredentialSpec: "{}", gmsaCredentialSpecName: webapp1}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gmsa-linux}
spec:
  selector: {matchLabels: {app: g}}
  template:
    metadata:
      labels: {app: g}
      annotations: {web.container.alpha.windows.kubernetes.io/gmsa-credential-spec: "{}"}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - {name: web, image: "nginx:1.27", securityContext: {windowsOptions: {gmsaCredentialSpec: "{}"}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: isolation-linux}
spec:
  selector: {matchLabels: {app: i}}
  template:
    metadata:
      labels: {app: i}
      annotations: {experimental.windows.kubernetes.io/isolation-type: hyperv}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - {name: web, image: "nginx:1.27"}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: gmsa-named}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        metadata:
          annotations: {pod.alpha.windows.kubernetes.io/gmsa-credential-spec-name: webapp1}
        spec:
          restartPolicy: Never
          securityContext: {windowsOptions: {gmsaCredentialSpec: "{}", gmsaCredentialSpecName: webapp1}}
          containers:
          - {name: web, image: "nginx:1.27"}
`

// TestObjectRulesDecideAsLint judges objectRuleSamples under clusters
// with and without Windows pools, as the differential test judges pairs.
func TestObjectRulesDecideAsLint(t *testing.T) {
	samples := workloads(t, "object-rules.yaml", []byte(objectRuleSamples), "", "")
	linux := cluster.Pool{Name: "linux", Count: 2, OS: "linux", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110}
	win := cluster.Pool{Name: "win", Count: 2, OS: "windows", WindowsBuild: "10.0.20348", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110,
		Taints: []corev1.Taint{cluster.WindowsTaint}}
	ref, err := cluster.Named("reference")
	if err != nil {
		t.Fatal(err)
	}
	clusters := map[string]*cluster.Cluster{
		"reference":  ref,
		"linux-only": {Pools: []cluster.Pool{linux}},
		"hybrid":     {Pools: []cluster.Pool{linux, win}},
	}
	counts := decideAsLint(t, "winkube-obj", samples, clusters, rules.WindowsMissingStartupProbe, rules.GMSAMissingCredentialSpecName, rules.WindowsIgnoredAnnotation)
	for _, r := range []string{rules.WindowsMissingStartupProbe.ID, rules.GMSAMissingCredentialSpecName.ID} {
		if c := counts[r]; c.linted == 0 || c.reported == 0 {
			t.Errorf("%s: lint reported it in %d pairs, the policies in %d: the comparison compared nothing", r, c.linted, c.reported)
		}
	}
}
