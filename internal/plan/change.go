package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// Change is one change to the cluster, as the command line gave it.
type Change struct {
	Kind   string `json:"kind"`             // set-pool, add-pool, remove-pool, taint, kubernetes-version, containerd, runtime-class
	Target string `json:"target,omitempty"` // the pool, RuntimeClass or version changed
	Detail string `json:"detail"`           // what changes, e.g. "windowsBuild 10.0.20348 -> 10.0.26100"

	// apply changes the state and returns the detail as applied ("" keeps
	// Detail).
	apply func(*state) (string, error)
}

// state is the cluster being changed.
type state struct {
	cluster        *cluster.Cluster
	model          winsupport.Model
	containerd     string
	runtimeClasses map[string]*nodev1.RuntimeClass // changed or added
}

// poolFields are what --set-pool may change.
var poolFields = []string{"build", "count", "cpu", "memory", "maxPods", "sandboxImage", "label.KEY"}

// malformed returns the error of a flag value that does not parse: the
// flag and value, what is wrong (why), and the form wanted.
func malformed(flag, arg, want string) func(why string) (Change, error) {
	return func(why string) (Change, error) {
		return Change{}, fmt.Errorf("%s %q: %s: want %s", flag, arg, why, want)
	}
}

// SetPool parses --set-pool NAME:FIELD=VALUE[,FIELD=VALUE...].
func SetPool(arg string) (Change, error) {
	bad := malformed("--set-pool", arg, "NAME:FIELD=VALUE[,FIELD=VALUE], FIELD one of "+strings.Join(poolFields, ", ")+", e.g. win2022:build=10.0.26100")
	name, spec, ok := strings.Cut(arg, ":")
	if !ok || name == "" || spec == "" {
		return bad("no pool name or no field")
	}
	type edit struct{ field, value string }
	var edits []edit
	var details []string
	for _, kv := range strings.Split(spec, ",") {
		f, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return bad(fmt.Sprintf("%q is not FIELD=VALUE", kv))
		}
		if err := checkPoolField(f, v); err != nil {
			return bad(err.Error())
		}
		edits = append(edits, edit{f, v})
		details = append(details, f+"="+v)
	}
	c := Change{Kind: "set-pool", Target: name, Detail: strings.Join(details, ", ")}
	c.apply = func(s *state) (string, error) {
		i, err := s.pool("--set-pool", name)
		if err != nil {
			return "", err
		}
		before := copyPool(s.cluster.Pools[i])
		for _, e := range edits {
			setPoolField(&s.cluster.Pools[i], e.field, e.value)
		}
		s.syncObserved(before, i)
		return describePoolChange(before, s.cluster.Pools[i]), nil
	}
	return c, nil
}

func checkPoolField(f, v string) error {
	switch {
	case f == "build":
		if _, ok := buildOf(v); !ok {
			return fmt.Errorf("build %q is not a Windows Server build: use 10.0.17763, 10.0.20348, 10.0.26100 or ltsc2019, ltsc2022, ltsc2025", v)
		}
	case f == "count" || f == "maxPods":
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return fmt.Errorf("%s %q is not a whole number", f, v)
		}
	case f == "cpu" || f == "memory":
		if _, err := resource.ParseQuantity(v); err != nil {
			return fmt.Errorf("%s %q is not a quantity such as 8 or 32Gi", f, v)
		}
	case f == "sandboxImage":
	case strings.HasPrefix(f, "label.") && len(f) > len("label."):
	default:
		return fmt.Errorf("unknown field %q", f)
	}
	return nil
}

// buildOf reads 10.0.26100, 26100 or ltsc2025.
func buildOf(v string) (winsupport.Build, bool) {
	m := winsupport.Default()
	for _, b := range m.Builds() {
		for _, t := range b.Tags {
			if strings.EqualFold(t, v) {
				return b, true
			}
		}
		if v == strings.TrimPrefix(b.Build, "10.0.") {
			return b, true
		}
	}
	return m.BuildByNumber(v)
}

func setPoolField(p *cluster.Pool, f, v string) {
	switch f {
	case "build":
		b, _ := buildOf(v)
		p.WindowsBuild = b.Build
	case "count":
		p.Count, _ = strconv.Atoi(v)
	case "maxPods":
		p.MaxPods, _ = strconv.Atoi(v)
	case "cpu":
		p.CPU = resource.MustParse(v)
	case "memory":
		p.Memory = resource.MustParse(v)
	case "sandboxImage":
		p.SandboxImage = v
	default:
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[strings.TrimPrefix(f, "label.")] = v
	}
}

