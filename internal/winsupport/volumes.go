package winsupport

import corev1 "k8s.io/api/core/v1"

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
	{"emptyDir", Supported, "on disk (NTFS); medium Memory is not supported", "seeds 002, 003, 004"},
	{"hostPath", Limited, "Windows paths only (C:\\..., \\\\.\\pipe\\...)", "seeds 000, 002"},
	{"configMap", Supported, "", "seeds 002, 003"},
	{"secret", Supported, "written in clear text on the node's disk, not tmpfs", "seeds 002, 004"},
	{"downwardAPI", Supported, "", "seed 003"},
	{"projected", Supported, "", "seed 003"},
	{"persistentVolumeClaim", Supported, "needs a CSI driver with a Windows node plugin", "seeds 000, 002"},
	{"csi", Limited, "the driver must ship a Windows node plugin (csi-proxy)", "seeds 002, 004"},
	{"ephemeral", Limited, "generic ephemeral volumes need a Windows-capable CSI driver", "seed 002"},
	{"azureDisk", Supported, "migrated to the Azure Disk CSI driver", "seed 000"},
	{"azureFile", Supported, "SMB; migrated to the Azure File CSI driver", "seed 000"},
	{"awsElasticBlockStore", Limited, "through the EBS CSI driver", "seed 000"},
	{"gcePersistentDisk", Limited, "through the GCE PD CSI driver", "seed 004 (in-tree plugins)"},
	{"vsphereVolume", Limited, "through the vSphere CSI driver", "seed 002"},
	{"flexVolume", Limited, "PowerShell FlexVolume plugins (SMB, iSCSI) must be installed on the host", "seed 004"},
	{"iscsi", Limited, "needs the Windows iSCSI initiator", "seed 002"},
	{"nfs", Unsupported, "NFS needs a Windows NFS client and is not supported; use SMB", "seeds 000, 002, 004"},
	{"cephfs", Unsupported, "Linux-only", "seed 000"},
	{"glusterfs", Unsupported, "Linux-only (and removed from Kubernetes in 1.26)", "seed 000"},
	{"rbd", Unsupported, "Ceph RBD is Linux-only", "seed 000 (Linux-specific volume types)"},
	{"cinder", Unsupported, "Linux-only", "seed 004 (in-tree plugins for Windows)"},
	{"fc", Unsupported, "Fibre Channel attach is Linux-only", "seed 004"},
	{"flocker", Unsupported, "Linux-only", "seed 004"},
	{"quobyte", Unsupported, "Linux-only", "seed 004"},
	{"storageos", Unsupported, "Linux-only", "seed 004"},
	{"portworxVolume", Unsupported, "Linux-only", "seed 004"},
	{"scaleIO", Unsupported, "Linux-only", "seed 004"},
	{"photonPersistentDisk", Unsupported, "Linux-only", "seed 004"},
	{"gitRepo", Unsupported, "needs git on the host; deprecated", "seed 004"},
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
