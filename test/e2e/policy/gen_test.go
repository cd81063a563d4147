package policy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// The seeded generator of the differential test: pod specs that combine,
// at random, every scheduling and OS signal the exported policies derive
// (nodeSelector and required node affinity over the OS and build labels
// in every operator, tolerations in every operator and effect form,
// spec.os, RuntimeClasses, HostProcess) with images of every Windows
// build, Linux and multi-platform images, volumes and the Linux-only
// fields, in every workload kind the policies match. Unlike
// test/corpusgen, which models realistic apps, it aims at the corners.

var (
	genBuilds = []string{"10.0.14393", "10.0.17763", "10.0.18362", "10.0.19041", "10.0.20348", "10.0.26100", "10.0.17763.5458"}
	genImages = []string{
		"nginx:1.27.2", "redis:7.4-alpine", "ghcr.io/example/api:2.14.1", "quay.io/prometheus/node-exporter:v1.8.2",
		"registry.k8s.io/pause:3.10", "mcr.microsoft.com/dotnet/aspnet:8.0", "contoso.azurecr.io/app:1.2",
		"mcr.microsoft.com/windows/servercore:ltsc2019", "mcr.microsoft.com/windows/servercore:ltsc2022", "mcr.microsoft.com/windows/servercore:ltsc2025",
		"mcr.microsoft.com/windows/nanoserver:1809", "mcr.microsoft.com/windows/nanoserver:ltsc2022", "mcr.microsoft.com/windows/servercore:1903",
		"mcr.microsoft.com/windows/servercore:20H2", "mcr.microsoft.com/windows/servercore:2004", "mcr.microsoft.com/windows/servercore:10.0.17763.5458",
		"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", "mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022",
		"docker.io/microsoft/windowsservercore:1709", "mcr.microsoft.com/windows:1809", "contoso.azurecr.io/legacy/billing:3.2.0-ltsc2022",
		"contoso.azurecr.io/tools:1903", "mcr.microsoft.com/oss/kubernetes/pause:3.9",
		"mcr.microsoft.com/windows/server:ltsc2025", "mcr.microsoft.com/powershell:lts-windowsservercore-ltsc2022",
		"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022", "docker.io/microsoft/iis:windowsservercore-1803",
		"microsoft/mssql-server-windows-developer", "docker.io/Microsoft/mssql-server-windows-express:2017-latest", "example.com/microsoft/mssql-server-windows:2019",
	}
	genKinds = []struct{ apiVersion, kind string }{
		{"v1", "Pod"}, {"apps/v1", "Deployment"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "ReplicaSet"},
		{"batch/v1", "Job"}, {"batch/v1", "CronJob"}, {"v1", "ReplicationController"}, {"v1", "PodTemplate"},
	}
	genOSKeys = []string{cluster.LabelOS, cluster.LabelOSBeta, cluster.LabelWindowsBuild, "agentpool", winsupport.LabelAKSOSSKU, winsupport.LabelGKEWindowsVersion}
	genTols   = []corev1.Toleration{
		{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule},
		{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule},
		{Key: "os", Operator: corev1.TolerationOpExists},
		{Operator: corev1.TolerationOpExists},
		{Key: "os", Operator: corev1.TolerationOpEqual, Value: "Windows", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule},
		{Key: "os", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "os", Value: "windows"},
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "win", Effect: corev1.TaintEffectNoExecute},
		{Key: "windows", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "OS", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule},
		{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectPreferNoSchedule},
	}
	genMounts = []string{"/var/log", "/etc/config", `C:\data`, "/data", "/usr/share/nginx/html", "/var/run/secrets/kubernetes.io/serviceaccount", "/var/lib/kubelet/pods", `C:\var\log`}
)

