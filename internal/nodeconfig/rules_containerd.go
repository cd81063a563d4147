package nodeconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

const (
	srcContainerdWindows = "containerd/containerd v2.1.4 internal/cri/config/config_windows.go (commit 04d0beb: runhcs-wcow-process, runhcs-wcow-hypervisor with SandboxIsolation 1, CNI dirs)"
	srcContainerdConfig  = "containerd/containerd v2.1.4 docs/cri/config.md and RELEASES.md (config version 2 for containerd 1.x, version 3 for 2.x; cni bin_dir became bin_dirs)"
)

var containerdSchema = &rule.Rule{
	ID: "containerd-config-schema", Title: "containerd settings written for the other config schema version", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A containerd config.toml whose CRI tables or CNI keys belong to another schema version: `version = 2` (containerd 1.x) with `io.containerd.cri.v1.*` tables or `bin_dirs`, `version = 3` (containerd 2.x) with the `io.containerd.grpc.v1.cri` table or the deprecated `bin_dir`, a file with no `version` (read as version 1), or a version that does not match `--containerd-version`.",
		Why:     "containerd ignores tables of plugins it does not have: the sandbox image, CNI directories or runtime handlers written for the other schema silently fall back to the defaults, so pods stay in ContainerCreating with CNI or sandbox errors that do not point at the config file.",
		Fix:     "Write the file for the containerd you run: `version = 2` and `[plugins.\"io.containerd.grpc.v1.cri\"]` for 1.x, `version = 3` with `[plugins.\"io.containerd.cri.v1.images\"]` and `[plugins.\"io.containerd.cri.v1.runtime\"]` for 2.x (`containerd config migrate` converts).",
		Sources: []string{srcContainerdConfig, srcContainerdWindows},
	},
	Run: Run(runContainerdSchema),
}

func runContainerdSchema(p *Pass) {
	for _, f := range p.Of(Containerd) {
		l := layoutOf(f)
		if p.Opts.ContainerdMajor != 0 {
			want := map[int]int{1: 2, 2: 3}[p.Opts.ContainerdMajor]
			if want != 0 && l.version != want {
				p.Reportf(f, "version", "config version %d is not the schema of containerd %d.x, which reads version %d", l.version, p.Opts.ContainerdMajor, want)
			}
		}
		plugins, _ := f.Tree["plugins"].(map[string]any)
		switch l.version {
		case 1:
			p.Report(f, "version", "add version = 2 (containerd 1.x) or version = 3 (containerd 2.x)", "config.toml has no version, so containerd reads it as version 1, whose CRI plugin is named cri, not io.containerd.grpc.v1.cri")
		case 2:
			for _, name := range []string{criImages, criRuntime} {
				if plugins[name] != nil {
					p.Reportf(f, child("plugins", name), "[plugins.%q] is a version 3 (containerd 2.x) table; containerd 1.x ignores it", name)
				}
			}
			if _, k := lookupFold(l.cniTable(f), "bin_dirs"); k != "" {
				p.Reportf(f, child(l.cni, k), "cni.bin_dirs is a containerd 2.x key; in version 2 the key is bin_dir")
			}
		case 3:
			if plugins[criV2] != nil {
				p.Reportf(f, child("plugins", criV2), "[plugins.%q] is a version 2 (containerd 1.x) table; in version 3 its settings live under io.containerd.cri.v1.images and io.containerd.cri.v1.runtime", criV2)
			}
			if _, k := lookupFold(l.cniTable(f), "bin_dir"); k != "" {
				p.Reportf(f, child(l.cni, k), "cni.bin_dir is the containerd 1.x key, deprecated in version 3: use bin_dirs = [...]")
			}
		}
	}
}

var containerdSandboxImage = &rule.Rule{
	ID: "containerd-sandbox-image", Title: "the sandbox (pause) image does not run on the node", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A containerd config.toml whose sandbox image is Linux-only, or names a Windows build other than the node's (`--windows-build`).",
		Why:     "Every pod starts with the sandbox image. A Linux image fails with `no matching manifest for windows/amd64`; a process-isolated container of another Windows build fails with `The container operating system does not match the host operating system`. Either way every pod on the node stays in ContainerCreating.",
		Fix:     "Use a multi-platform pause image (`registry.k8s.io/pause:3.10`, `mcr.microsoft.com/oss/kubernetes/pause:3.9`) or one whose tag matches the node's build.",
		Sources: []string{srcContainerdWindows, "winkube winsupport image table (https://kubernetes.io/docs/concepts/windows/intro/#pause-container: pause images)"},
	},
	Run: Run(runSandboxImage),
}

