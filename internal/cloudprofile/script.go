package cloudprofile

import (
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
)

// command is one logical command line of a script: its words, quotes
// removed, and the line it starts on.
type command struct {
	line  int
	words []string
}

// commands splits a shell or PowerShell script into commands: lines
// joined at a trailing \ or `, comments dropped, split at ;, && and ||,
// words split at blanks outside quotes. It never fails: what it cannot
// read is words no command matches.
func commands(data []byte) []command {
	var out []command
	var cur command
	var word strings.Builder
	inWord := false
	var quote byte
	flushWord := func() {
		if inWord {
			cur.words = append(cur.words, word.String())
			word.Reset()
			inWord = false
		}
	}
	flushCmd := func() {
		flushWord()
		if len(cur.words) > 0 {
			out = append(out, cur)
		}
		cur = command{}
	}
	line := 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		if cur.line == 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			cur.line = line
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				if c == '\n' {
					line++
				}
				word.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case (c == '\\' || c == '`') && i+1 < len(data) && (data[i+1] == '\n' || (data[i+1] == '\r' && i+2 < len(data) && data[i+2] == '\n')):
			flushWord()
			for data[i] != '\n' {
				i++
			}
			line++
		case c == '#' && !inWord:
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case c == '\n' || c == ';':
			flushCmd()
			if c == '\n' {
				line++
			}
		case (c == '&' || c == '|') && i+1 < len(data) && data[i+1] == c:
			flushCmd()
			i++
		case c == ' ' || c == '\t' || c == '\r':
			flushWord()
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	flushCmd()
	return out
}

// flags reads the words after the command's verbs: --flag value,
// --flag=value, -f value, repeated flags and flags taking several words
// (az --labels a=b c=d) keep every value; bare words are positional.
type flags struct {
	vals map[string][]string
	pos  []string
}

func parseFlags(words []string) flags {
	f := flags{vals: map[string][]string{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			f.pos = append(f.pos, w)
			continue
		}
		name, val, eq := strings.Cut(w, "=")
		if eq {
			f.vals[name] = append(f.vals[name], val)
			continue
		}
		n := 0
		for i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
			i++
			n++
			f.vals[name] = append(f.vals[name], words[i])
		}
		if n == 0 {
			f.vals[name] = append(f.vals[name], "")
		}
	}
	return f
}

// get is the first value of the first of names given.
func (f flags) get(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := f.vals[n]; ok {
			return v[0], true
		}
	}
	return "", false
}

// getOr is get's value, or def when none of the flags is given.
func (f flags) getOr(def string, names ...string) string {
	if v, ok := f.get(names...); ok {
		return v
	}
	return def
}

func (f flags) all(name string) []string { return f.vals[name] }

// script reads the pools the commands of a script create.
func (r *reader) script(data []byte) {
	for _, c := range commands(data) {
		w := c.words
		switch {
		case hasPrefix(w, "az", "aks", "create"):
			r.azCreate(c.line, parseFlags(w[3:]))
		case hasPrefix(w, "az", "aks", "nodepool", "add"):
			r.azNodepool(c.line, parseFlags(w[4:]))
		case hasPrefix(w, "eksctl", "create", "nodegroup"):
			r.eksctlNodegroup(c.line, parseFlags(w[3:]))
		case hasPrefix(w, "aws", "eks", "create-nodegroup"):
			r.awsNodegroup(c.line, parseFlags(w[3:]))
		case hasPrefix(w, "gcloud", "container", "clusters", "create"):
			r.gcloudCluster(c.line, parseFlags(w[4:]))
		case hasPrefix(w, "gcloud", "container", "node-pools", "create"):
			r.gcloudNodePool(c.line, parseFlags(w[4:]))
		}
	}
}

func hasPrefix(words []string, prefix ...string) bool {
	if len(words) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if words[i] != p {
			return false
		}
	}
	return true
}