// genPodSpec draws one pod spec.
func genPodSpec(r *rand.Rand) corev1.PodSpec {
	var s corev1.PodSpec
	pick := func(n int) int { return r.IntN(n) }
	chance := func(p float64) bool { return r.Float64() < p }
	if chance(0.7) {
		s.NodeSelector = map[string]string{}
		switch pick(10) {
		case 0, 1:
			s.NodeSelector[cluster.LabelOS] = "windows"
		case 2:
			s.NodeSelector[cluster.LabelOS] = "linux"
		case 3:
			s.NodeSelector[cluster.LabelOSBeta] = []string{"windows", "linux"}[pick(2)]
		case 4:
			s.NodeSelector[cluster.LabelOS] = "windows"
			s.NodeSelector[cluster.LabelWindowsBuild] = genBuilds[pick(len(genBuilds))]
		case 5:
			s.NodeSelector[cluster.LabelWindowsBuild] = genBuilds[pick(len(genBuilds))]
		case 6:
			s.NodeSelector["node-role.kubernetes.io/control-plane"] = ""
		case 7:
			s.NodeSelector["agentpool"] = "win"
		case 8:
			// The platforms' OS labels pin an OS and a build too.
			s.NodeSelector[winsupport.LabelAKSOSSKU] = []string{"Windows2019", "Windows2022", "Windows2025", "Ubuntu", "AzureLinux"}[pick(5)]
		case 9:
			s.NodeSelector[winsupport.LabelGKEWindowsVersion] = []string{"2019", "2022", "2025"}[pick(3)]
		}
	}
	if chance(0.3) {
		var terms []corev1.NodeSelectorTerm
		for range 1 + pick(2) {
			var t corev1.NodeSelectorTerm
			for range 1 + pick(2) {
				key := genOSKeys[pick(len(genOSKeys))]
				e := corev1.NodeSelectorRequirement{Key: key, Operator: []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist}[pick(4)]}
				if e.Operator == corev1.NodeSelectorOpIn || e.Operator == corev1.NodeSelectorOpNotIn {
					switch key {
					case cluster.LabelWindowsBuild:
						e.Values = []string{genBuilds[pick(len(genBuilds))]}
						if chance(0.3) {
							e.Values = append(e.Values, genBuilds[pick(len(genBuilds))])
						}
					case winsupport.LabelAKSOSSKU:
						e.Values = [][]string{{"Windows2019"}, {"Windows2022"}, {"Windows2022", "Windows2025"}, {"Ubuntu"}}[pick(4)]
					case winsupport.LabelGKEWindowsVersion:
						e.Values = [][]string{{"2019"}, {"2022"}, {"2022", "2025"}}[pick(3)]
					default:
						e.Values = [][]string{{"windows"}, {"linux"}, {"linux", "windows"}, {"win"}}[pick(4)]
					}
				}
				t.MatchExpressions = append(t.MatchExpressions, e)
			}
			terms = append(terms, t)
		}
		s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	for range pick(3) {
		if chance(0.7) {
			s.Tolerations = append(s.Tolerations, genTols[pick(len(genTols))])
		}
	}
	if chance(0.3) {
		s.OS = &corev1.PodOS{Name: []corev1.OSName{corev1.Windows, corev1.Linux}[pick(2)]}
	}
	if chance(0.05) {
		s.NodeName = "akswin000000" // bound without the scheduler: only NoExecute taints count
	}
	if chance(0.04) {
		rc := "windows-2022"
		s.RuntimeClassName = &rc
	}
	hostProcess := chance(0.07)
	if hostProcess {
		t, user := true, `NT AUTHORITY\SYSTEM`
		s.HostNetwork = true
		s.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: &t, RunAsUserName: &user}}
	} else if chance(0.05) {
		s.HostNetwork = true
	}
	if chance(0.3) {
		switch pick(4) {
		case 0:
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		case 1:
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}})
		case 2:
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: []string{"/var/log", `C:\logs`}[pick(2)]}}})
		case 3:
			s.Volumes = append(s.Volumes, corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}})
		}
	}
	n := 1 + pick(3)
	for i := range n {
		c := corev1.Container{Name: fmt.Sprintf("c%d", i), Image: genImages[pick(len(genImages))]}
		if chance(0.6) {
			c.Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
			}
		} else if chance(0.3) {
			c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		}
		if len(s.Volumes) > 0 && chance(0.8) {
			c.VolumeMounts = []corev1.VolumeMount{{Name: "v", MountPath: genMounts[pick(len(genMounts))]}}
		}
		if chance(0.06) {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}
		}
		if chance(0.05) {
			p := true
			c.SecurityContext = &corev1.SecurityContext{Privileged: &p}
		} else if chance(0.04) {
			u := int64(1000)
			c.SecurityContext = &corev1.SecurityContext{RunAsUser: &u}
		}
		if chance(0.05) {
			c.Command = []string{"/bin/sh", "-c", "run"}
		}
		// Probes: a liveness probe alone on a large Windows base is
		// windows-missing-startup-probe's; with a startup probe it is not.
		if chance(0.3) {
			check := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}
			c.LivenessProbe = &corev1.Probe{ProbeHandler: check, PeriodSeconds: 10}
			if chance(0.3) {
				c.StartupProbe = &corev1.Probe{ProbeHandler: check, PeriodSeconds: 10, FailureThreshold: 30}
			}
		}
		if i == 0 && n > 1 && chance(0.3) {
			if chance(0.5) {
				always := corev1.ContainerRestartPolicyAlways // a sidecar
				c.RestartPolicy = &always
			}
			s.InitContainers = append(s.InitContainers, c)
			continue
		}
		s.Containers = append(s.Containers, c)
	}
	if len(s.Containers) == 0 {
		s.Containers = []corev1.Container{{Name: "main", Image: genImages[pick(len(genImages))]}}
	}
	genNetwork(r, &s)
	return s
}

