// Package winsupport is winkube's model of what Kubernetes supports on
// Windows, as typed tables with a source for every row.
//
// The tables say which Windows Server builds exist and which Kubernetes
// releases support them, which image tags imply a build, which images are
// Linux-only or multi-platform, which pod fields the API server forbids for
// spec.os.name: windows, and which volume types and features work. Rows
// that changed across Kubernetes releases carry the range they hold for,
// so every question is asked of a Model for one Kubernetes version
// (ForVersion). Rules call the query methods; nothing outside this package
// indexes the tables, which keeps the doc generator and the rules in step.
//
// Which image builds a Windows host runs, and which entry of an image
// index a node pulls, follow containerd's platforms matcher (compat.go):
// from Windows Server 2022 on a host runs the previous LTSC's images too.
//
// Where the seeds disagree, the newest Kubernetes behaviour wins: https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/hyperv-container
// (the v1.20-era page) says only Windows Server 2019 and no Hyper-V; seed
// 003 (the v1.35 page) supports 2022 and 2025; the model keeps both, each
// for the releases it describes.
package winsupport
