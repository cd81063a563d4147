package doctor

import "github.com/winkube/winkube/internal/winsupport"

const (
	srcSandbox     = "k8s.io/kubernetes v1.36.3 pkg/kubelet/kuberuntime/kuberuntime_manager.go (FailedCreatePodSandBox: \"Failed to create pod sandbox: %v\")"
	srcCreate      = "k8s.io/kubernetes v1.36.3 pkg/kubelet/kuberuntime/kuberuntime_container.go (Failed: \"Error: %v\")"
	srcImages      = "k8s.io/kubernetes v1.36.3 pkg/kubelet/images/image_manager.go (Pulling, Failed to pull image, Back-off pulling image)"
	srcHCS         = "microsoft/hcsshim v0.13.0 internal/hcs/system.go (hcs::CreateComputeSystem, hcs::System::CreateProcess) and internal/hcs/errors.go (SystemError: op id: error)"
	srcCtrTask     = "containerd/containerd v2.1.4 internal/cri/server/container_start.go and podsandbox/sandbox_run.go (failed to create containerd task), core/runtime/v2/task_manager.go (failed to create shim task)"
	srcCtrPlatform = "containerd/containerd v2.1.4 core/images/handlers.go (no match for platform in manifest) and internal/cri/server/images/image_pull.go (failed to pull and unpack image)"
	srcCtrNetwork  = "containerd/containerd v2.1.4 internal/cri/server/sandbox_run.go (failed to setup network for sandbox)"
	srcHNS         = "microsoft/hcsshim v0.13.0 internal/hcserror/hcserror.go (hnsCall failed in Win32) and hcn/hcnglobals.go (HNS failed with error)"
	srcLogon       = "microsoft/hcsshim v0.13.0 internal/jobcontainers/logon.go (failed to logon user, invalid user string)"
	srcDocker      = "cri-dockerd and Docker on Windows (Error response from daemon ... hcsshim::CreateComputeSystem ... (0xc0370101); networkPlugin cni failed to set up pod)"
)

var osMismatch = []Pattern{
	{Text: winsupport.HostOSMismatch, Service: "hcsshim", Source: srcHCS},
	{Text: winsupport.HostOSMismatchCode, Service: "cri-dockerd", Source: srcDocker},
}

// PauseImageBuildMismatch: the sandbox (pause) image is for another build.
var PauseImageBuildMismatch = &Cause{
	ID: "pause-image-build-mismatch", Title: "The pod sandbox (pause) image does not match the node's Windows build",
	Explain: "The kubelet could not create the pod sandbox: HCS refused to start the pause container because its image was built for another Windows build than the host (process isolation needs an exact match). The pause image is not the workload's: it is containerd's sandbox_image (in config.toml) or the kubelet's --pod-infra-container-image, so every pod on the node fails the same way.",
	Steps: []string{
		"Read the node's build: kubectl get node {node} -o jsonpath='{.metadata.labels.node\\.kubernetes\\.io/windows-build}'.",
		"On the node, read the sandbox image from containerd's config.toml and compare its build with the host's.",
		"Use a multi-arch pause image that covers the host's build (mcr.microsoft.com/oss/kubernetes/pause:3.6 or later, registry.k8s.io/pause:3.6 or later), then restart containerd and the kubelet.",
	},
	Commands: []Command{
		kubectl("kubectl get node {node} -o jsonpath='{.metadata.labels.node\\.kubernetes\\.io/windows-build}'"),
		onNode(`Select-String -Path C:\Windows\system32\config\systemprofile\AppData\Local\containerd\config.toml -Pattern sandbox_image`),
		onNode("[System.Environment]::OSVersion.Version"),
		onNode("Restart-Service containerd; Restart-Service kubelet"),
	},
	Patterns: osMismatch,
	Sources:  []string{"https://kubernetes.io/docs/concepts/windows/intro/#pause-container (pause / infra container must match the node's Windows build; containerd config.toml)", "https://kubernetes.io/docs/concepts/windows/intro/#pause-container (recommended pause image)", "https://kubernetes.io/docs/concepts/windows/intro/#pause-container (check that your pause image is compatible with your OS version)", srcSandbox, srcHCS, srcCtrTask},
}

