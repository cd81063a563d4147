package doctor

const (
	srcProber   = "k8s.io/kubernetes v1.36.3 pkg/kubelet/prober/prober.go (Unhealthy: \"%s probe failed: %s\") and kuberuntime/kuberuntime_manager.go (\"Container %s failed liveness probe, will be restarted\")"
	srcRunc     = "containerd and runc on Linux (exec: \"...\": executable file not found in $PATH)"
	srcEviction = "k8s.io/kubernetes v1.36.3 pkg/kubelet/eviction/helpers.go (Evicted: The node was low on resource)"
	// DLLNotFoundExitCode is STATUS_DLL_NOT_FOUND (0xC0000135) as the
	// int32 exit code the kubelet reports.
	DLLNotFoundExitCode = -1073741515
)

// CommandNotFound: the container's command does not exist in the image.
var CommandNotFound = &Cause{
	ID: "command-not-found", Title: "The container's command does not exist in the image",
	Explain: "The runtime could not start the container's process because its executable is not in the image. On a Windows node this is often a Linux shell (sh, bash) or Linux path in command or args: Windows images have cmd.exe and powershell.exe (pwsh.exe in some), and hcsshim reports The system cannot find the file specified.",
	Steps: []string{
		"Read the container's command and args.",
		"On Windows use cmd /c or powershell -Command instead of sh -c, and Windows paths.",
		"Run the image locally to list what it contains.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.containers[*].command} {.spec.containers[*].args}'"),
		kubectl("kubectl describe pod -n {ns} {pod}"),
	},
	Patterns: []Pattern{
		{Text: "executable file not found in $PATH", Service: "containerd", Source: srcRunc},
		{Text: "The system cannot find the file specified", Service: "hcsshim", Source: srcHCS},
		{Text: "hcs::System::CreateProcess", Service: "hcsshim", Source: srcHCS},
	},
	Sources: []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-docker/manage-windows-dockerfile (Windows container images and entrypoints)", srcCreate, srcHCS},
}

// DLLNotFound: a Windows process exited with STATUS_DLL_NOT_FOUND.
var DLLNotFound = &Cause{
	ID: "dll-not-found", Title: "The container's process exited because a DLL is missing (exit code -1073741515)",
	Explain: "Exit code -1073741515 is 0xC0000135, STATUS_DLL_NOT_FOUND: Windows could not load a DLL the program needs. Typical causes are a Nano Server base image for a program that needs Server Core (no full .NET Framework, no GUI libraries), or a Visual C++ runtime missing from the image.",
	Steps: []string{
		"Check the image's base: Nano Server lacks most of Server Core's DLLs.",
		"Rebuild on mcr.microsoft.com/windows/servercore (matching the node's build), or add the missing runtime to the image.",
		"Look at the container's logs and the node's Application event log.",
	},
	Commands: []Command{
		kubectl("kubectl logs -n {ns} {pod} -c {container} --previous"),
		onNode("Get-EventLog -LogName Application -Newest 20"),
	},
	Sources: []string{"https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/ (CrashLoopBackOff with no useful logs on Windows)", "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55 (NTSTATUS STATUS_DLL_NOT_FOUND 0xC0000135)"},
}

// SlowStartKilledByLiveness: liveness kills a slow-starting container.
var SlowStartKilledByLiveness = &Cause{
	ID: "slow-start-killed-by-liveness", Title: "The liveness probe kills the container before it finishes starting",
	Explain: "The container restarts after failing its liveness probe, and it has no startup probe. Windows containers take 10 to 30 seconds longer to start than Linux ones; without a startup probe the liveness probe runs during start-up and the kubelet kills the container before it is up, in a loop.",
	Steps: []string{
		"Add a startupProbe with the liveness probe's check and a generous failureThreshold × periodSeconds (e.g. 30 × 10s).",
		"Or raise the liveness probe's initialDelaySeconds.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.containers[*].livenessProbe}'"),
		kubectl("kubectl get events -n {ns} --field-selector involvedObject.uid={uid},reason=Unhealthy"),
	},
	Patterns: []Pattern{{Text: "Liveness probe failed", Service: "kubelet", Source: srcProber}, {Text: "failed liveness probe", Service: "kubelet", Source: srcProber}},
	Sources:  []string{"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-linux-similarities (container restart latency; use startup probes on Windows)", srcProber},
}

