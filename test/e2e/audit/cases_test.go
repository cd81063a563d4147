package audit

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

const (
	schedTaint = "0/12 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable, 10 node(s) had untolerated taint(s). preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling."
	schedSel   = "0/12 nodes are available: 12 node(s) didn't match Pod's node affinity/selector. preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling."
	schedCPU   = "0/12 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector, 9 Insufficient cpu. preemption: 0/12 nodes are available: 3 Preemption is not helpful for scheduling, 9 No preemption victims found for incoming pod."
)

// cases is one pod per doctor cause, plus the runtime variants of the
// causes whose message differs between containerd, cri-dockerd and
// hcsshim. Messages are written as the kubelet formats them around the
// runtime's error (pkg/kubelet/kuberuntime, pkg/kubelet/images).
func cases() map[string]podCase {
	return map[string]podCase{
		"taint": {cause: "untolerated-taint", pod: noToleration(winPod("taint", "", servercore2022)), status: unschedulable(schedTaint),
			events: []event{{newAPI: true, typ: "Warning", reason: "FailedScheduling", message: schedTaint, count: 3}}},
		"selector": {cause: "no-node-matches-selector", pod: withSelector(winPod("selector", "", servercore2022), corev1.LabelWindowsBuild, "10.0.26100"), status: unschedulable(schedSel),
			events: []event{{newAPI: true, typ: "Warning", reason: "FailedScheduling", message: schedSel}}},
		"cpu": {cause: "insufficient-resources", pod: withCPU(winPod("cpu", "", servercore2022), "3900m"), status: unschedulable(schedCPU),
			events: []event{{newAPI: true, typ: "Warning", reason: "FailedScheduling", message: schedCPU}}},
		"os-mismatch": {cause: "pod-os-mismatch", pod: linuxPod("os-mismatch", "win-ok", "nginx:1.27"), status: failed("PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS"),
			events: []event{{typ: "Warning", reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS"}}},
		"pod-resources": {cause: "pod-level-resources-unsupported", pod: podLevelResources(winPod("pod-resources", "win-ok", servercore2022)), status: failed("PodLevelResourcesNotSupported", "pod-level resources are not supported on Windows"),
			events: []event{{typ: "Warning", reason: "PodLevelResourcesNotSupported", message: "pod-level resources are not supported on Windows"}}},
		"pause": {cause: "pause-image-build-mismatch", pod: winPod("pause", "win-ok", servercore2022), status: waiting("ContainerCreating", ""),
			events: []event{{typ: "Warning", reason: "FailedCreatePodSandBox", count: 14, at: 20, message: sandboxPfx + "failed to create containerd task: failed to create shim task: " + fmt.Sprintf(hcsMismatch, "5e6f0a1b2c3d") + ": unknown"}}},
		"pause-docker": {cause: "pause-image-build-mismatch", pod: winPod("pause-docker", "win-ok", servercore2022), status: waiting("ContainerCreating", ""),
			events: []event{{typ: "Warning", reason: "FailedCreatePodSandBox", count: 9, at: 20, message: sandboxPfx + `failed to start sandbox container for pod "pause-docker": Error response from daemon: container 1f2e3d4c encountered an error during hcsshim::CreateComputeSystem: failure in a Windows system call: The container operating system does not match the host operating system. (0xc0370101)`}}},
		"image-build": {cause: "image-build-mismatch", pod: winPod("image-build", "win-ok", servercore2019),
			status: waiting("CreateContainerError", "failed to create containerd task: failed to create shim task: "+fmt.Sprintf(hcsMismatch, "0a1b2c3d")+": unknown"),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", count: 6, at: 15, message: "Error: failed to create containerd task: failed to create shim task: " + fmt.Sprintf(hcsMismatch, "0a1b2c3d") + ": unknown"}}},
		"image-build-old-hcsshim": {cause: "image-build-mismatch", pod: winPod("image-build-old-hcsshim", "win-ok", servercore2019), status: waiting("RunContainerError", "context deadline exceeded"),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 15, message: "Error: failed to create containerd task: hcsshim::CreateComputeSystem 9f8e: THE CONTAINER OPERATING SYSTEM DOES NOT MATCH THE HOST OPERATING SYSTEM.: unknown"}}},
		"linux-image": {cause: "linux-image-on-windows", pod: winPod("linux-image", "win-untainted", "nginx:1.27"), status: waiting("ImagePullBackOff", `Back-off pulling image "nginx:1.27"`),
			events: []event{
				{typ: "Normal", reason: "Pulling", fieldPath: "spec.containers{app}", at: 1, message: `Pulling image "nginx:1.27"`},
				{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 2, count: 4, message: `Failed to pull image "nginx:1.27": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.27": no match for platform in manifest: not found`},
				{typ: "Normal", reason: "BackOff", fieldPath: "spec.containers{app}", at: 3, count: 20, message: `Back-off pulling image "nginx:1.27"`}}},
		"linux-image-docker": {cause: "linux-image-on-windows", pod: winPod("linux-image-docker", "win-untainted", "nginx:1.27"), status: waiting("ErrImagePull", ""),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 2, message: `Failed to pull image "nginx:1.27": rpc error: code = Unknown desc = Error response from daemon: image operating system "linux" cannot be used on this platform`}}},
		"windows-image": {cause: "windows-image-on-linux", pod: winPod("windows-image", "lin-1", servercore2022), status: waiting("ErrImagePull", ""),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 2, message: `Failed to pull image "` + servercore2022 + `": rpc error: code = NotFound desc = failed to pull and unpack image "` + servercore2022 + `": no match for platform in manifest: not found`}}},
		"cni": {cause: "cni-network-failure", pod: winPod("cni", "win-ok-2", servercore2022), status: waiting("ContainerCreating", ""),
			events: []event{{typ: "Warning", reason: "FailedCreatePodSandBox", count: 31, at: 25, message: sandboxPfx + `failed to setup network for sandbox "7c1d2e3f": plugin type="calico" failed (add): hnsCall failed in Win32: The object already exists. (0x1392)`}}},
		"cni-docker": {cause: "cni-network-failure", pod: winPod("cni-docker", "win-ok-2", servercore2022), status: waiting("ContainerCreating", ""),
			events: []event{{typ: "Warning", reason: "FailedCreatePodSandBox", count: 7, at: 25, message: sandboxPfx + `failed to set up sandbox container "8d2e" network for pod "cni-docker": networkPlugin cni failed to set up pod "cni-docker_shop" network: plugin type="flannel" failed (add): HNS failed with error : The parameter is incorrect.`}}},
		"hostprocess": {cause: "hostprocess-identity", pod: hostProcess(winPod("hostprocess", "win-ok-2", nano2022)),
			status: waiting("CreateContainerError", "failed to create containerd task: failed to create shim task: failed to logon user: The user name or password is incorrect.: unknown"),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 5, count: 3, message: "Error: failed to create containerd task: failed to create shim task: failed to logon user: The user name or password is incorrect.: unknown"}}},
		"command": {cause: "command-not-found", pod: withCommand(winPod("command", "win-ok-2", servercore2022), "/bin/sh", "-c", "run.sh"),
			status: restarting("RunContainerError", corev1.ContainerStateTerminated{ExitCode: 128, Reason: "StartError", Message: "failed to create containerd task: failed to create shim task: hcs::System::CreateProcess 3c4d: The system cannot find the file specified.: unknown"}, 3, false),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 5, count: 4, message: "Error: failed to create containerd task: failed to create shim task: hcs::System::CreateProcess 3c4d: The system cannot find the file specified.: unknown"}}},
		"command-linux": {cause: "command-not-found", pod: withCommand(linuxPod("command-linux", "lin-1", "busybox:1.36"), "bash", "-c", "run"),
			status: waiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown`),
			events: []event{{typ: "Warning", reason: "Failed", fieldPath: "spec.containers{app}", at: 5, message: `Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown`}}},
		"dll": {cause: "dll-not-found", pod: winPod("dll", "win-ok-2", nano2022), status: restarting("CrashLoopBackOff", corev1.ContainerStateTerminated{ExitCode: -1073741515, Reason: "Error"}, 5, false),
			events: []event{{typ: "Warning", reason: "BackOff", fieldPath: "spec.containers{app}", at: 20, count: 25, message: "Back-off restarting failed container app in pod dll_shop(uid)"}}},
		"liveness": {cause: "slow-start-killed-by-liveness", pod: withLiveness(winPod("liveness", "win-ok-2", servercore2022)), status: restarting("CrashLoopBackOff", corev1.ContainerStateTerminated{ExitCode: 1067, Reason: "Error"}, 6, false),
			events: []event{
				{typ: "Warning", reason: "Unhealthy", fieldPath: "spec.containers{app}", at: 10, count: 18, message: `Liveness probe failed: Get "http://10.244.3.7:80/healthz": dial tcp 10.244.3.7:80: connect: connection refused`},
				{typ: "Normal", reason: "Killing", fieldPath: "spec.containers{app}", at: 11, count: 6, message: "Container app failed liveness probe, will be restarted"}}},
		"pulling": {cause: "slow-image-pull", pod: winPod("pulling", "win-ok-2", servercore2022), status: waiting("ContainerCreating", ""),
			events: []event{{typ: "Normal", reason: "Pulling", fieldPath: "spec.containers{app}", at: 1, message: `Pulling image "` + servercore2022 + `"`}}},
		"oom": {cause: "oom-killed", pod: winPod("oom", "win-ok-2", servercore2022), status: restarting("", corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}, 2, true)},
		"evicted": {cause: "evicted", pod: winPod("evicted", "win-ok-2", servercore2022), status: failed("Evicted", "The node was low on resource: memory. Threshold quantity: 500Mi, available: 312Mi. "),
			events: []event{{typ: "Warning", reason: "Evicted", at: 40, message: "The node was low on resource: memory. Threshold quantity: 500Mi, available: 312Mi. "}}},
		"mystery": {cause: "unknown", pod: winPod("mystery", "win-ok-2", servercore2022), status: restarting("CrashLoopBackOff", corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}, 3, false),
			events: []event{
				{typ: "Normal", reason: "Started", fieldPath: "spec.containers{app}", at: 19, count: 4, message: "Started container app"},
				{typ: "Warning", reason: "BackOff", fieldPath: "spec.containers{app}", at: 20, count: 12, message: "Back-off restarting failed container app in pod mystery_shop(uid)"}}},
		"healthy": {pod: winPod("healthy", "win-ok-2", servercore2022), status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions:        []corev1.PodCondition{scheduled(0), {Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t(1)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t(1)}}}}}},
	}
}
