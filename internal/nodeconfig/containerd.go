package nodeconfig

// containerd's CRI plugin tables by config schema version: version 2
// (containerd 1.x) keeps everything under io.containerd.grpc.v1.cri;
// version 3 (containerd 2.x) splits images and runtime.
const (
	criV2      = "io.containerd.grpc.v1.cri"
	criImages  = "io.containerd.cri.v1.images"
	criRuntime = "io.containerd.cri.v1.runtime"
)

// containerdLayout locates the settings of a config.toml in its schema.
type containerdLayout struct {
	version int
	// paths of tables, as field paths
	cni, runtimes, containerd string
	// values
	sandbox, sandboxPath  string
	snapshotter, snapPath string
}

func layoutOf(f *File) containerdLayout {
	l := containerdLayout{version: 1}
	if v, ok := num(f.Tree["version"]); ok {
		l.version = int(v)
	}
	plugins := child("", "plugins")
	switch l.version {
	case 3:
		rt := child(plugins, criRuntime)
		im := child(plugins, criImages)
		l.cni = child(rt, "cni")
		l.containerd = child(rt, "containerd")
		l.sandbox = str(get(f.Tree, "plugins", criImages, "pinned_images", "sandbox"))
		l.sandboxPath = child(child(im, "pinned_images"), "sandbox")
		l.snapshotter = str(get(f.Tree, "plugins", criImages, "snapshotter"))
		l.snapPath = child(im, "snapshotter")
	default:
		cri := child(plugins, criV2)
		l.cni = child(cri, "cni")
		l.containerd = child(cri, "containerd")
		l.sandbox = str(get(f.Tree, "plugins", criV2, "sandbox_image"))
		l.sandboxPath = child(cri, "sandbox_image")
		l.snapshotter = str(get(f.Tree, "plugins", criV2, "containerd", "snapshotter"))
		l.snapPath = child(l.containerd, "snapshotter")
	}
	l.runtimes = child(l.containerd, "runtimes")
	return l
}

// cniTable returns the CRI plugin's cni table of the file's schema.
func (l containerdLayout) cniTable(f *File) map[string]any {
	switch l.version {
	case 3:
		m, _ := get(f.Tree, "plugins", criRuntime, "cni").(map[string]any)
		return m
	default:
		m, _ := get(f.Tree, "plugins", criV2, "cni").(map[string]any)
		return m
	}
}

// containerdTable returns the CRI plugin's containerd table (runtimes,
// default runtime) of the file's schema.
func (l containerdLayout) containerdTable(f *File) map[string]any {
	var m map[string]any
	if l.version == 3 {
		m, _ = get(f.Tree, "plugins", criRuntime, "containerd").(map[string]any)
	} else {
		m, _ = get(f.Tree, "plugins", criV2, "containerd").(map[string]any)
	}
	return m
}
