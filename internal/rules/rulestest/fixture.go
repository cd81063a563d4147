package rulestest

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// A fixture's comment
//
//	# want "regexp" ["regexp" ...]
//
// on a line expects one finding of the rule on that line per regexp, each
// matching its message. Header comments choose the context:
//
//	# cluster: reference | assumed | gke | openshift | aks | multi-build | ws2019 | untainted | linux-only | ws2025 | no-port-mappings | flannel | calico | overlay | dsr | all-dsr | no-execute
//	# kubernetes-version: 1.30
//	# resolve-images (image platforms from the rules test's in-memory registry, as --resolve-images)
var (
	wantRE    = regexp.MustCompile(`#\s*want\s+(".*)$`)
	quotedRE  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	clusterRE = regexp.MustCompile(`^#\s*cluster:\s*(\S+)`)
	versionRE = regexp.MustCompile(`^#\s*kubernetes-version:\s*(\S+)`)
)

func pool(name, os, build string, taints ...corev1.Taint) cluster.Pool {
	return cluster.Pool{Name: name, Count: 2, OS: os, WindowsBuild: build, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110, Taints: taints}
}

// Clusters are the cluster profiles fixtures can choose.
var Clusters = map[string]func() *cluster.Cluster{
	"reference": cluster.Reference,
	"assumed":   cluster.Assumed,
	"gke":       func() *cluster.Cluster { c, _ := cluster.Named("gke"); return c },
	"openshift": func() *cluster.Cluster { c, _ := cluster.Named("openshift"); return c },
	"aks":       func() *cluster.Cluster { c, _ := cluster.Named("aks"); return c },
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
	"no-port-mappings": func() *cluster.Cluster {
		// The reference cluster with a Windows CNI that does not map
		// ports (windows-host-port).
		c := cluster.Reference()
		no := false
		for i := range c.Pools {
			if c.Pools[i].OS == "windows" {
				c.Pools[i].CNIPortMappings = &no
			}
		}
		return c
	},
	// Two Windows pools, one whose CNI does not enforce NetworkPolicy
	// and drops outbound ICMP (flannel), one that enforces it (calico).
	"flannel": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), cni(pool("win-flannel", "windows", "10.0.20348", cluster.WindowsTaint), "flannel"), cni(pool("win-calico", "windows", "10.0.20348", cluster.WindowsTaint), "calico")}}
	},
	// kube-proxy with DSR on one Windows pool, without on the other.
	"dsr": func() *cluster.Cluster {
		yes, no := true, false
		a, b := pool("win-dsr", "windows", "10.0.20348", cluster.WindowsTaint), pool("win-nodsr", "windows", "10.0.20348", cluster.WindowsTaint)
		a.KubeProxyDSR, b.KubeProxyDSR = &yes, &no
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), a, b}}
	},
	"all-dsr": func() *cluster.Cluster {
		yes := true
		a := pool("windows", "windows", "10.0.20348", cluster.WindowsTaint)
		a.KubeProxyDSR = &yes
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), a}}
	},
	// One Windows pool on an overlay network (win-overlay), one on
	// l2bridge (flannel host-gw, said by networkMode).
	"overlay": func() *cluster.Cluster {
		bridge := cni(pool("win-bridge", "windows", "10.0.20348", cluster.WindowsTaint), "flannel")
		bridge.NetworkMode = "l2bridge"
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), cni(pool("win-overlay", "windows", "10.0.20348", cluster.WindowsTaint), "win-overlay"), bridge}}
	},
	"calico": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), cni(pool("windows", "windows", "10.0.20348", cluster.WindowsTaint), "calico")}}
	},
	// A Windows pool whose taint evicts (NoExecute) beside one whose taint
	// only keeps the scheduler off (NoSchedule).
	"no-execute": func() *cluster.Cluster {
		evict := corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoExecute}
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win-evict", "windows", "10.0.20348", evict), pool("windows", "windows", "10.0.20348", cluster.WindowsTaint)}}
	},
	"linux-only": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", "")}}
	},
}

func cni(p cluster.Pool, name string) cluster.Pool {
	p.CNI = name
	return p
}

// Want is one expected finding.
type Want struct {
	Line int
	RE   *regexp.Regexp
	Used bool // set by the caller once a finding matched
}

// Fixture is a fixture file's context and expectations.
type Fixture struct {
	Path    string
	Cluster *cluster.Cluster
	Model   winsupport.Model
	Wants   []*Want
}

// Read reads a fixture's header and wants.
func Read(path string) (*Fixture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fx := &Fixture{Path: path, Cluster: cluster.Reference(), Model: winsupport.Default()}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if err := fx.readLine(line, sc.Text()); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return fx, nil
}

func (fx *Fixture) readLine(line int, text string) error {
	if g := clusterRE.FindStringSubmatch(text); g != nil {
		mk, ok := Clusters[g[1]]
		if !ok {
			return fmt.Errorf("unknown test cluster %q", g[1])
		}
		fx.Cluster = mk()
	}
	if g := versionRE.FindStringSubmatch(text); g != nil {
		v, err := winsupport.ParseVersion(g[1])
		if err != nil {
			return err
		}
		fx.Model = winsupport.ForVersion(v)
	}
	if g := wantRE.FindStringSubmatch(text); g != nil {
		for _, q := range quotedRE.FindAllStringSubmatch(g[1], -1) {
			pat, err := strconv.Unquote(q[0])
			if err != nil {
				return fmt.Errorf("want must be a Go string literal: %w", err)
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return fmt.Errorf("bad want regexp: %w", err)
			}
			fx.Wants = append(fx.Wants, &Want{Line: line, RE: re})
		}
	}
	return nil
}

// Match marks and reports the first unused want on line matching msg.
func (fx *Fixture) Match(line int, msg string) bool {
	for _, w := range fx.Wants {
		if !w.Used && w.Line == line && w.RE.MatchString(msg) {
			w.Used = true
			return true
		}
	}
	return false
}

// Unmatched returns the wants no finding matched.
func (fx *Fixture) Unmatched() []*Want {
	var out []*Want
	for _, w := range fx.Wants {
		if !w.Used {
			out = append(out, w)
		}
	}
	return out
}