// SlowImagePull: a large Windows image is still being pulled.
var SlowImagePull = &Cause{
	ID: "slow-image-pull", Title: "A large Windows image is still being pulled",
	Explain: "The kubelet started pulling the image and has not finished. Windows base images are several gigabytes (Server Core about 2 to 5 GB, Windows about 10 GB), so a first pull on a node takes many minutes; the pod shows ContainerCreating meanwhile and nothing is wrong yet.",
	Steps: []string{
		"Wait for the Pulled event, or watch the pull on the node.",
		"Pre-pull large base images on Windows nodes (a DaemonSet or the node image), and prefer Nano Server where the program allows.",
	},
	Commands: []Command{
		kubectl("kubectl get events -n {ns} --field-selector involvedObject.uid={uid} --watch"),
		onNode("ctr.exe -n k8s.io images ls"),
	},
	Patterns: []Pattern{{Text: "Pulling image", Service: "kubelet", Source: srcImages}},
	Sources:  []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images (image size)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/container-base-images (image sizes of Windows base images)", srcImages},
}

// OOMKilled: the container exceeded its memory limit.
var OOMKilled = &Cause{
	ID: "oom-killed", Title: "The container was killed for exceeding its memory limit",
	Explain: "The container was terminated with reason OOMKilled. On Windows, memory limits are enforced by job objects and a container over its limit is terminated; Windows programs (the .NET Framework in particular) often need more memory than their Linux equivalents.",
	Steps: []string{
		"Compare the container's memory limit with its use before it was killed.",
		"Raise the limit (and request), or fix the program's memory use.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.containers[*].resources}'"),
		kubectl("kubectl top pod -n {ns} {pod}"),
	},
	Sources: []string{"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#memory-management (memory limits trigger container termination on Windows)"},
}

// Evicted: the kubelet evicted the pod under node pressure.
var Evicted = &Cause{
	ID: "evicted", Title: "The kubelet evicted the pod because the node ran low on a resource",
	Explain: "The kubelet ended the pod to reclaim a resource the node was short of (memory, ephemeral storage). Windows nodes need a larger system reserve; with too small a reserve, pods are scheduled into memory the OS needs.",
	Steps: []string{
		"Read the eviction message: which resource, and which containers used most.",
		"Set requests close to real use, and raise the node's reserve (--system-reserved) on Windows nodes.",
	},
	Commands: []Command{
		kubectl("kubectl describe node {node}"),
		kubectl("winkube audit -o text"),
	},
	Patterns: []Pattern{{Text: "The node was low on resource", Service: "kubelet", Source: srcEviction}},
	Sources:  []string{"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (resource recommendations)", "https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (memory reservations on Windows nodes)", srcEviction},
}

// ReadinessProbeFailing: the pod runs but is not Ready.
var ReadinessProbeFailing = &Cause{
	ID: "readiness-probe-failing", Title: "The pod runs but its readiness probe fails",
	Explain: "The containers run but the readiness probe fails, so the pod gets no Service traffic. On Windows, tcpSocket probes are limited and exec probes need a Windows command.",
	Steps: []string{
		"Read the probe's failure message in the Unhealthy events.",
		"Use an httpGet or exec probe with a Windows command (powershell -Command ...).",
	},
	Commands: []Command{
		kubectl("kubectl get events -n {ns} --field-selector involvedObject.uid={uid},reason=Unhealthy"),
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.containers[*].readinessProbe}'"),
	},
	Patterns: []Pattern{{Text: "Readiness probe failed", Service: "kubelet", Source: srcProber}},
	Sources:  []string{"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-linux-similarities (probes on Windows: exec and httpGet; tcpSocket limited)", srcProber},
}

// Unknown: nothing in the catalogue matched.
var Unknown = &Cause{
	ID: "unknown", Title: "No known cause matched; the evidence is quoted",
	Explain: "winkube found the pod unhealthy but none of its causes matched the pod's status and events. The evidence below is what the pod, its events and its node say.",
	Steps: []string{
		"Read the events and the container statuses quoted as evidence.",
		"Look at the node's kubelet and containerd logs.",
	},
	Commands: []Command{
		kubectl("kubectl describe pod -n {ns} {pod}"),
		kubectl("kubectl logs -n {ns} {pod} --all-containers --previous"),
		onNode("Get-EventLog -LogName Application -Source kubelet -Newest 50"),
	},
	Sources: []string{"https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/ (Windows node diagnostics)", "https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/ (troubleshooting)"},
}
