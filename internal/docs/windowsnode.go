package docs

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/nodeconfig/generate"
)

// exampleInput is the WindowsNode the page generates from.
const exampleInput = `apiVersion: winkube.io/v1alpha1
kind: WindowsNode
kubernetesVersion: "1.36"
windowsBuild: ltsc2022
containerdVersion: 2.1.4
cni: flannel-overlay
podCIDR: 10.244.0.0/16
serviceCIDR: 10.96.0.0/12
sourceVip: 10.244.1.2
reserved: {memory: 2Gi, cpu: 500m}
hyperV: true
`

// layers explains each generated file, in the order a node starts.
var layers = []struct{ path, title, text string }{
	{generate.ContainerdConf, "containerd", "containerd 2.x reads config **version 3**: images under `io.containerd.cri.v1.images`, runtimes and CNI under `io.containerd.cri.v1.runtime` (containerd 1.x reads version 2 and one `io.containerd.grpc.v1.cri` table; keys of the other schema are silently ignored: `containerd-config-schema`). The sandbox (pause) image must run on the node's build (`containerd-sandbox-image`), the snapshotter is `windows` (`containerd-snapshotter`), and Hyper-V isolation needs `SandboxIsolation = 1` on the `runhcs-wcow-hypervisor` handler (`containerd-runtime-handlers`). `conf_dir` must be where the CNI config is (`node-cni-conf-dir`)."},
	{path.Join(generate.CNIConfDir, "10-"+generate.FlannelOverlay+".conflist"), "CNI", "flannel delegates to `win-overlay`, which creates the HNS network named by the config's `name`; with `apiVersion: 2` the policies are HNS v2 (`Settings.Exceptions`, `SDNRoute`), and v1 keys in it are dropped without an error (`cni-hns-policy-version`). The OutBoundNAT exceptions must hold the pod and service CIDRs (`cni-outbound-nat-exceptions`). JSON cannot carry comments, so the provenance note is a `" + generate.GeneratedKey + "` key, which the CNI runtime and plugins ignore."},
	{generate.FlannelNetConf, "flannel", "Windows flannel accepts only VNI 4096 or more and UDP port 4789, and Linux flannel defaults to VNI 1 and port 8472, so both sides must say 4096/4789 (`flannel-vxlan-windows`). The HNS network flannel creates is `Backend.name`, by default `flannel.<VNI>`: the CNI config and kube-proxy must use the same name (`node-network-name-mismatch`)."},
	{generate.KubeletConfig, "kubelet", "The kubelet talks to containerd over a named pipe (`kubelet-runtime-endpoint`). Windows has no cgroups, so `cgroupsPerQOS` and `enforceNodeAllocatable` are switched off (the kubelet would log `ignored configuration option: ...`), and the reserves and hard eviction threshold are what protect the OS (`kubelet-memory-reserve`, `kubelet-eviction-hard`). `singleProcessOOMKill` and `userNamespaces` would stop the kubelet (`kubelet-windows-invalid-option`)."},
	{generate.KubeProxyConf, "kube-proxy", "`kernelspace` is kube-proxy's only mode on Windows (`kube-proxy-mode`); `winkernel.networkName` is the CNI's HNS network (`kube-proxy-network-name`, `node-network-name-mismatch`), and on an overlay network `sourceVip` is required (`kube-proxy-source-vip`). With Antrea there is no kube-proxy at all (`kube-proxy-with-antrea`)."},
	{generate.ServicesScript, "services", "containerd, the kubelet and kube-proxy run as Windows services started in dependency order; the kubelet runs with `--windows-service` above normal priority so workloads cannot starve it, and the firewall lets the API server reach it on 10250."},
}

// WindowsNode writes "a Windows node, layer by layer" around the files
// generate writes for the example node.
func WindowsNode(w io.Writer) error {
	var n generate.Node
	if err := manifest.DecodeStrict("node.yaml", []byte(exampleInput), &n); err != nil {
		return fmt.Errorf("example node: %w", err)
	}
	r, err := n.Resolve()
	if err != nil {
		return fmt.Errorf("example node: %w", err)
	}
	r.File = "node.yaml"
	files := map[string][]byte{}
	for _, f := range generate.Generate(r) {
		files[f.Path] = f.Data
	}
	bw := bufio.NewWriter(w)
	header(bw, "A Windows node, layer by layer")
	fmt.Fprintf(bw, "A Windows node is configured in four formats: containerd's TOML, the CNI's JSON,\n"+
		"the kubelet's and kube-proxy's YAML, plus the PowerShell that starts them. A\n"+
		"mistake in any of them shows up as a node that never gets Ready, pods stuck in\n"+
		"ContainerCreating, or Services that do not answer. `winkube nodeconfig validate`\n"+
		"checks the files alone and against each other ([node rules](rules.md#node-configuration-rules));\n"+
		"`winkube nodeconfig generate` writes a set that passes. This page walks through\n"+
		"what it writes for this node:\n\n```yaml\n%s```\n\n", exampleInput)
	fmt.Fprintf(bw, "```sh\nwinkube nodeconfig generate -f node.yaml --out-dir node/\n"+
		"winkube nodeconfig validate --root node/ --windows-build ltsc2022 --containerd-version 2.1.4 \\\n"+
		"    --pod-cidr 10.244.0.0/16 --service-cidr 10.96.0.0/12 node/\n```\n\n"+
		"`node/` stands for the node's `C:\\`; every file carries a note naming what produced it.\n")
	for _, l := range layers {
		data, ok := files[l.path]
		if !ok {
			return fmt.Errorf("generate wrote no %s", l.path)
		}
		fmt.Fprintf(bw, "\n## %s: `%s`\n\n%s\n\n```%s\n%s```\n", l.title, `C:\`+strings.ReplaceAll(l.path, "/", `\`), l.text, fence(l.path), data)
	}
	return bw.Flush()
}

func fence(p string) string {
	switch path.Ext(p) {
	case ".toml":
		return "toml"
	case ".yaml":
		return "yaml"
	case ".ps1":
		return "powershell"
	}
	return "json"
}
