package policy

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
)

// testClusters are the cluster profiles a rule fixture's "# cluster:"
// header chooses; the same as internal/rules' fixture test.
var testClusters = map[string]func() *cluster.Cluster{
	"reference": cluster.Reference,
	"multi-build": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win2019", "windows", "10.0.17763", cluster.WindowsTaint), pool("win2022", "windows", "10.0.20348", cluster.WindowsTaint)}}
	},
	"ws2019": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win2019", "windows", "10.0.17763", cluster.WindowsTaint)}}
	},
	"ws2025": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win2025", "windows", "10.0.26100", cluster.WindowsTaint)}}
	},
	"untainted": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("windows", "windows", "10.0.20348")}}
	},
	"linux-only": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", "")}}
	},
}

func pool(name, os, build string, taints ...corev1.Taint) cluster.Pool {
	return cluster.Pool{Name: name, Count: 2, OS: os, WindowsBuild: build, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110, Taints: taints}
}