func runSandboxImage(p *Pass) {
	for _, f := range p.Of(Containerd) {
		l := layoutOf(f)
		if l.sandbox == "" {
			continue
		}
		img := p.Opts.Model.ParseImage(l.sandbox)
		switch {
		case img.Platform == winsupport.PlatformLinux:
			p.Report(f, l.sandboxPath, "use registry.k8s.io/pause:3.10, which includes Windows",
				fmt.Sprintf("sandbox image %q is Linux-only (%s): pods fail with no matching manifest for windows/amd64", l.sandbox, img.Source))
		case img.Build != nil && p.Opts.BuildNumber != 0 && img.Build.Build != fmt.Sprintf("10.0.%d", p.Opts.BuildNumber):
			p.Report(f, l.sandboxPath, "use a multi-platform pause image or one built for the node's Windows build",
				fmt.Sprintf("sandbox image %q is built for %s (%s) but the node runs 10.0.%d: %s", l.sandbox, img.Build.Name, img.Build.Build, p.Opts.BuildNumber, strings.TrimSuffix(winsupport.HostOSMismatchMessage, ".")))
		}
	}
}

var containerdRuntimes = &rule.Rule{
	ID: "containerd-runtime-handlers", Title: "Windows runtime handlers misconfigured", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A containerd config.toml whose runtimes are not `io.containerd.runhcs.v1`, whose `default_runtime_name` names no configured runtime, or whose `runhcs-wcow-hypervisor` handler lacks `SandboxIsolation = 1` in its options.",
		Why:     "Windows containers run through the runhcs shim. A runc runtime cannot start them; a default runtime that is not defined fails every pod; and a hypervisor handler without `SandboxIsolation = 1` silently runs process-isolated, so RuntimeClass `runhcs-wcow-hypervisor` pods get no Hyper-V isolation (and fail on a build mismatch).",
		Fix:     "Define `runhcs-wcow-process` and, for Hyper-V, `runhcs-wcow-hypervisor` with `runtime_type = \"io.containerd.runhcs.v1\"` and `[...runhcs-wcow-hypervisor.options] SandboxIsolation = 1`, as containerd's own Windows defaults do.",
		Sources: []string{srcContainerdWindows, "microsoft/hcsshim v0.13.0 cmd/containerd-shim-runhcs-v1/options (SandboxIsolation: PROCESS 0, HYPERVISOR 1)"},
	},
	Run: Run(runContainerdRuntimes),
}

func runContainerdRuntimes(p *Pass) {
	for _, f := range p.Of(Containerd) {
		l := layoutOf(f)
		ctd := l.containerdTable(f)
		runtimes, _ := ctd["runtimes"].(map[string]any)
		names := make([]string, 0, len(runtimes))
		for n := range runtimes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			rt, _ := runtimes[name].(map[string]any)
			path := child(l.runtimes, name)
			if t := str(rt["runtime_type"]); t != "" && t != "io.containerd.runhcs.v1" {
				p.Reportf(f, child(path, "runtime_type"), "runtime %s has runtime_type %q; Windows containers need io.containerd.runhcs.v1", name, t)
			}
			iso, _ := num(get(rt, "options", "SandboxIsolation"))
			if hasPrefixFold(name, "runhcs-wcow-hypervisor") && iso != 1 {
				p.Report(f, path, "set SandboxIsolation = 1 in the handler's options table",
					fmt.Sprintf("runtime %s has no options.SandboxIsolation = 1, so its pods run process-isolated, not in a Hyper-V sandbox", name))
			}
		}
		if def := str(ctd["default_runtime_name"]); def != "" && runtimes[def] == nil && len(runtimes) > 0 {
			p.Reportf(f, child(l.containerd, "default_runtime_name"), "default_runtime_name %q names no runtime in %s (have %v)", def, "runtimes", names)
		}
	}
}

var containerdSnapshotter = &rule.Rule{
	ID: "containerd-snapshotter", Title: "the snapshotter is not windows", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A containerd config.toml that sets a snapshotter other than `windows` for the CRI plugin.",
		Why:     "Windows container layers need the `windows` snapshotter (`windows-lcow` is for Linux containers on Windows). With `overlayfs` or `native` image pulls fail and no Windows pod starts.",
		Fix:     "Remove the setting (the Windows default is `windows`) or set `snapshotter = \"windows\"`.",
		Sources: []string{"containerd/containerd v2.1.4 defaults/defaults_windows.go (DefaultSnapshotter = \"windows\")", srcContainerdWindows},
	},
	Run: Run(runSnapshotter),
}

func runSnapshotter(p *Pass) {
	for _, f := range p.Of(Containerd) {
		l := layoutOf(f)
		if l.snapshotter != "" && l.snapshotter != "windows" {
			p.Report(f, l.snapPath, `set snapshotter = "windows" or remove it`,
				fmt.Sprintf("snapshotter %q cannot unpack Windows image layers; the Windows snapshotter is windows", l.snapshotter))
		}
	}
}