// genWorkload wraps a pod spec in a kind the policies match.
func genWorkload(r *rand.Rand, i int) map[string]any {
	k := genKinds[r.IntN(len(genKinds))]
	spec := genPodSpec(r)
	labels := map[string]any{"app": fmt.Sprintf("g%d", i)}
	tmpl := map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}
	obj := map[string]any{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": map[string]any{"name": fmt.Sprintf("gen-%d", i)}}
	switch k.kind {
	case "Pod":
		if spec.RestartPolicy == "" && r.IntN(2) == 0 {
			spec.RestartPolicy = corev1.RestartPolicyAlways
		}
		obj["spec"] = spec
	case "PodTemplate":
		obj["template"] = tmpl
	case "Job":
		spec.RestartPolicy = corev1.RestartPolicyNever
		obj["spec"] = map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}}
	case "CronJob":
		spec.RestartPolicy = corev1.RestartPolicyOnFailure
		obj["spec"] = map[string]any{"schedule": "*/5 * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}}}}
	case "ReplicationController":
		obj["spec"] = map[string]any{"selector": labels, "template": tmpl}
	case "DaemonSet":
		obj["spec"] = map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": tmpl}
	default:
		obj["spec"] = map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": tmpl}
		if k.kind == "StatefulSet" {
			obj["spec"].(map[string]any)["serviceName"] = "svc"
		}
	}
	return obj
}

// seededSamples are n generated workloads of the seed.
func seededSamples(t *testing.T, seed uint64, n int) []sample {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x9011c7))
	var out []sample
	for i := range n {
		y, err := yaml.Marshal(genWorkload(r, i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, workloads(t, fmt.Sprintf("seeded(seed %d)/%d", seed, i), y, "", "")...)
	}
	return out
}

// genClusters are the generated cluster files of the differential test:
// fixed shapes that the built-in profiles lack, and n drawn from the seed.
func genClusters(seed uint64, n int) map[string]*cluster.Cluster {
	mk := func(name, os, build string, taints ...corev1.Taint) cluster.Pool {
		return cluster.Pool{Name: name, Count: 2, OS: os, WindowsBuild: build, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110, Taints: taints}
	}
	no := false
	linux := mk("linux", "linux", "")
	dedicated := corev1.Taint{Key: "dedicated", Value: "win", Effect: corev1.TaintEffectNoExecute}
	gke := corev1.Taint{Key: "node.kubernetes.io/os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}
	keyOnly := corev1.Taint{Key: "windows", Effect: corev1.TaintEffectNoSchedule}
	soft := corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectPreferNoSchedule}
	out := map[string]*cluster.Cluster{
		"untainted":   {Pools: []cluster.Pool{linux, mk("windows", "windows", "10.0.20348")}},
		"three-pools": {Pools: []cluster.Pool{linux, mk("win2019", "windows", "10.0.17763", cluster.WindowsTaint), mk("win2022", "windows", "10.0.20348", gke), mk("win2025", "windows", "10.0.26100")}},
		"linux-only":  {Pools: []cluster.Pool{linux}},
		"windows-only": {Pools: []cluster.Pool{mk("win2019", "windows", "10.0.17763", cluster.WindowsTaint),
			mk("win2022", "windows", "10.0.20348")}},
		"no-port-mappings": func() *cluster.Cluster {
			p := mk("windows", "windows", "10.0.20348", cluster.WindowsTaint)
			p.CNIPortMappings = &no
			return &cluster.Cluster{Pools: []cluster.Pool{linux, p}}
		}(),
		"odd-taints": {Pools: []cluster.Pool{linux, mk("win", "windows", "10.0.20348", corev1.Taint{Key: "os", Value: "Windows", Effect: corev1.TaintEffectNoSchedule}, dedicated, soft),
			mk("winb", "windows", "10.0.20348.2461", keyOnly)}},
	}
	r := rand.New(rand.NewPCG(seed, 0xc1))
	taints := []corev1.Taint{cluster.WindowsTaint, gke, dedicated, keyOnly, soft, {Key: "os", Value: "Windows", Effect: corev1.TaintEffectNoSchedule}}
	for i := range n {
		c := &cluster.Cluster{}
		if r.IntN(4) > 0 {
			c.Pools = append(c.Pools, linux)
		}
		for j := range 1 + r.IntN(3) {
			p := mk(fmt.Sprintf("win%d", j), "windows", genBuilds[r.IntN(len(genBuilds))])
			for range r.IntN(3) {
				t := taints[r.IntN(len(taints))]
				if !slices.ContainsFunc(p.Taints, func(u corev1.Taint) bool { return u.Key == t.Key && u.Effect == t.Effect }) {
					p.Taints = append(p.Taints, t) // the API server refuses a duplicate key and effect
				}
			}
			if r.IntN(4) == 0 {
				p.CNIPortMappings = &no
			}
			c.Pools = append(c.Pools, p)
		}
		out[fmt.Sprintf("seeded-%d", i)] = c
	}
	genNetworkClusters(seed, out)
	return out
}

