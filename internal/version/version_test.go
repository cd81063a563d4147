package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/winsupport"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/winkube/winkube", Version: "v0.0.0-20261127040000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-27T04:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	k8s := winsupport.Range{From: winsupport.Oldest, Until: winsupport.Newest}.String()
	def := winsupport.Newest.String()
	for _, tc := range []struct {
		name    string
		bi      *debug.BuildInfo
		release string
		want    Info
		line    string
	}{
		{
			name: "go install at a version",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/winkube/winkube", Version: "v1.2.3"}},
			want: Info{Version: "v1.2.3", GoVersion: "go1.26.8", Module: "github.com/winkube/winkube", Kubernetes: k8s, KubernetesDefault: def},
			line: "v1.2.3, Kubernetes " + k8s + ", go1.26.8",
		},
		{
			name: "build from a clone",
			bi:   stamped,
			want: Info{Version: "v0.0.0-20261127040000-0123456789ab+dirty", Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-11-27T04:00:00Z", Modified: true,
				GoVersion: "go1.26.8", Module: "github.com/winkube/winkube", Kubernetes: k8s, KubernetesDefault: def},
			line: "v0.0.0-20261127040000-0123456789ab+dirty (0123456789ab, modified), Kubernetes " + k8s + ", go1.26.8",
		},
		{
			name:    "release build",
			bi:      stamped,
			release: "v2.0.0",
			want: Info{Version: "v2.0.0", Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-11-27T04:00:00Z", Modified: true,
				GoVersion: "go1.26.8", Module: "github.com/winkube/winkube", Kubernetes: k8s, KubernetesDefault: def},
			line: "v2.0.0 (0123456789ab, modified), Kubernetes " + k8s + ", go1.26.8",
		},
		{
			name: "no build info",
			want: Info{Version: "(devel)", Module: "github.com/winkube/winkube", Kubernetes: k8s, KubernetesDefault: def},
			line: "(devel), Kubernetes " + k8s,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fromBuildInfo(tc.bi, tc.release)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Info (-want +got):\n%s", d)
			}
			if got.String() != tc.line {
				t.Errorf("String() = %q, want %q", got.String(), tc.line)
			}
		})
	}
}
