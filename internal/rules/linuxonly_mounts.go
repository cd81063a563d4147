package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// serviceAccountMountPath is where the kubelet mounts the service account
// token; on Windows it is C:\var\run\secrets\... and client libraries look
// there (https://kubernetes.io/docs/concepts/storage/windows-storage/), so mounting a token there explicitly is right.
const serviceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// eachVolumeMount calls fn for every volumeMount of every container.
func eachVolumeMount(p *rule.Pass, fn func(c *corev1.Container, m *corev1.VolumeMount, mp *field.Path)) {
	winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
		for j := range c.VolumeMounts {
			fn(c, &c.VolumeMounts[j], cp.Child("volumeMounts").Index(j))
		}
	})
}

// WindowsSubPath: subPath mounts where the node runtime cannot do them.
var WindowsSubPath = &rule.Rule{
	ID:       "windows-subpath",
	Title:    "Windows container mounts a volume subPath the runtime may not support",
	Severity: rule.Warning,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports volumeMounts[].subPath and subPathExpr on a Windows workload when the selected Kubernetes release still allows Windows nodes on Docker EE (before 1.24, when dockershim was removed). From 1.24 Windows nodes run containerd, which mounts subPaths, and nothing is reported; neither are HostProcess pods, which only containerd runs.",
		Why:  "With Docker EE only a whole volume can be mounted into a Windows container, and a volume mount can only target a directory, not a single file; a subPath mount (a single web.config out of a ConfigMap, say) fails.",
		Fix:  "Run Windows nodes on containerd, or mount the whole volume at a directory and point the application at the file inside it.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (volume subpath mounts are not supported; only the entire volume can be mounted; with Docker, mounts can only target a directory)",
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (subPath: Web.config with containerd)",
		},
	},
	Workload: func(p *rule.Pass) {
		// HostProcess containers exist only on containerd.
		if !windowsBound(p) || p.Model.Supports(winsupport.FeatureSubPath) || p.Target.HostProcess {
			return
		}
		eachVolumeMount(p, func(_ *corev1.Container, m *corev1.VolumeMount, mp *field.Path) {
			for _, sp := range []struct{ name, value string }{{"subPath", m.SubPath}, {"subPathExpr", m.SubPathExpr}} {
				if sp.value == "" {
					continue
				}
				p.Report(rule.Finding{Path: rule.Path(mp.Child(sp.name)),
					Message: fmt.Sprintf("%s %q of volume %q: Windows nodes on Docker EE, still possible in Kubernetes %s, mount only whole volumes; it works only with containerd", sp.name, sp.value, m.Name, p.Model.V),
					Hint:    "mount the whole volume at a directory, or make sure every Windows node runs containerd"})
			}
		})
	},
}

// WindowsMountPropagation: propagation Windows silently drops.
var WindowsMountPropagation = &rule.Rule{
	ID:       "windows-mount-propagation",
	Title:    "Windows container relies on mount propagation",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports volumeMounts[].mountPropagation set to HostToContainer or Bidirectional on a Windows workload (None is the default and is not reported). Mounts of a volume that windows-unsupported-volume reports (a Linux-only type, a hostPath at a Linux system location) are left to it: the volume is the cause.",
		Why:  "Mount propagation is not supported on Windows: the Windows kubelet makes every mount private, whatever the field says. Mounts made on the host later never appear in the container, and mounts the container makes never reach the host, which is what a storage node plugin using Bidirectional depends on. Bidirectional is also refused by the API server for a container that is not privileged, and Windows containers cannot be.",
		Fix:  "Remove mountPropagation and design without it; a Windows storage plugin mounts through csi-proxy from a HostProcess container instead.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (V1.VolumeMount.mountPropagation: mount propagation is not supported on Windows)",
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (mountPropagation for volume mounts is not supported on Windows)",
			"k8s.io/kubernetes v1.36.3 pkg/kubelet/kubelet_pods.go translateMountPropagation (PRIVATE on Windows)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		eachVolumeMount(p, func(_ *corev1.Container, m *corev1.VolumeMount, mp *field.Path) {
			if m.MountPropagation == nil || *m.MountPropagation == corev1.MountPropagationNone {
				return
			}
			if v := volumeNamed(p.Workload.Spec, m.Name); v != nil && volumeBroken(p, v) {
				return // windows-unsupported-volume reports the volume itself
			}
			path := rule.Path(mp.Child("mountPropagation"))
			p.Report(rule.Finding{Path: path,
				Message: fmt.Sprintf(MountPropagationMsg, *m.MountPropagation, m.Name),
				Fix:     &rule.Fix{Title: "remove mountPropagation", Edits: []rule.Edit{{Op: rule.Remove, Path: path}}}})
		})
	},
}

