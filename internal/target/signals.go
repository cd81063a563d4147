package target

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/winsupport"
)

// collectSignals records the signals the scheduler does not read.
func collectSignals(f *Facts, in Input) {
	s := in.Spec
	if s.OS != nil && s.OS.Name != "" {
		f.Signals = append(f.Signals, Signal{Source: FromSpecOS, OS: OS(s.OS.Name), Path: in.SpecPath.Child("os", "name")})
	}
	if f.HostProcess {
		f.Signals = append(f.Signals, Signal{Source: FromHostProcess, OS: Windows, Path: in.SpecPath.Child("securityContext", "windowsOptions", "hostProcess")})
	}
	winsupport.VisitContainers(s, in.SpecPath, func(c *corev1.Container, p *field.Path) {
		img := in.Model.ParseImage(c.Image)
		switch img.Platform {
		case winsupport.PlatformWindows:
			f.Signals = append(f.Signals, Signal{Source: FromImage, OS: Windows, Path: p.Child("image"), Detail: c.Image})
		case winsupport.PlatformLinux:
			f.Signals = append(f.Signals, Signal{Source: FromImage, OS: Linux, Path: p.Child("image"), Detail: c.Image})
		}
	})
}

// decide picks the workload's OS from the strongest signal. Images vote
// only when they agree: a Windows image beside a Linux one says nothing.
func decide(f *Facts) {
	if f.Pinned {
		f.OS, f.By = f.Schedulable[0], f.Signals[0].Source
		return
	}
	for _, src := range []Source{FromSpecOS, FromHostProcess} {
		for _, s := range f.Signals {
			if s.Source == src && (s.OS == Windows || s.OS == Linux) {
				f.OS, f.By = s.OS, src
				return
			}
		}
	}
	var img OS
	for _, s := range f.Signals {
		if s.Source != FromImage {
			continue
		}
		if img != Unknown && img != s.OS {
			return
		}
		img = s.OS
	}
	if img != Unknown {
		f.OS, f.By = img, FromImage
	}
}
