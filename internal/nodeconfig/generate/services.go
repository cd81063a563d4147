package generate

import (
	"bytes"
	"fmt"
)

// services renders the PowerShell that registers containerd, the kubelet
// and kube-proxy as Windows services in start order, and opens the
// kubelet's port. The kubelet runs above normal priority so that
// workloads cannot starve it (kubelet --windows-priorityclass).
func services(r *Resolved, note string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", note)
	fmt.Fprintf(&b, `#Requires -RunAsAdministrator
# Registers the node services for Kubernetes %s on %s (%s), CNI %s.
$ErrorActionPreference = 'Stop'

# containerd registers itself; the kubelet depends on it.
& 'C:\Program Files\containerd\containerd.exe' --register-service --config '%s'

New-Service -Name kubelet -StartupType Automatic -DependsOn containerd `+"`"+`
  -BinaryPathName ('C:\k\kubelet.exe --windows-service --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS ' + `+"`"+`
    '--config=%s --kubeconfig=C:\etc\kubernetes\kubelet.conf ' + `+"`"+`
    '--bootstrap-kubeconfig=C:\etc\kubernetes\bootstrap-kubelet.conf ' + `+"`"+`
    '--hostname-override=' + $env:COMPUTERNAME.ToLower() + ' --v=2')
`, r.KubernetesVersion, r.Build.Name, r.Build.Build, r.CNI, win(ContainerdConf), win(KubeletConfig))
	if r.CNI != Antrea {
		fmt.Fprintf(&b, `
# kube-proxy programs HNS load balancers on the network the CNI creates.
New-Service -Name kube-proxy -StartupType Automatic -DependsOn kubelet `+"`"+`
  -BinaryPathName ('C:\k\kube-proxy.exe --windows-service --config=%s ' + `+"`"+`
    '--hostname-override=' + $env:COMPUTERNAME.ToLower() + ' --v=2')
`, win(KubeProxyConf))
	} else {
		b.WriteString("\n# No kube-proxy: Antrea's agent proxies all Service traffic (AntreaProxy proxyAll).\n")
	}
	b.WriteString(`
# The API server reaches the kubelet (logs, exec, metrics) on 10250.
if (-not (Get-NetFirewallRule -Name kubelet -ErrorAction SilentlyContinue)) {
  New-NetFirewallRule -Name kubelet -DisplayName 'kubelet (TCP 10250)' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250
}

Start-Service containerd
Start-Service kubelet
`)
	if r.CNI != Antrea {
		b.WriteString("Start-Service kube-proxy\n")
	}
	return b.Bytes()
}