// WindowsVolumeDevices: raw block devices.
var WindowsVolumeDevices = &rule.Rule{
	ID:       "windows-volume-devices",
	Title:    "Windows container asks for a raw block device",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports containers[].volumeDevices (a PersistentVolumeClaim with volumeMode: Block attached as a raw device) on a Windows workload.",
		Why:  "volumeDevices is not implemented on Windows: Windows cannot attach raw block devices to pods, so the volume is never made available and the pod does not start.",
		Fix:  "Use a Filesystem-mode claim and a volumeMount (the CSI driver formats it with NTFS).",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (volumeDevices is not implemented on Windows; Windows cannot attach raw block devices to pods)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			for j, d := range c.VolumeDevices {
				p.Report(rule.Finding{Path: rule.Path(cp.Child("volumeDevices").Index(j)),
					Message: fmt.Sprintf(VolumeDevicesMsg, d.Name, d.DevicePath),
					Hint:    "use a claim with volumeMode: Filesystem and a volumeMount"})
			}
		})
	},
}

// WindowsLinuxPath: Linux mount paths inside Windows containers.
var WindowsLinuxPath = &rule.Rule{
	ID:       "windows-linux-path",
	Title:    "Windows container mounts a volume at a Linux path",
	Severity: rule.Info,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports volumeMounts[].mountPath in a Windows container (not HostProcess) that lies in a Linux system directory only Linux programs use (/etc, /usr, /opt, /proc, /sys, /dev and a few sockets; see winsupport.LinuxSystemPath). Paths in a container whose image is known to be Windows (the image table, or a Windows build in the tag) are the program's own choice and not reported, nor are those of an image published for Linux and Windows alike, whose Windows build a Windows node runs. Other rooted paths (/data, /conf, /tmp, the kubelet and CNI directories Windows nodes have, a CSI plugin's /csi and /registration) are the conventional form on Windows too and are not reported; neither is the service account path nor anything in a HostProcess container, whose mount paths are relative to the container's sandbox. hostPath paths are windows-unsupported-volume's.",
		Why:  "A Linux path in a Windows manifest usually means the chart was written for Linux. The Windows kubelet mounts /var/data at C:\\var\\data, so the mount itself works (hence info, not warning); an application that expects Linux paths elsewhere (configuration under /etc, sockets under /run) fails on Windows, which is what https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/ warns about.",
		Fix:  "Check that the image is a Windows build of the program and mount where its Windows configuration reads. winkube fix does not rewrite paths: the right Windows path depends on the program.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (if your Helm chart hardcodes Linux paths (e.g., /var/data), it will fail on Windows nodes)",
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (Windows volume mounts use Windows paths: mountPath \"C:\\\\data\")",
			"k8s.io/kubernetes v1.36.3 pkg/kubelet/kubelet_pods.go makeMounts and pkg/volume/util/util.go MakeAbsolutePath",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) || p.Target.HostProcess {
			return
		}
		eachVolumeMount(p, func(c *corev1.Container, m *corev1.VolumeMount, mp *field.Path) {
			root, ok := p.Model.LinuxSystemPath(m.MountPath)
			if !ok || m.MountPath == serviceAccountMountPath {
				return
			}
			// A Windows image chose the path itself: it is not evidence
			// of a Linux program (sigwindowstools/flannel reads
			// /etc/kube-flannel-windows/run.ps1). Neither is it in an
			// image published for both OSes: a Windows node runs its
			// Windows build, and a chart that serves both keeps one set
			// of mounts (Splunk's collector mounts its collectd run
			// directory on both).
			if pl := p.Model.ParseImage(c.Image).Platform; pl == winsupport.PlatformWindows || pl == winsupport.PlatformMulti {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(mp.Child("mountPath")),
				Message: fmt.Sprintf("mountPath %q is under %s, where only Linux programs look", m.MountPath, root),
				Hint:    fmt.Sprintf("the volume lands at %s; check that the image is a Windows build, which reads its files where its own configuration says (C:\\ProgramData\\...)", p.Model.KubeletWindowsPath(m.MountPath))})
		})
	},
}
