package audit

import (
	"encoding/json"
	"strings"
	"testing"
)

type doctorJSON struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Diagnoses  []struct {
		Pod struct {
			Namespace, Name, UID string
		} `json:"pod"`
		Node     string `json:"node"`
		Owner    string `json:"owner"`
		Cause    string `json:"cause"`
		Summary  string `json:"summary"`
		Evidence []struct {
			Source, Reason, Message string
		} `json:"evidence"`
		Steps    []string `json:"steps"`
		Commands []struct {
			Shell, Where, Command string
		} `json:"commands"`
	} `json:"diagnoses"`
}

// TestDoctorCauses: every pod of the scenario gets its cause first, from
// events joined by UID, through the runtime's wrappers.
func TestDoctorCauses(t *testing.T) {
	code, out, stderr := winkube(t, "doctor", "--kubeconfig", cp.KubeconfigPath, "-n", ns, "-o", "json")
	if code != 1 {
		t.Errorf("exit %d, want 1 (unhealthy pods); stderr: %s", code, stderr)
	}
	var rep doctorJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor output is not JSON: %v\n%s", err, out)
	}
	if rep.APIVersion != "winkube.io/v1alpha1" || rep.Kind != "DoctorReport" {
		t.Errorf("apiVersion/kind %s/%s", rep.APIVersion, rep.Kind)
	}
	first := map[string]string{}
	all := map[string][]string{}
	for _, d := range rep.Diagnoses {
		if _, ok := first[d.Pod.Name]; !ok {
			first[d.Pod.Name] = d.Cause
		}
		all[d.Pod.Name] = append(all[d.Pod.Name], d.Cause)
		if d.Pod.UID == "" || d.Summary == "" || len(d.Evidence) == 0 || len(d.Steps) == 0 || len(d.Commands) == 0 {
			t.Errorf("%s [%s]: uid, summary, evidence, steps and commands must all be set: %+v", d.Pod.Name, d.Cause, d)
		}
	}
	want := map[string]string{"web-5d8f7c-x2k8q": "untolerated-taint"}
	for name, c := range cases() {
		want[name] = c.cause
	}
	for name, cause := range want {
		if cause == "" {
			if got, ok := first[name]; ok {
				t.Errorf("healthy pod %s diagnosed %s", name, got)
			}
			continue
		}
		if first[name] != cause {
			t.Errorf("pod %s: causes %v, want %s first", name, all[name], cause)
		}
	}
	// The scheduler's message names two reasons for cpu: both are
	// causes, the one that ruled out more nodes first.
	if got := strings.Join(all["cpu"], ","); got != "insufficient-resources,no-node-matches-selector,untolerated-taint" {
		t.Errorf("cpu causes %s", got)
	}
	for _, d := range rep.Diagnoses {
		for _, e := range d.Evidence {
			if e.Reason == "Started" {
				t.Errorf("%s quotes a Started event, which doctor's field selector leaves out", d.Pod.Name)
			}
		}
		if d.Pod.Name == "taint" {
			for _, e := range d.Evidence {
				if strings.Contains(e.Message, "plugin type=") {
					t.Errorf("pod taint quotes an event of an earlier pod of the same name: %s", e.Message)
				}
			}
		}
		if d.Pod.Name == "web-5d8f7c-x2k8q" && d.Owner != "Deployment/shop/web" {
			t.Errorf("web pod's owner %q, want Deployment/shop/web", d.Owner)
		}
		if d.Cause == "pause-image-build-mismatch" && !hasPowerShell(d.Commands) {
			t.Errorf("%s: no PowerShell command on the node", d.Pod.Name)
		}
	}
	checkGolden(t, "doctor.json", out)

	_, text, _ := winkube(t, "doctor", "--kubeconfig", cp.KubeconfigPath, "-n", ns, "pause")
	checkGolden(t, "doctor-pause.txt", text)
}

func hasPowerShell(cmds []struct{ Shell, Where, Command string }) bool {
	for _, c := range cmds {
		if c.Shell == "powershell" && c.Where == "on the node" {
			return true
		}
	}
	return false
}

// TestDoctorEventReads: doctor reads only the events of the pods it looks
// into, one pod at a time (a field selector on the pod's UID) for a named
// pod, by namespace for -n and -A. Each way gives every pod the same
// diagnoses, so none is lost by reading fewer events.
func TestDoctorEventReads(t *testing.T) {
	byPod := func(out string) map[string]string {
		var rep struct {
			Diagnoses []json.RawMessage `json:"diagnoses"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("doctor output is not JSON: %v\n%s", err, out)
		}
		m := map[string]string{}
		for _, d := range rep.Diagnoses {
			var p struct {
				Pod struct{ Namespace, Name string } `json:"pod"`
			}
			if err := json.Unmarshal(d, &p); err != nil {
				t.Fatal(err)
			}
			if p.Pod.Namespace == ns {
				m[p.Pod.Name] += string(d) + "\n"
			}
		}
		return m
	}
	_, out, _ := winkube(t, "doctor", "--kubeconfig", cp.KubeconfigPath, "-n", ns, "-o", "json")
	namespace := byPod(out)
	_, out, _ = winkube(t, "doctor", "--kubeconfig", cp.KubeconfigPath, "-A", "-o", "json")
	all := byPod(out)
	if len(namespace) < len(cases())/2 {
		t.Fatalf("doctor -n %s diagnosed %d pods", ns, len(namespace))
	}
	for name, want := range namespace {
		if all[name] != want {
			t.Errorf("pod %s: doctor -A diagnoses\n%s\nwant (doctor -n)\n%s", name, all[name], want)
		}
		_, out, _ := winkube(t, "doctor", "--kubeconfig", cp.KubeconfigPath, "-n", ns, name, "-o", "json")
		if got := byPod(out)[name]; got != want {
			t.Errorf("pod %s: doctor -n %s %s diagnoses\n%s\nwant (doctor -n)\n%s", name, ns, name, got, want)
		}
	}
}
