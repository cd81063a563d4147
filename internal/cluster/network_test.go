package cluster

import (
	"strings"
	"testing"
)

func TestEnforcesNetworkPolicy(t *testing.T) {
	t.Parallel()
	tr, fa := true, false
	for _, tc := range []struct {
		pool         Pool
		enforces, ok bool
		dropsICMP    bool
	}{
		{pool: Pool{}},
		{pool: Pool{CNI: "calico"}, enforces: true, ok: true},
		{pool: Pool{CNI: "Antrea"}, enforces: true, ok: true},
		{pool: Pool{CNI: "flannel"}, ok: true, dropsICMP: true},
		{pool: Pool{CNI: "sdnbridge"}, ok: true, dropsICMP: true},
		{pool: Pool{CNI: "win-overlay"}, ok: true, dropsICMP: true},
		// Azure CNI enforces only with Azure NPM: unknown from the name.
		{pool: Pool{CNI: "azure-vnet"}, dropsICMP: true},
		{pool: Pool{CNI: "azure", NetworkPolicy: &tr}, enforces: true, ok: true, dropsICMP: true},
		// The field wins over the CNI.
		{pool: Pool{CNI: "calico", NetworkPolicy: &fa}, ok: true},
		{pool: Pool{CNI: "cilium"}},
	} {
		enf, ok := tc.pool.EnforcesNetworkPolicy()
		if enf != tc.enforces || ok != tc.ok {
			t.Errorf("%+v: EnforcesNetworkPolicy() = %v, %v, want %v, %v", tc.pool, enf, ok, tc.enforces, tc.ok)
		}
		if got := tc.pool.DropsOutboundICMP(); got != tc.dropsICMP {
			t.Errorf("%+v: DropsOutboundICMP() = %v, want %v", tc.pool, got, tc.dropsICMP)
		}
	}
}

func TestNetworkProblems(t *testing.T) {
	t.Parallel()
	c := Reference()
	c.ClusterDomain = "Cluster_Local"
	c.Pools[1].CNI = "weave"
	c.Pools[1].NetworkMode = "vxlan"
	var got []string
	for _, p := range c.Problems() {
		got = append(got, p.Path)
	}
	if want := "clusterDomain pools[1].cni pools[1].networkMode"; strings.Join(got, " ") != want {
		t.Errorf("problems at %v, want %s", got, want)
	}
	c = Reference()
	c.ClusterDomain = "corp.example."
	if err := c.Validate(); err != nil {
		t.Errorf("a domain with its root dot: %v", err)
	}
	if got := c.Domain(); got != "corp.example" {
		t.Errorf("Domain() = %q", got)
	}
	if got := Reference().Domain(); got != DefaultClusterDomain {
		t.Errorf("default Domain() = %q", got)
	}
	aks, err := Named("aks")
	if err != nil {
		t.Fatal(err)
	}
	if w := aks.PoolsOf("windows")[0]; w.CNI != "azure" {
		t.Errorf("aks Windows pool cni = %q, want azure", w.CNI)
	}
}

func TestMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pool Pool
		want string
	}{
		{Pool{}, ""},
		{Pool{CNI: "sdnbridge"}, "l2bridge"},
		{Pool{CNI: "win-overlay"}, "overlay"},
		// Flannel runs host-gw (l2bridge) or vxlan (overlay): unknown.
		{Pool{CNI: "flannel"}, ""},
		{Pool{CNI: "calico"}, ""},
		// The field wins over the CNI.
		{Pool{CNI: "flannel", NetworkMode: "Overlay"}, "overlay"},
		{Pool{CNI: "win-overlay", NetworkMode: "l2bridge"}, "l2bridge"},
	} {
		if got := tc.pool.Mode(); got != tc.want {
			t.Errorf("%+v: Mode() = %q, want %q", tc.pool, got, tc.want)
		}
	}
}