// ImageBuildMismatch: the app image is for another Windows build.
var ImageBuildMismatch = &Cause{
	ID: "image-build-mismatch", Title: "The container image was built for another Windows build than the node",
	Explain: "The pod sandbox started, but HCS refused to create the application container: its image was built for a different Windows build than the host, and process-isolated containers need the exact build (Windows Server 2019 is 10.0.17763, 2022 is 10.0.20348, 2025 is 10.0.26100).",
	Steps: []string{
		"Get the node's Windows build: kubectl get node {node} -o jsonpath='{.metadata.labels.node\\.kubernetes\\.io/windows-build}'.",
		"Get the image's OS version: docker manifest inspect {image} and look for platform os.version.",
		"Use the image tag for the host's build (ltsc2019 for 17763, ltsc2022 for 20348, ltsc2025 for 26100), or a multi-arch manifest list that covers both.",
		"Pin the workload to the build with nodeSelector node.kubernetes.io/windows-build.",
	},
	Commands: []Command{
		kubectl("kubectl get node {node} -o jsonpath='{.metadata.labels.node\\.kubernetes\\.io/windows-build}'"),
		kubectl("docker manifest inspect {image}"),
		onNode("ctr.exe -n k8s.io images ls"),
	},
	Patterns: osMismatch,
	Sources:  []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (runbook: Windows pod stuck in ContainerCreating, image OS mismatch)", srcCreate, srcHCS, srcCtrTask},
}

var noPlatform = []Pattern{
	{Text: "no match for platform in manifest", Service: "containerd", Source: srcCtrPlatform},
	{Text: "does not match the specified platform", Service: "cri-dockerd", Source: srcDocker},
}

// LinuxImageOnWindows: a Linux-only image on a Windows node.
var LinuxImageOnWindows = &Cause{
	ID: "linux-image-on-windows", Title: "A Linux-only image cannot be pulled on a Windows node",
	Explain: "The image has no Windows variant, so the Windows node's runtime cannot pull it: containerd reports no match for platform in manifest, Docker that image operating system \"linux\" cannot be used on this platform. The pod is either a Linux workload that landed on a Windows node (it lacks an OS pin and the node lacks the taint) or a Windows workload with a wrong image.",
	Steps: []string{
		"Decide which OS the workload is for.",
		"For a Linux workload: add nodeSelector kubernetes.io/os: linux and taint the Windows nodes (os=windows:NoSchedule).",
		"For a Windows workload: use an image published for Windows and the node's build.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.nodeSelector}'"),
		kubectl("docker manifest inspect {image}"),
		kubectl("kubectl taint nodes {node} os=windows:NoSchedule"),
	},
	Patterns: append([]Pattern{{Text: `image operating system "linux" cannot be used on this platform`, Service: "cri-dockerd", Source: srcDocker}}, noPlatform...),
	Sources:  []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (every pod in a hybrid cluster should have a nodeSelector for kubernetes.io/os)", "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (always taint Windows nodes)", srcImages, srcCtrPlatform},
}

// WindowsImageOnLinux: a Windows image on a Linux node.
var WindowsImageOnLinux = &Cause{
	ID: "windows-image-on-linux", Title: "A Windows image cannot be pulled on a Linux node",
	Explain: "The image is published only for Windows, so the Linux node's runtime finds no variant for linux/amd64. The Windows workload is not pinned to Windows nodes (nodeSelector kubernetes.io/os: windows), so the scheduler placed it on a Linux node.",
	Steps: []string{
		"Pin the workload: nodeSelector kubernetes.io/os: windows and the toleration of the Windows taint.",
		"Delete the pod so it is scheduled again.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.nodeSelector}'"),
		kubectl("kubectl delete pod -n {ns} {pod}"),
	},
	Patterns: append([]Pattern{{Text: `image operating system "windows" cannot be used on this platform`, Service: "cri-dockerd", Source: srcDocker}}, noPlatform...),
	Sources:  []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (pin every pod to its OS)", srcImages, srcCtrPlatform},
}

