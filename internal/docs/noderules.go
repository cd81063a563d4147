package docs

import (
	"bufio"
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/rule"
)

// NodeRules writes the node configuration rules, the section of the
// catalogue for `winkube nodeconfig validate`.
func NodeRules(w io.Writer, node []*rule.Rule) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\n## %s\n\n", categoryTitle(rule.NodeConfig))
	fmt.Fprintf(bw, "`winkube nodeconfig validate` checks a Windows node's own configuration with\n"+
		"%d more rules: the kubelet's KubeletConfiguration, kube-proxy's KubeProxyConfiguration,\n"+
		"containerd's config.toml, the CNI configuration and flannel's net-conf.json,\n"+
		"alone and against each other. `winkube nodeconfig generate` writes files that\n"+
		"pass all of them. See [a Windows node, layer by layer](windows-node.md).\n\n", len(node))
	fmt.Fprintf(bw, "| rule | severity | title |\n|---|---|---|\n")
	for _, r := range node {
		fmt.Fprintf(bw, "| [`%s`](#%s) | %s | %s |\n", r.ID, anchor(r.ID), r.Severity, cell(r.Title))
	}
	for _, r := range node {
		writeRule(bw, r)
	}
	return bw.Flush()
}