func (r *reader) count(p *pool, line int, f flags, def int, names ...string) {
	p.Count = def
	if v, ok := f.get(names...); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			r.notef(line, "pool %s: node count %q is not a number; %d assumed", p.Name, v, def)
			return
		}
		p.Count = n
	}
}

// azCreate: az aks create makes a Linux System pool, nodepool1 of 3 nodes
// unless told otherwise (learn.microsoft.com/cli/azure/aks#az-aks-create).
func (r *reader) azCreate(line int, f flags) {
	name, _ := f.get("--nodepool-name")
	if name == "" {
		name = "nodepool1"
	}
	p := r.newPool(name, line, "aks")
	p.system = true
	r.count(p, line, f, 3, "--node-count", "-c")
	vm, _ := f.get("--node-vm-size", "-s")
	r.sized(p, vm)
	r.azTaintsLabels(p, f, "--nodepool-taints", "--nodepool-labels")
	if v, ok := f.get("--network-plugin"); ok {
		r.networkPlugin, r.networkPluginLine = strings.ToLower(v), line
	}
}

// azNodepool: az aks nodepool add makes a User pool of 3 Linux nodes by
// default; --os-type Windows without --os-sku is Windows Server 2022; no
// taint is added unless --node-taints says so
// (learn.microsoft.com/cli/azure/aks/nodepool#az-aks-nodepool-add,
// learn.microsoft.com/azure/aks/use-node-taints).
func (r *reader) azNodepool(line int, f flags) {
	name, _ := f.get("--name", "-n", "--nodepool-name")
	p := r.newPool(name, line, "aks")
	r.count(p, line, f, 3, "--node-count", "-c")
	vm, _ := f.get("--node-vm-size", "-s")
	r.sized(p, vm)
	if mode, _ := f.get("--mode"); strings.EqualFold(mode, "System") {
		p.system = true
	}
	os, _ := f.get("--os-type")
	sku, _ := f.get("--os-sku")
	if strings.EqualFold(os, "Windows") || strings.HasPrefix(strings.ToLower(sku), "windows") {
		r.aksWindows(p, line, sku)
	}
	r.azTaintsLabels(p, f, "--node-taints", "--labels")
}

func (r *reader) aksWindows(p *pool, line int, sku string) {
	if sku == "" {
		p.windows(aksDefaultWindowsBuild)
		return
	}
	b, ok := aksOSSKU[strings.ToLower(sku)]
	if !ok {
		r.notef(line, "pool %s: OS SKU %s is not one winkube knows; its Windows build is unknown", p.Name, sku)
	}
	p.windows(b)
	if b == build2019 {
		p.sku2019 = true
	}
}

func (r *reader) azTaintsLabels(p *pool, f flags, taintFlag, labelFlag string) {
	for _, v := range f.all(taintFlag) {
		for _, t := range strings.Split(v, ",") {
			if tt, ok := parseTaint(t); ok {
				p.Taints = append(p.Taints, tt)
			}
		}
	}
	for _, v := range f.all(labelFlag) { // space-separated key=value words
		for k, val := range parseLabels(v) {
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[k] = val
		}
	}
}

// eksctlNodegroup: eksctl create nodegroup, 2 nodes of m5.large by
// default (eksctl.io/usage/nodegroups/, eksctl create nodegroup --help).
func (r *reader) eksctlNodegroup(line int, f flags) {
	name, _ := f.get("--name", "-n")
	p := r.newPool(name, line, "eks")
	r.count(p, line, f, 2, "--nodes", "-N")
	r.sized(p, f.getOr("m5.large", "--node-type", "-t"))
	if fam, _ := f.get("--node-ami-family"); fam != "" {
		if b, win := eksAMI(fam); win {
			p.windows(b)
		}
	}
	if v, ok := f.get("--node-labels"); ok {
		p.Labels = parseLabels(v)
	}
}

