package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// WindowsMemoryEmptyDir: a RAM-backed emptyDir on Windows.
var WindowsMemoryEmptyDir = &rule.Rule{
	ID:       "windows-memory-emptydir",
	Title:    "Windows pod asks for a memory-backed emptyDir",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports volumes[].emptyDir.medium: Memory on a Windows workload.",
		Why:  "Windows has no built-in RAM disk, so medium Memory is not supported. The Windows kubelet does not fail: its \"tmpfs\" mount just creates an ordinary directory on the node's disk, so data meant never to touch disk (keys, tokens, scratch secrets) is written to it, and the volume is as slow as the disk.",
		Fix:  "Remove medium (winkube fix does; the volume is then honestly on disk), and keep secrets in Secret volumes or an external store.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (emptyDir: Memory is not supported, as Windows does not have a built-in RAM disk)",
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (emptyDir: you cannot set its volume source to memory)",
			"k8s.io/mount-utils v0.36.3 mount_windows.go (a tmpfs mount is os.MkdirAll of the target)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		for i, v := range p.Workload.Spec.Volumes {
			if v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory {
				continue
			}
			path := rule.Path(p.Workload.SpecPath.Child("volumes").Index(i).Child("emptyDir", "medium"))
			p.Report(rule.Finding{Path: path,
				Message: fmt.Sprintf(MemoryEmptyDirMsg, v.Name),
				Fix:     &rule.Fix{Title: "remove emptyDir.medium", Safe: true, Edits: []rule.Edit{{Op: rule.Remove, Path: path}}}})
		}
	},
}

// WindowsUnsupportedVolume: volume sources Windows nodes cannot mount, and
// hostPath volumes naming Linux paths.
var WindowsUnsupportedVolume = &rule.Rule{
	ID:       "windows-unsupported-volume",
	Title:    "Windows pod uses a volume type or host path Windows does not support",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports, on a Windows workload, volumes whose type the Windows support model marks unsupported (nfs, cephfs, glusterfs, rbd, cinder, fc, gitRepo, image and other Linux-only in-tree plugins) as errors, and, as warnings, hostPath volumes (outside HostProcess pods) whose path lies in a Linux system directory only Linux programs use (/etc, /usr, /opt, /proc, /sys, /dev, the Docker and containerd sockets; winsupport.LinuxSystemPath). Other rooted paths without a drive (/k, /var/log/<agent>, /var/run/<agent>) are the conventional form of C:\\ paths in Windows node agents and are not reported. This rule owns hostPath paths; windows-linux-path covers mountPath. Linux-style paths that Windows nodes really have on drive C: (/var/lib/kubelet, /var/log/pods, /var/log/containers, /opt/cni/bin, /etc/cni/net.d, /run/flannel, what is under them and their parents up to /, the drive root) are not reported: the kubelet puts a rooted path without a drive on C:, and Windows node agents mount them on purpose.",
		Why:  "Linux-only volume plugins have no Windows implementation: the volume never mounts and the pod stays in ContainerCreating. A hostPath such as /var/lib/docker/containers or /run/containerd/containerd.sock is read on Windows as the same path on drive C: (C:\\run\\containerd\\containerd.sock), which either does not exist or does not hold what Linux keeps there.",
		Fix:  "Use a volume type Windows supports (SMB or a CSI driver with a Windows node plugin instead of NFS or CephFS), and Windows paths for hostPath (C:\\..., \\\\.\\pipe\\...).",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (Linux-specific volume types such as cephfs and glusterfs are unsupported; hostPath must use Windows paths like C:\\data)",
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (storage on Windows: SMB rather than NFS, hostPath with Windows paths)",
			"https://kubernetes.io/docs/concepts/storage/windows-storage/ (NFS based storage is not supported)",
			"k8s.io/kubernetes v1.36.3 pkg/volume/util/util.go MakeAbsolutePath (a rooted path without a drive is put on C:)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		for i := range p.Workload.Spec.Volumes {
			v := &p.Workload.Spec.Volumes[i]
			vp := p.Workload.SpecPath.Child("volumes").Index(i)
			row := p.Model.Volume(v)
			switch {
			case !volumeBroken(p, v):
			case row.Windows == winsupport.Unsupported:
				p.Report(rule.Finding{Path: rule.Path(vp.Child(row.Name)),
					Message: fmt.Sprintf("%s volume %q is not supported on Windows (%s): it will not mount and the pod stays in ContainerCreating", row.Name, v.Name, row.Note)})
			default: // a hostPath at a Linux system location
				p.Report(rule.Finding{Path: rule.Path(vp.Child("hostPath", "path")),
					Message: fmt.Sprintf("hostPath %q is a Linux system location Windows nodes do not have: the node reads it as %s", v.HostPath.Path, p.Model.KubeletWindowsPath(v.HostPath.Path)),
					Hint:    "mount the Windows directory the program needs (C:\\...); a Linux node agent needs a Windows build to run here",
				}.WithSeverity(rule.Warning))
			}
		}
	},
}

// volumeBroken reports whether windows-unsupported-volume reports the
// volume: a type Windows does not support, or (outside HostProcess pods)
// a hostPath at a Linux system location. Other rules leave such a
// volume's mounts to it: one cause, one finding.
func volumeBroken(p *rule.Pass, v *corev1.Volume) bool {
	if p.Model.Volume(v).Windows == winsupport.Unsupported {
		return true
	}
	if v.HostPath == nil || p.Target.HostProcess {
		return false
	}
	_, ok := p.Model.LinuxSystemPath(v.HostPath.Path)
	return ok
}

// volumeNamed is the pod's volume called name, nil when there is none.
func volumeNamed(s *corev1.PodSpec, name string) *corev1.Volume {
	for i := range s.Volumes {
		if s.Volumes[i].Name == name {
			return &s.Volumes[i]
		}
	}
	return nil
}
