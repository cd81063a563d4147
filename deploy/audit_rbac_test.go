package deploy

import (
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// clusterRoles reads the ClusterRoles of one manifest file.
func clusterRoles(t *testing.T, file string) map[string]rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]rbacv1.ClusterRole{}
	for _, o := range decodeStream(t, file, data) {
		if o.Kind != "ClusterRole" {
			continue
		}
		b, err := yaml.Marshal(o.Fields)
		if err != nil {
			t.Fatal(err)
		}
		var cr rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict(b, &cr); err != nil {
			t.Fatal(err)
		}
		out[cr.Name] = cr
	}
	return out
}

// nodeGrants lists "verb resource" for every node resource a role grants.
func nodeGrants(cr rbacv1.ClusterRole) []string {
	var out []string
	for _, r := range cr.Rules {
		for _, res := range r.Resources {
			if res == "nodes" || len(res) > 6 && res[:6] == "nodes/" || res == "*" {
				for _, v := range r.Verbs {
					out = append(out, v+" "+res)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestAuditRoleHasNoNodeProxy: the shipped audit role reads the kubelets
// through the fine-grained subresources only; nodes/proxy is in the
// separate opt-in role and nowhere else.
func TestAuditRoleHasNoNodeProxy(t *testing.T) {
	t.Parallel()
	roles := clusterRoles(t, "audit-rbac.yaml")
	want := []string{"get nodes", "get nodes/configz", "get nodes/log", "get nodes/stats", "list nodes", "watch nodes"}
	if diff := cmp.Diff(want, nodeGrants(roles["winkube-audit"])); diff != "" {
		t.Errorf("winkube-audit's grants on nodes (-want +got):\n%s", diff)
	}
	opt := clusterRoles(t, "audit-node-proxy-rbac.yaml")
	if diff := cmp.Diff([]string{"get nodes/proxy"}, nodeGrants(opt["winkube-audit-node-proxy"])); diff != "" {
		t.Errorf("winkube-audit-node-proxy's grants on nodes (-want +got):\n%s", diff)
	}
	if len(opt) != 1 {
		t.Errorf("audit-node-proxy-rbac.yaml holds %d ClusterRoles, want only winkube-audit-node-proxy (and no binding)", len(opt))
	}
}