// awsNodegroup: aws eks create-nodegroup (--ami-type, --scaling-config,
// --taints key=,value=,effect=NO_SCHEDULE;
// docs.aws.amazon.com/cli/latest/reference/eks/create-nodegroup.html).
func (r *reader) awsNodegroup(line int, f flags) {
	name, _ := f.get("--nodegroup-name")
	p := r.newPool(name, line, "eks")
	p.Count = 2
	if sc, ok := f.get("--scaling-config"); ok {
		if d, ok := parseLabels(sc)["desiredSize"]; ok {
			if n, err := strconv.Atoi(d); err == nil {
				p.Count = n
			}
		}
	}
	r.sized(p, f.getOr("t3.medium", "--instance-types"))
	if ami, _ := f.get("--ami-type"); ami != "" {
		if b, win := eksAMI(ami); win {
			p.windows(b)
		}
	}
	if v, ok := f.get("--labels"); ok {
		p.Labels = parseLabels(v)
	}
	for _, v := range f.all("--taints") {
		kv := parseLabels(v)
		if t, ok := parseTaint(kv["key"] + "=" + kv["value"] + ":" + kv["effect"]); ok {
			p.Taints = append(p.Taints, t)
		}
	}
}

// gcloudCluster: gcloud container clusters create makes default-pool of 3
// e2-medium Linux nodes (cloud.google.com/sdk/gcloud/reference/container/clusters/create).
func (r *reader) gcloudCluster(line int, f flags) {
	p := r.newPool("default-pool", line, "gke")
	p.system = true
	r.count(p, line, f, 3, "--num-nodes")
	r.sized(p, f.getOr("e2-medium", "--machine-type"))
	r.gcloudTaintsLabels(p, f)
	if _, ok := f.get("--enable-ip-alias"); ok {
		t := true
		r.ipAlias, r.ipAliasLine = &t, line
	}
	if _, ok := f.get("--no-enable-ip-alias"); ok {
		fl := false
		r.ipAlias, r.ipAliasLine = &fl, line
	}
}

// gcloudNodePool: gcloud container node-pools create NAME, 3 e2-medium
// nodes by default; a WINDOWS_* image type makes Windows Server nodes,
// which GKE taints node.kubernetes.io/os=windows:NoSchedule
// (cloud.google.com/sdk/gcloud/reference/container/node-pools/create,
// cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows).
func (r *reader) gcloudNodePool(line int, f flags) {
	name := ""
	if len(f.pos) > 0 {
		name = f.pos[0]
	}
	p := r.newPool(name, line, "gke")
	r.count(p, line, f, 3, "--num-nodes")
	r.sized(p, f.getOr("e2-medium", "--machine-type"))
	img, _ := f.get("--image-type")
	if strings.HasPrefix(strings.ToUpper(img), "WINDOWS") {
		r.gkeWindows(p, line, f)
	}
	r.gcloudTaintsLabels(p, f)
}

func (r *reader) gkeWindows(p *pool, line int, f flags) {
	ver, _ := f.get("--windows-os-version")
	b, ok := gkeWindowsOSVersion[strings.ToLower(ver)]
	if !ok {
		b = build2022
		r.notef(line, "pool %s: --windows-os-version not given; Windows Server 2022 (%s) assumed, as the gke profile does: pass --windows-os-version to be sure", p.Name, b)
	}
	p.windows(b)
	p.Taints = append(p.Taints, gkeWindowsTaint)
}

func (r *reader) gcloudTaintsLabels(p *pool, f flags) {
	for _, v := range f.all("--node-taints") {
		for _, t := range strings.Split(v, ",") {
			if tt, ok := parseTaint(t); ok && !cluster.HasTaint(p.Taints, tt) {
				p.Taints = append(p.Taints, tt)
			}
		}
	}
	if v, ok := f.get("--node-labels"); ok {
		p.Labels = parseLabels(v)
	}
}
