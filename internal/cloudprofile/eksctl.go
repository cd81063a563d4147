package cloudprofile

import (
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
)

// eksctlConfig is the part of eksctl's ClusterConfig (eksctl.io/v1alpha5)
// that shapes nodes (eksctl.io/usage/schema/).
type eksctlConfig struct {
	Metadata struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"metadata"`
	NodeGroups        []eksctlNodeGroup `json:"nodeGroups"`
	ManagedNodeGroups []eksctlNodeGroup `json:"managedNodeGroups"`
}

type eksctlNodeGroup struct {
	Name            string            `json:"name"`
	InstanceType    string            `json:"instanceType"`
	DesiredCapacity *int              `json:"desiredCapacity"`
	AMIFamily       string            `json:"amiFamily"`
	Labels          map[string]string `json:"labels"`
	// Taints is a list of {key, value, effect}; eksctl also reads the
	// older map form key: value:Effect.
	Taints any `json:"taints"`
}

// eksctl reads the node groups of a ClusterConfig. eksctl's defaults: 2
// nodes of m5.large, Amazon Linux (eksctl.io/usage/schema/).
func (r *reader) eksctl(data []byte) error {
	var c eksctlConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		return &manifest.Error{File: r.file, Msg: "eksctl ClusterConfig: " + err.Error(), Class: manifest.ErrSyntax, Err: err}
	}
	lines := lineIndex(data)
	for _, g := range append(c.NodeGroups, c.ManagedNodeGroups...) {
		line := lines.find("name: "+g.Name, "- name: "+g.Name)
		p := r.newPool(g.Name, line, "eks")
		p.Count = 2
		if g.DesiredCapacity != nil {
			p.Count = *g.DesiredCapacity
		}
		vm := g.InstanceType
		if vm == "" {
			vm = "m5.large"
		}
		r.sized(p, vm)
		if b, win := eksAMI(g.AMIFamily); win {
			p.windows(b)
		}
		p.Labels = g.Labels
		switch ts := g.Taints.(type) {
		case []any:
			for _, t := range ts {
				m, _ := t.(map[string]any)
				if m["key"] == nil {
					continue
				}
				if tt, ok := parseTaint(fmt.Sprintf("%v=%v:%v", m["key"], str(m["value"]), m["effect"])); ok {
					p.Taints = append(p.Taints, tt)
				}
			}
		case map[string]any:
			for k, v := range ts {
				if tt, ok := parseTaint(k + "=" + fmt.Sprint(v)); ok {
					p.Taints = append(p.Taints, tt)
				}
			}
		}
	}
	return nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}