// describePoolChange says what differs between two versions of a pool.
func describePoolChange(a, b cluster.Pool) string {
	var d []string
	add := func(what, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %s -> %s", what, orNone(x), orNone(y)))
		}
	}
	add("windowsBuild", a.WindowsBuild, b.WindowsBuild)
	add("count", strconv.Itoa(a.Count), strconv.Itoa(b.Count))
	add("cpu", a.CPU.String(), b.CPU.String())
	add("memory", a.Memory.String(), b.Memory.String())
	add("maxPods", strconv.Itoa(a.MaxPods), strconv.Itoa(b.MaxPods))
	add("sandboxImage", a.SandboxImage, b.SandboxImage)
	add("os", a.OS, b.OS)
	add("taints", taintList(a.Taints), taintList(b.Taints))
	add("labels", labelList(a.Labels, " "), labelList(b.Labels, " "))
	if len(d) == 0 {
		return "no difference"
	}
	return strings.Join(d, ", ")
}

func orNone(s string) string {
	if s == "" || s == "0" {
		return "(none)"
	}
	return s
}

func taintList(ts []corev1.Taint) string {
	var out []string
	for _, t := range ts {
		out = append(out, taintString(t))
	}
	return strings.Join(out, " ")
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// labelList is l's KEY=VALUE pairs in key order, joined by sep: " " in
// the plan's prose, "," in a kubectl label selector.
func labelList(l map[string]string, sep string) string {
	var out []string
	for k, v := range l {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return strings.Join(out, sep)
}

// AddPool is --add-pool FILE: the pools of a winkube Cluster file join
// the cluster.
func AddPool(path string) (Change, error) {
	c, err := cluster.Load(path)
	if err != nil {
		return Change{}, fmt.Errorf("--add-pool %s: %w", path, err)
	}
	if c.Observed != nil {
		return Change{}, fmt.Errorf("--add-pool %s: want a winkube Cluster file (apiVersion %s, kind %s) listing the new pools, not Node objects", path, cluster.APIVersion, cluster.Kind)
	}
	var names []string
	for _, p := range c.Pools {
		names = append(names, p.Name)
	}
	ch := Change{Kind: "add-pool", Target: strings.Join(names, ", "), Detail: "pools from " + path}
	ch.apply = func(s *state) (string, error) {
		for _, p := range c.Pools {
			if _, err := s.pool("", p.Name); err == nil {
				return "", fmt.Errorf("--add-pool %s: the cluster already has a pool %q: rename the new pool", path, p.Name)
			}
			s.addPool(p)
		}
		return "", nil
	}
	return ch, nil
}

// RemovePool is --remove-pool NAME.
func RemovePool(name string) (Change, error) {
	if name == "" || strings.ContainsAny(name, ":=,") {
		return Change{}, fmt.Errorf("--remove-pool %q: want the name of a pool, e.g. --remove-pool win2019", name)
	}
	ch := Change{Kind: "remove-pool", Target: name, Detail: "pool removed"}
	ch.apply = func(s *state) (string, error) {
		i, err := s.pool("--remove-pool", name)
		if err != nil {
			return "", err
		}
		detail := fmt.Sprintf("pool removed (%d nodes)", s.cluster.Pools[i].Count)
		s.removePool(i)
		return detail, nil
	}
	return ch, nil
}

// Taint is --taint POOL:KEY[=VALUE]:EFFECT.
func Taint(arg string) (Change, error) {
	bad := malformed("--taint", arg, "POOL:KEY=VALUE:EFFECT with EFFECT NoSchedule, PreferNoSchedule or NoExecute, e.g. win2025:os=windows:NoSchedule")
	pool, spec, ok := strings.Cut(arg, ":")
	if !ok || pool == "" || strings.Count(spec, ":") != 1 {
		return bad("not three parts")
	}
	t, ok := parseTaintSpec(spec)
	if !ok {
		return bad("no key, or an effect other than NoSchedule, PreferNoSchedule or NoExecute")
	}
	ch := Change{Kind: "taint", Target: pool, Detail: "add taint " + taintString(t)}
	ch.apply = func(s *state) (string, error) {
		i, err := s.pool("--taint", pool)
		if err != nil {
			return "", err
		}
		p := &s.cluster.Pools[i]
		before := copyPool(*p)
		replaced := false
		for j, old := range p.Taints {
			if old.Key == t.Key && old.Effect == t.Effect {
				p.Taints[j], replaced = t, true
			}
		}
		if !replaced {
			p.Taints = append(p.Taints, t)
		}
		s.syncObserved(before, i)
		return "", nil
	}
	return ch, nil
}

// pool returns the index of the named pool, or an error naming the flag
// and the pools there are.
func (s *state) pool(flag, name string) (int, error) {
	var names []string
	for i, p := range s.cluster.Pools {
		if p.Name == name {
			return i, nil
		}
		names = append(names, p.Name)
	}
	return -1, fmt.Errorf("%s: no pool %q in the current cluster (its pools: %s)", flag, name, strings.Join(names, ", "))
}
