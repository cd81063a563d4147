package rules

import (
	"bytes"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// MissingStartupProbeMsg is windows-missing-startup-probe's message, which
// the exported CEL builds from too.
const MissingStartupProbeMsg = "container %q runs a large Windows image (%s) and has a liveness probe but no startup probe; Windows containers start 10-30 s slower and the liveness probe can restart it in a loop"

// WindowsMissingStartupProbe: a liveness probe that can kill a slow
// Windows container before it has started.
var WindowsMissingStartupProbe = &rule.Rule{
	ID:       "windows-missing-startup-probe",
	Title:    "Windows container on a large image has a liveness probe but no startup probe",
	Severity: rule.Warning,
	Category: rule.Resources,
	Doc: rule.Doc{
		What: "Reports containers (and sidecar init containers) of a Windows workload whose image is built on a large Windows base (Server Core, Windows Server, the full Windows image, .NET Framework, IIS) and that have a liveness probe but no startup probe.",
		Why:  "Windows containers take 10-30 seconds longer to start than Linux ones, and the large bases are gigabytes (Server Core ~4.7 GB, the full image ~9 GB, against ~280 MB for Nano Server). A liveness probe tuned for a warm container starts counting at once, fails while the application is still starting, and the kubelet restarts the container in a loop.",
		Fix:  "Add a startup probe with the liveness probe's check and a generous failureThreshold (winkube fix adds one with periodSeconds: 10 and failureThreshold: 30, five minutes); the liveness probe starts only once it succeeds. Use a Nano Server base where the application allows.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-linux-similarities (container restart latency: use startup probes with generous failureThreshold values; image sizes)",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-linux-similarities (readiness, liveness and startup probes are supported on Windows)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !p.Target.Is(target.Windows) {
			return
		}
		s, base := p.Workload.Spec, p.Workload.SpecPath
		for i := range s.InitContainers {
			c := &s.InitContainers[i]
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				checkStartupProbe(p, c, base.Child("initContainers").Index(i))
			}
		}
		for i := range s.Containers {
			checkStartupProbe(p, &s.Containers[i], base.Child("containers").Index(i))
		}
	},
}

func checkStartupProbe(p *rule.Pass, c *corev1.Container, path *field.Path) {
	if c.LivenessProbe == nil || c.StartupProbe != nil {
		return
	}
	img, large := p.Model.LargeImage(c.Image)
	if !large {
		return
	}
	size := img.Name
	if s := img.Size(); s != "" {
		size += ", " + s
	}
	f := rule.Finding{
		Path:    rule.Path(path.Child("livenessProbe")),
		Message: fmt.Sprintf(MissingStartupProbeMsg, c.Name, size),
		Hint:    "add a startupProbe with the same check and a generous failureThreshold",
	}
	if v, err := startupProbeFor(c.LivenessProbe); err == nil {
		f.Fix = &rule.Fix{Title: "add a startup probe to container " + c.Name, Safe: true,
			Edits: []rule.Edit{{Op: rule.Set, Path: rule.Path(path.Child("startupProbe")), Value: v}}}
	}
	p.Report(f)
}

// startupProbeFor is a startup probe with the liveness probe's check that
// allows five minutes to start: the upstream example for slow containers
// (failureThreshold 30 × periodSeconds 10).
func startupProbeFor(live *corev1.Probe) (map[string]any, error) {
	probe := corev1.Probe{ProbeHandler: live.ProbeHandler, TimeoutSeconds: live.TimeoutSeconds, PeriodSeconds: 10, FailureThreshold: 30}
	v, err := probeJSON(probe)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("probe encodes as %T", v)
	}
	return m, nil
}

// probeJSON converts v into the JSON-compatible values a Fix carries,
// integers as int64 so they are written back as integers.
func probeJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return probeInts(out), nil
}

func probeInts(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = probeInts(x)
		}
	case []any:
		for i, x := range t {
			t[i] = probeInts(x)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