// The networking rules' strings (windows-dns-partial-name,
// windows-hostprocess-cluster-dns, windows-nodeport-from-node,
// windows-icmp-outbound): host names, loopback ports and pings that fire
// them, and ones that nearly do (a path segment, upper case, a port out
// of the NodePort range, a ping to a cluster or private name, a TCP
// Test-NetConnection, IPv4-mapped and zoned addresses).
var (
	genNames = []string{
		"http://backend.shop:8080/api", "backend.shop.svc", "Server=sql.data.svc,1433;Database=x", "sql.data.svc.cluster:1433",
		"kubernetes.default", "https://kubernetes.default.svc:443", "api.ns.svc.cluster.local", "api.ns.svc.corp.example.", "a.b.svc.corp:80",
		"http://host/orders.v1.svc", "//a.b.svc/x", "/a.b.svc", "Backend.Shop.svc", "x_y.ns.svc", "redis.cache.svc..", "1a.ns.svc",
		"amqp://guest@rabbit.queue.svc.local:5672", "web.default.svc.cluster.local,db.data.svc",
	}
	genLoopback = []string{
		"localhost:30080", "http://127.0.0.1:32767/healthz", "[::1]:30000", "localhost:29999", "LOCALHOST:31000 localhost:30001",
		"Test-NetConnection localhost -Port 31000", "localhost:300800", "xlocalhost:30080", "127.0.0.1:8080",
	}
	genPings = [][]string{
		{"ping", "-n", "1", "www.microsoft.com"}, {"cmd", "/c", "ping -n 1 8.8.8.8 || exit 1"}, {"ping.exe", "/n", "1", "10.0.0.1"},
		{"powershell", "-Command", "Test-NetConnection example.com -Port 443"}, {"powershell", "-Command", "Test-NetConnection example.com"},
		{"powershell", "-c", "Test-Connection -ComputerName contoso.com -Count 1"}, {"/usr/bin/ping", "-c", "1", "1.1.1.1"},
		{"ping", "::ffff:8.8.8.8"}, {"ping", "2001:4860:4860::8888"}, {"ping", "fe80::1%eth0"}, {"ping", "db.internal"},
		{"ping", "backend.shop.svc"}, {"ping", "api.ns.svc.cluster.local"}, {"PING", "Example.COM."}, {"ping", "$(HOST).com"},
		{"C:\\Windows\\System32\\PING.EXE", "-n", "2", "github.com"}, {"ping", "-n", "3"}, {"sh", "-c", "ping 192.168.1.1; ping 52.1.2.3"},
	}
)

// genNetwork adds, at random, those strings to the pod spec's first
// container: as command, args, env values, exec probes and hooks; most
// HostProcess pods get some (two of the rules read only those).
func genNetwork(r *rand.Rand, s *corev1.PodSpec) {
	p := 0.35
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil && s.SecurityContext.WindowsOptions.HostProcess != nil {
		p = 0.9
	}
	if r.Float64() >= p {
		return
	}
	c := &s.Containers[0]
	for range 1 + r.IntN(2) {
		var v string
		switch r.IntN(3) {
		case 0:
			v = genNames[r.IntN(len(genNames))]
		case 1:
			v = genLoopback[r.IntN(len(genLoopback))]
		}
		argv := genPings[r.IntN(len(genPings))]
		if v != "" {
			argv = []string{"powershell", "-Command", v}
		}
		switch r.IntN(5) {
		case 0:
			c.Command = argv
		case 1:
			c.Args = argv
		case 2:
			if v == "" {
				v = strings.Join(argv, " ")
			}
			c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("TARGET_%d", len(c.Env)), Value: v})
		case 3:
			c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: argv}}}
		case 4:
			c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: argv}}}
		}
	}
	if r.IntN(2) == 0 {
		s.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
}

// genNetworkClusters gives the Windows pools of the generated clusters a
// CNI (some dropping outbound ICMP, some not, some unknown) and the
// clusters a domain, from their own stream so the shapes stay the seed's.
func genNetworkClusters(seed uint64, cs map[string]*cluster.Cluster) {
	r := rand.New(rand.NewPCG(seed, 0xc2))
	cnis := []string{"", "flannel", "calico", "win-overlay", "azure-vnet", "antrea", "win-bridge"}
	domains := []string{"", "corp.example", "cluster.local", "local"}
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := cs[n]
		c.ClusterDomain = domains[r.IntN(len(domains))]
		for i := range c.Pools {
			if c.Pools[i].OS == "windows" {
				c.Pools[i].CNI = cnis[r.IntN(len(cnis))]
			}
		}
	}
}
