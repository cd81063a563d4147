package policy

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestEveryRuleExportedOrExplained holds the policy table to the suite:
// every rule has CEL or a reason, never both, and neither table names a
// rule the suite does not have.
func TestEveryRuleExportedOrExplained(t *testing.T) {
	t.Parallel()
	suite := map[*rule.Rule]bool{}
	for _, r := range rules.Suite() {
		suite[r] = true
		_, has := exported[r]
		why, skipped := notExportable[r]
		switch {
		case has && skipped:
			t.Errorf("%s is both exported and listed as not exportable (%q)", r.ID, why)
		case !has && !skipped:
			t.Errorf("%s is neither exported nor listed in notExportable with a reason; add its CEL to the table or say why it cannot be exported", r.ID)
		case skipped && why == "":
			t.Errorf("%s: notExportable gives no reason", r.ID)
		}
	}
	for r := range exported {
		if !suite[r] {
			t.Errorf("the policy table exports %q, which is not in rules.Suite()", r.ID)
		}
	}
	for r := range notExportable {
		if !suite[r] {
			t.Errorf("notExportable lists %q, which is not in rules.Suite()", r.ID)
		}
	}
}

// TestLinuxShellsAgree holds the CEL list of shells to the model.
func TestLinuxShellsAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	for _, sh := range linuxShells {
		if !m.LinuxShell(sh) {
			t.Errorf("linuxShells has %q, which winsupport does not call a Linux shell", sh)
		}
	}
	listed := map[string]bool{}
	for _, sh := range linuxShells {
		listed[sh] = true
	}
	// Every command the model calls a shell among plausible spellings must
	// be listed.
	for _, dir := range []string{"", "/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/"} {
		for _, name := range []string{"sh", "bash", "ash", "zsh", "dash", "ksh", "env", "busybox", "cmd", "powershell", "pwsh"} {
			for _, ext := range []string{"", ".exe"} {
				c := dir + name + ext
				if m.LinuxShell(c) && !listed[c] {
					t.Errorf("winsupport calls %q a Linux shell but the policies' list lacks it", c)
				}
			}
		}
	}
}

// TestVersionDependentRules: rules about features a release always has
// export nothing for it, and something for a release without them.
func TestVersionDependentRules(t *testing.T) {
	t.Parallel()
	newest := winsupport.Default()
	old := winsupport.ForVersion(winsupport.Version{Minor: 23})
	for _, id := range []string{"windows-subpath", "windows-sidecar-unsupported"} {
		if Covers(id, newest) {
			t.Errorf("%s: exported for %s, where it cannot fire", id, newest.V)
		}
		if !Covers(id, old) {
			t.Errorf("%s: not exported for %s, where it fires", id, old.V)
		}
	}
}

// TestPauseReposAgree holds pauseRepos and its regular expression to
// winsupport.Model.PauseImage, on the listed repositories and on other
// pause mirrors the model might add.
func TestPauseReposAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	re := regexp.MustCompile(pauseImageRE())
	var refs []string
	for _, r := range append(append([]string(nil), pauseRepos...), "gcr.io/google_containers/pause", "k8s.gcr.io/pause-amd64", "docker.io/rancher/pause",
		"mcr.microsoft.com/k8s/core/pause", "registry.aliyuncs.com/google_containers/pause", "public.ecr.aws/eks-distro/kubernetes/pause", "pause", "docker.io/library/pause") {
		refs = append(refs, r, r+":3.10", r+"@sha256:0123", r+":3.10@sha256:0123", r+":", r+"/x:1", r+"-x:1", r+":a:b", r+":a/b")
	}
	for _, ref := range refs {
		if got, want := re.MatchString(ref), m.PauseImage(ref); got != want {
			t.Errorf("%q: the policies' pause pattern says %v, winsupport %v", ref, got, want)
		}
	}
}

