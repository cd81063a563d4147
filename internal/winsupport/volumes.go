package winsupport

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Support grades how a volume type works on Windows nodes.
type Support int

const (
	Supported Support = iota
	Limited           // works with caveats
	Unsupported
)

func (s Support) String() string { return [...]string{"supported", "limited", "unsupported"}[s] }

// VolumeType is a row of the volume support table.
type VolumeType struct {
	Name    string // the field name in corev1.VolumeSource
	Windows Support
	Note    string
	Source  string
}

var volumeTypes = []VolumeType{
	{"emptyDir", Supported, "on disk (NTFS); medium Memory is not supported", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"hostPath", Limited, "Windows paths only (C:\\..., \\\\.\\pipe\\...)", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"configMap", Supported, "", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"secret", Supported, "written in clear text on the node's disk, not tmpfs", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"downwardAPI", Supported, "", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"projected", Supported, "", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"persistentVolumeClaim", Supported, "needs a CSI driver with a Windows node plugin", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"csi", Limited, "the driver must ship a Windows node plugin (csi-proxy)", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"ephemeral", Limited, "generic ephemeral volumes need a Windows-capable CSI driver", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"azureDisk", Supported, "migrated to the Azure Disk CSI driver", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"azureFile", Supported, "SMB; migrated to the Azure File CSI driver", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"awsElasticBlockStore", Limited, "through the EBS CSI driver", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"gcePersistentDisk", Limited, "through the GCE PD CSI driver", "https://kubernetes.io/docs/concepts/storage/windows-storage/ (in-tree plugins)"},
	{"vsphereVolume", Limited, "through the vSphere CSI driver", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"flexVolume", Limited, "PowerShell FlexVolume plugins (SMB, iSCSI) must be installed on the host", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"iscsi", Limited, "needs the Windows iSCSI initiator", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"nfs", Unsupported, "NFS needs a Windows NFS client and is not supported; use SMB", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"cephfs", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"glusterfs", Unsupported, "Linux-only (and removed from Kubernetes in 1.26)", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"rbd", Unsupported, "Ceph RBD is Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/ (Linux-specific volume types)"},
	{"cinder", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/ (in-tree plugins for Windows)"},
	{"fc", Unsupported, "Fibre Channel attach is Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"flocker", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"quobyte", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"storageos", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"portworxVolume", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"scaleIO", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"photonPersistentDisk", Unsupported, "Linux-only", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"gitRepo", Unsupported, "needs git on the host; deprecated", "https://kubernetes.io/docs/concepts/storage/windows-storage/"},
	{"image", Unsupported, "image volumes are not implemented on Windows", "Kubernetes ImageVolume (Linux runtimes only)"},
}

// VolumeTypes returns the volume support table.
func (Model) VolumeTypes() []VolumeType { return append([]VolumeType(nil), volumeTypes...) }

// Volume returns the row for the type a volume uses.
func (Model) Volume(v *corev1.Volume) VolumeType {
	name := volumeTypeName(&v.VolumeSource)
	for _, t := range volumeTypes {
		if t.Name == name {
			return t
		}
	}
	return VolumeType{Name: name, Windows: Limited, Note: "support on Windows is not known"}
}

func volumeTypeName(s *corev1.VolumeSource) string {
	switch {
	case s.EmptyDir != nil:
		return "emptyDir"
	case s.HostPath != nil:
		return "hostPath"
	case s.ConfigMap != nil:
		return "configMap"
	case s.Secret != nil:
		return "secret"
	case s.DownwardAPI != nil:
		return "downwardAPI"
	case s.Projected != nil:
		return "projected"
	case s.PersistentVolumeClaim != nil:
		return "persistentVolumeClaim"
	case s.CSI != nil:
		return "csi"
	case s.Ephemeral != nil:
		return "ephemeral"
	case s.AzureDisk != nil:
		return "azureDisk"
	case s.AzureFile != nil:
		return "azureFile"
	case s.AWSElasticBlockStore != nil:
		return "awsElasticBlockStore"
	case s.GCEPersistentDisk != nil:
		return "gcePersistentDisk"
	case s.VsphereVolume != nil:
		return "vsphereVolume"
	case s.FlexVolume != nil:
		return "flexVolume"
	case s.ISCSI != nil:
		return "iscsi"
	case s.NFS != nil:
		return "nfs"
	case s.CephFS != nil:
		return "cephfs"
	case s.Glusterfs != nil:
		return "glusterfs"
	case s.RBD != nil:
		return "rbd"
	case s.Cinder != nil:
		return "cinder"
	case s.FC != nil:
		return "fc"
	case s.Flocker != nil:
		return "flocker"
	case s.Quobyte != nil:
		return "quobyte"
	case s.StorageOS != nil:
		return "storageos"
	case s.PortworxVolume != nil:
		return "portworxVolume"
	case s.ScaleIO != nil:
		return "scaleIO"
	case s.PhotonPersistentDisk != nil:
		return "photonPersistentDisk"
	case s.GitRepo != nil:
		return "gitRepo"
	case s.Image != nil:
		return "image"
	}
	return "unknown"
}

// NodePath is a directory Windows nodes have at a Linux-style path: the
// kubelet turns a rooted path without a drive into the same path on drive
// C: (volumeutil.MakeAbsolutePath), and the node components use those
// paths on Windows too.
type NodePath struct {
	Path   string // Linux-style, rooted
	Note   string
	Source string
}

var windowsNodePaths = []NodePath{
	{"/var/lib/kubelet", "the kubelet's root directory (C:\\var\\lib\\kubelet): pods, plugins, device plugins", "k8s.io/kubernetes v1.36.3 cmd/kubelet/app/options/options.go (defaultRootDir, the same on Windows); the real corpus's Windows CSI node plugins"},
	{"/var/log/pods", "pod logs (C:\\var\\log\\pods)", "https://kubernetes.io/docs/concepts/storage/windows-storage/ (On Windows: C:\\var\\log\\pods\\...); KubeletConfiguration podLogsDir default"},
	{"/var/log/containers", "the kubelet's container log links (C:\\var\\log\\containers)", "k8s.io/kubernetes v1.36.3 pkg/kubelet/kubelet.go (DefaultContainerLogsDir)"},
	{"/opt/cni/bin", "CNI plugin binaries (C:\\opt\\cni\\bin)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (ls C:\\opt\\cni\\bin\\ when troubleshooting Windows networking)"},
	{"/etc/cni/net.d", "CNI configuration (C:\\etc\\cni\\net.d)", "https://learn.microsoft.com/en-us/virtualization/windowscontainers/kubernetes/common-problems (ls C:\\etc\\cni\\net.d\\)"},
	{"/run/flannel", "flannel's subnet file (C:\\run\\flannel\\subnet.env)", "https://github.com/flannel-io/flannel/blob/v0.27.4/Documentation/kubernetes.md (copy /run/flannel/subnet.env to C:\\run\\flannel\\subnet.env on the Windows node)"},
}

// WindowsNodePaths returns the table of Linux-style paths Windows nodes have.
func (Model) WindowsNodePaths() []NodePath { return append([]NodePath(nil), windowsNodePaths...) }

// WindowsNodePath reports whether the Linux-style path p names a
// directory Windows nodes have on drive C:: one of the table's, one under
// it, or one of its parents (/, /var, /etc: a DaemonSet mounting /etc to
// reach /etc/cni/net.d gets C:\etc). It returns the row that matched.
func (Model) WindowsNodePath(p string) (NodePath, bool) {
	clean := strings.TrimRight(p, "/")
	for _, n := range windowsNodePaths {
		if clean == n.Path || strings.HasPrefix(clean, n.Path+"/") || strings.HasPrefix(n.Path, clean+"/") {
			return n, true
		}
	}
	return NodePath{}, false
}

// KubeletWindowsPath is where a Windows kubelet puts a rooted path without
// a drive letter: on drive C:, as volumeutil.MakeAbsolutePath does
// ("/var/data" becomes C:\var\data).
func (Model) KubeletWindowsPath(p string) string {
	if strings.Contains(p, ":") || !strings.HasPrefix(p, "/") {
		return p
	}
	return `C:` + strings.ReplaceAll(p, "/", `\`)
}
