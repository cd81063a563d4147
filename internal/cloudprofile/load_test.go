package cloudprofile

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// poolView is what a test compares of a pool.
type poolView struct {
	Name, OS, Build string
	Count           int
	CPU, Memory     string
	Taints          string
	Labels          map[string]string
}

func TestLoad(t *testing.T) {
	t.Parallel()
	none := map[string]string(nil)
	tests := []struct {
		file   string
		format string
		pools  []poolView
		checks []string // check IDs reported, in order
		notes  []string // substrings of the information notes, in order
	}{
		{"aks.sh", "script", []poolView{
			{"nodepool1", "linux", "", 2, "4", "16Gi", "", none},
			{"winnp", "windows", "10.0.20348", 2, "4", "16Gi", "", map[string]string{"kubernetes.io/os": "windows"}},
		}, []string{CheckWindowsUntainted}, nil},
		{"aks-tainted.sh", "script", []poolView{
			{"winnp", "windows", "10.0.20348", 2, "4", "16Gi", "os=windows:NoSchedule", none},
		}, nil, nil},
		{"gke.sh", "script", []poolView{
			{"default-pool", "linux", "", 2, "2", "4Gi", "", none},
			{"windows-pool", "windows", "10.0.20348", 2, "4", "15Gi", "node.kubernetes.io/os=windows:NoSchedule", none},
		}, nil, []string{"--windows-os-version not given"}},
		{"eks.yaml", "eksctl ClusterConfig", []poolView{
			{"linux-ng", "linux", "", 2, "2", "8Gi", "os=linux:NoSchedule", map[string]string{"kubernetes.io/os": "linux"}},
			{"windows-ng", "windows", "10.0.20348", 2, "2", "8Gi", "os=windows:NoSchedule", map[string]string{"kubernetes.io/os": "windows"}},
		}, []string{CheckLinuxAllTainted}, nil},
		{"eks-aws.sh", "script", []poolView{
			{"windows-workers", "windows", "10.0.20348", 2, "8", "32Gi", "", none},
		}, []string{CheckWindowsUntainted}, nil},
		{"main.tf", "Terraform", []poolView{
			{"system", "linux", "", 3, "2", "8Gi", "", none},
			{"win19", "windows", "10.0.17763", 1, "4", "16Gi", "os=windows:NoSchedule", map[string]string{"team": "iis"}},
		}, []string{CheckWindowsNetworkPlugin}, []string{"node_count = var.win_count left unresolved"}},
		{"karpenter.yaml", "Karpenter", []poolView{
			{"windows", "windows", "10.0.20348", 1, "4", "16Gi", "os=windows:NoSchedule", map[string]string{"team": "iis"}},
		}, nil, []string{"one node is assumed"}},
		{"arm.json", "ARM template", []poolView{
			{"system", "linux", "", 2, "2", "8Gi", "", none},
			{"win", "windows", "10.0.20348", 3, "4", "16Gi", "", none},
		}, []string{CheckWindowsUntainted}, []string{"count = [parameters('winCount')] left unresolved"}},
		{"aks.bicep", "Bicep", []poolView{
			{"system", "linux", "", 3, "2", "8Gi", "", none},
			{"win", "windows", "10.0.26100", 3, "4", "16Gi", "os=windows:NoSchedule", none},
		}, nil, []string{"count = ${winCount} left unresolved"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			pr, err := Load(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if pr.Format != tt.format {
				t.Errorf("format %q, want %q", pr.Format, tt.format)
			}
			var got []poolView
			for _, p := range pr.Cluster.Pools {
				var ts []string
				for _, t := range p.Taints {
					ts = append(ts, t.ToString())
				}
				got = append(got, poolView{p.Name, p.OS, p.WindowsBuild, p.Count, p.CPU.String(), p.Memory.String(), strings.Join(ts, ","), p.Labels})
			}
			if diff := cmp.Diff(tt.pools, got); diff != "" {
				t.Errorf("pools (-want +got):\n%s", diff)
			}
			var checks []string
			var notes []string
			for _, n := range pr.Notes {
				if n.Line <= 0 {
					t.Errorf("note without a line: %v", n)
				}
				if n.Check != "" {
					checks = append(checks, n.Check)
				} else {
					notes = append(notes, n.Msg)
				}
			}
			if diff := cmp.Diff(tt.checks, checks); diff != "" {
				t.Errorf("checks (-want +got):\n%s\nnotes: %v", diff, pr.Notes)
			}
			for i, want := range tt.notes {
				if i >= len(notes) || !strings.Contains(notes[i], want) {
					t.Errorf("note %d: want one containing %q; notes: %q", i, want, notes)
				}
			}
		})
	}
}

func TestRetiredOSSKU(t *testing.T) {
	t.Parallel()
	pr, err := Load("testdata/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	if got := pr.Retired(32); len(got) != 0 {
		t.Errorf("1.32: %v, want none", got)
	}
	got := pr.Retired(36)
	if len(got) != 1 || got[0].Check != CheckRetiredOSSKU || got[0].Line != 22 {
		t.Errorf("1.36: %v, want one %s at line 22", got, CheckRetiredOSSKU)
	}
}

func TestLoadRejects(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"testdata/README.md", "testdata/none.tf"} {
		if _, err := Load(f); err == nil {
			t.Errorf("%s: loaded, want an error", f)
		}
	}
}
