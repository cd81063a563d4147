// Package nodeconfig checks the configuration files of a Windows node: the
// kubelet's KubeletConfiguration, kube-proxy's KubeProxyConfiguration,
// containerd's config.toml, the CNI network configuration and flannel's
// net-conf.json.
//
// Files are recognised by content, decoded strictly (the kubelet's and
// kube-proxy's own v1beta1/v1alpha1 types; TOML and JSON with positions),
// and checked by the node rules: documented rule.Rule values listed in
// Checks, each with a run function that sees every file given at once, so
// rules can also check the files against each other (kube-proxy's
// networkName against the CNI network, containerd's conf_dir against the
// CNI file). Findings carry file:line:col and go through the lint report.
package nodeconfig
