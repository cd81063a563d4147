package cloudprofile

import (
	"bytes"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
)

// karpenterDoc is the part of a NodePool (karpenter.sh/v1) or a node
// class (EC2NodeClass karpenter.k8s.aws/v1, AKSNodeClass
// karpenter.azure.com) that shapes nodes (karpenter.sh/docs/concepts/nodepools/,
// karpenter.sh/docs/concepts/nodeclasses/).
type karpenterDoc struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Template struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Taints       []corev1.Taint `json:"taints"`
				Requirements []struct {
					Key      string   `json:"key"`
					Operator string   `json:"operator"`
					Values   []string `json:"values"`
				} `json:"requirements"`
				NodeClassRef struct {
					Kind string `json:"kind"`
					Name string `json:"name"`
				} `json:"nodeClassRef"`
			} `json:"spec"`
		} `json:"template"`
		// EC2NodeClass
		AMIFamily        string `json:"amiFamily"`
		AMISelectorTerms []struct {
			Alias string `json:"alias"`
		} `json:"amiSelectorTerms"`
		// AKSNodeClass
		ImageFamily string `json:"imageFamily"`
	} `json:"spec"`
}

// karpenter reads NodePools with their node classes. Karpenter makes
// nodes on demand, so each NodePool is a pool of one node.
func (r *reader) karpenter(data []byte) error {
	lines := lineIndex(data)
	var pools []karpenterDoc
	classes := map[string]karpenterDoc{}
	for _, d := range bytes.Split(data, []byte("\n---")) {
		var k karpenterDoc
		if err := yaml.Unmarshal(d, &k); err != nil {
			return &manifest.Error{File: r.file, Msg: "Karpenter: " + err.Error(), Class: manifest.ErrSyntax, Err: err}
		}
		switch k.Kind {
		case "NodePool":
			pools = append(pools, k)
		case "EC2NodeClass", "AKSNodeClass":
			classes[k.Kind+"/"+k.Metadata.Name] = k
		}
	}
	for _, np := range pools {
		ts := np.Spec.Template.Spec
		line := lines.find("name: " + np.Metadata.Name)
		provider := "eks"
		if ts.NodeClassRef.Kind == "AKSNodeClass" {
			provider = "aks"
		}
		p := r.newPool(np.Metadata.Name, line, provider)
		r.notef(line, "NodePool %s: Karpenter makes nodes on demand; one node is assumed", np.Metadata.Name)
		p.Labels = np.Spec.Template.Metadata.Labels
		p.Taints = ts.Taints
		windowsReq := false
		for _, req := range ts.Requirements {
			switch {
			case req.Key == "kubernetes.io/os" && req.Operator == "In" && len(req.Values) == 1 && req.Values[0] == "windows":
				windowsReq = true
			case req.Key == "node.kubernetes.io/instance-type" && req.Operator == "In" && len(req.Values) > 0:
				r.sized(p, req.Values[0])
			}
		}
		class, ok := classes[ts.NodeClassRef.Kind+"/"+ts.NodeClassRef.Name]
		if !ok && ts.NodeClassRef.Name != "" {
			r.notef(line, "NodePool %s: %s %s is not in this file; its image is unknown", np.Metadata.Name, ts.NodeClassRef.Kind, ts.NodeClassRef.Name)
		}
		build, windowsImage := classBuild(class)
		if windowsReq || windowsImage {
			p.windows(build)
		}
	}
	return nil
}

// classBuild reads the Windows build of a node class: an EC2NodeClass
// alias windows2019@latest or windows2022@latest (or the v1beta1
// amiFamily Windows2019/Windows2022), an AKSNodeClass imageFamily.
func classBuild(c karpenterDoc) (string, bool) {
	names := []string{c.Spec.AMIFamily, c.Spec.ImageFamily}
	for _, t := range c.Spec.AMISelectorTerms {
		family, _, _ := strings.Cut(t.Alias, "@")
		names = append(names, family)
	}
	for _, n := range names {
		if b, win := eksAMI(n); win {
			return b, true
		}
	}
	return "", false
}