// TestLinuxSystemRootsAgree holds linuxSystemRoots (and the CEL's reading
// of them) to winsupport.Model.LinuxSystemPath over the Linux file system
// hierarchy's directories.
func TestLinuxSystemRootsAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	var nodePaths []string
	for _, n := range m.WindowsNodePaths() {
		nodePaths = append(nodePaths, n.Path)
	}
	// mirror is the CEL of ruleVariables in Go.
	mirror := func(p string) (string, bool) {
		clean := strings.TrimRight(p, "/")
		root := ""
		for _, r := range linuxSystemRoots {
			if clean == r || strings.HasPrefix(clean, r+"/") {
				root = r
				break
			}
		}
		// The CEL finds the root with two regular expressions.
		q := make([]string, len(linuxSystemRoots))
		for i, r := range linuxSystemRoots {
			q[i] = regexp.QuoteMeta(r)
		}
		roots := `^(?:` + strings.Join(q, "|") + `)`
		if re := regexp.MustCompile(roots).FindString(regexp.MustCompile(roots + `(?:/|$)`).FindString(clean)); re != root {
			t.Errorf("%q: the CEL's expressions find root %q, the list %q", p, re, root)
		}
		for _, n := range nodePaths {
			if clean == n || strings.HasPrefix(clean, n+"/") || strings.HasPrefix(n, clean+"/") {
				return "", false
			}
		}
		return root, root != ""
	}
	dirs := []string{"/", "/bin", "/boot", "/dev", "/dev/shm", "/etc", "/etc/cni/net.d", "/etc/nginx", "/home", "/lib", "/lib64", "/lib/modules", "/media", "/mnt",
		"/opt", "/opt/cni/bin", "/opt/app", "/proc", "/root", "/run", "/run/containerd", "/run/containerd/containerd.sock", "/run/secrets", "/sbin", "/srv", "/sys", "/sys/fs/cgroup",
		"/tmp", "/usr", "/usr/share/nginx/html", "/var", "/var/lib", "/var/lib/docker", "/var/lib/kubelet", "/var/log", "/var/run", "/var/run/docker.sock", "/data", "/conf",
		"/etc/", "/usr//lib", "//etc", "/etcx", "/c/etc", "/k", "/csi", "/registration"}
	for _, d := range dirs {
		gotRoot, got := mirror(d)
		wantRoot, want := m.LinuxSystemPath(d)
		if got != want || gotRoot != wantRoot {
			t.Errorf("%q: the policies read (%q, %v), winsupport (%q, %v)", d, gotRoot, got, wantRoot, want)
		}
	}
}

// TestRetagTablesAgree holds the moved repositories and the Nano Server
// tag exception the CEL compiles in to winsupport.Model.Retag.
func TestRetagTablesAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	var ws2022, ws2019 winsupport.Build
	for _, b := range m.Builds() {
		switch b.Build {
		case "10.0.20348":
			ws2022 = b
		case nanoserverTagException.Build:
			ws2019 = b
		}
	}
	for _, mv := range movedRepos {
		ref := strings.TrimPrefix(mv.From, "docker.io/") + ":1803"
		if got, ok := m.Retag(ref, ws2022); !ok || got != mv.To+":ltsc2022" {
			t.Errorf("Retag(%q) = %q, %v; the policies write %q", ref, got, ok, mv.To+":ltsc2022")
		}
	}
	ref := nanoserverTagException.Prefix + ":1803"
	if got, ok := m.Retag(ref, ws2019); !ok || got != nanoserverTagException.Prefix+":"+nanoserverTagException.Tag {
		t.Errorf("Retag(%q, Windows Server 2019) = %q, %v; the policies write tag %s", ref, got, ok, nanoserverTagException.Tag)
	}
}

// TestForbiddenDetailsAgree holds forbiddenDetail to the API server's
// details in winsupport's table, for a pod that sets every forbidden
// field.
func TestForbiddenDetailsAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	yes, id := true, int64(1)
	sc := &corev1.SecurityContext{Privileged: &yes, RunAsUser: &id, RunAsGroup: &id, ReadOnlyRootFilesystem: &yes, AllowPrivilegeEscalation: &yes,
		Capabilities: &corev1.Capabilities{}, SELinuxOptions: &corev1.SELinuxOptions{}, SeccompProfile: &corev1.SeccompProfile{}, AppArmorProfile: &corev1.AppArmorProfile{}}
	procMount := corev1.DefaultProcMount
	sc.ProcMount = &procMount
	changePolicy := corev1.FSGroupChangeAlways
	groupsPolicy := corev1.SupplementalGroupsPolicyMerge
	seChange := corev1.PodSELinuxChangePolicy("Recursive")
	spec := &corev1.PodSpec{HostPID: true, HostIPC: true, HostUsers: &yes, ShareProcessNamespace: &yes, Resources: &corev1.ResourceRequirements{},
		SecurityContext: &corev1.PodSecurityContext{RunAsUser: &id, RunAsGroup: &id, FSGroup: &id, FSGroupChangePolicy: &changePolicy, SupplementalGroups: []int64{1},
			SupplementalGroupsPolicy: &groupsPolicy, SELinuxChangePolicy: &seChange, Sysctls: []corev1.Sysctl{{Name: "a", Value: "b"}},
			SELinuxOptions: &corev1.SELinuxOptions{}, SeccompProfile: &corev1.SeccompProfile{}, AppArmorProfile: &corev1.AppArmorProfile{}},
		Containers: []corev1.Container{{Name: "c", SecurityContext: sc}}}
	pod, ctr := m.ForbiddenFieldNames()
	fs := m.ForbiddenFields(spec, field.NewPath("spec"))
	if len(fs) != len(pod)+len(ctr) {
		t.Fatalf("the test pod sets %d forbidden fields, the model knows %d: set them all", len(fs), len(pod)+len(ctr))
	}
	for _, f := range fs {
		path := strings.TrimPrefix(strings.TrimPrefix(f.Err.Field, "spec.containers[0]."), "spec.")
		if got := forbiddenDetail(path); got != f.Err.Detail {
			t.Errorf("%s: the policies say %q, winsupport %q", f.Err.Field, got, f.Err.Detail)
		}
	}
}