// CNINetworkFailure: the sandbox's network could not be set up.
var CNINetworkFailure = &Cause{
	ID: "cni-network-failure", Title: "The pod's network could not be set up (CNI or HNS)",
	Explain: "The kubelet could not create the pod sandbox because the CNI plugin failed to set up its network. On Windows the plugin creates an HNS endpoint on the node's HNS network; a missing HNS network, a CNI DaemonSet pod not running on the node, or a wrong CNI config leaves every new pod on the node without an IP.",
	Steps: []string{
		"Check the kubelet's log on the node for CNI errors.",
		"Check that the HNS network of the CNI exists (Get-HNSNetwork) and its endpoints.",
		"Check the CNI binaries and config: C:\\opt\\cni\\bin and C:\\etc\\cni\\net.d.",
		"Restart the CNI DaemonSet pod on the node.",
		"Check the Windows Firewall rules.",
	},
	Commands: []Command{
		onNode(`Get-EventLog -LogName Application -Source kubelet -Newest 100 | Where-Object {$_.Message -like "*CNI*" -or $_.Message -like "*network*"}`),
		onNode("Get-HNSNetwork | Select-Object Name, Type, AddressPrefix"),
		onNode("Get-HNSEndpoint"),
		onNode(`ls C:\opt\cni\bin\; ls C:\etc\cni\net.d\`),
		kubectl("kubectl get pods -A -o wide --field-selector spec.nodeName={node}"),
	},
	Patterns: []Pattern{
		{Text: "failed to setup network for sandbox", Service: "containerd", Source: srcCtrNetwork},
		{Text: "networkplugin cni failed", Service: "cri-dockerd", Source: srcDocker},
		{Text: "failed to set up sandbox container", Service: "cri-dockerd", Source: srcDocker},
		{Text: "hnsCall failed in Win32", Service: "hcsshim", Source: srcHNS},
		{Text: "HNS failed with error", Service: "hcsshim", Source: srcHNS},
	},
	Sources: []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (runbook: Windows pod networking broken, HNS endpoint not created)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (troubleshooting: Get-HnsNetwork)", srcSandbox, srcCtrNetwork, srcHNS},
}

// HostProcessIdentity: a HostProcess container's user cannot log on.
var HostProcessIdentity = &Cause{
	ID: "hostprocess-identity", Title: "The HostProcess container's user account is not valid on the node",
	Explain: "A HostProcess container runs as a user on the node, named by securityContext.windowsOptions.runAsUserName: one of NT AUTHORITY\\SYSTEM, NT AUTHORITY\\Local service, NT AUTHORITY\\NetworkService, or a local group. hcsshim could not log that user on, so the container never starts.",
	Steps: []string{
		"Read runAsUserName of the pod and its containers.",
		"Use NT AUTHORITY\\SYSTEM, NT AUTHORITY\\Local service or NT AUTHORITY\\NetworkService, or a local users group that exists on the node.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.securityContext.windowsOptions}{\"\\n\"}{.spec.containers[*].securityContext.windowsOptions}'"),
		onNode("Get-LocalGroup"),
	},
	Patterns: []Pattern{
		{Text: "failed to logon user", Service: "hcsshim", Source: srcLogon},
		{Text: "invalid user string", Service: "hcsshim", Source: srcLogon},
	},
	Sources: []string{"https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/ (HostProcess containers for node management)", "https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/ (HostProcess containers)", srcLogon},
}
