package cloudprofile

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzFormat feeds any text to one reader: it may fail, never panic or
// hang.
func fuzzFormat(f *testing.F, kind string, seeds ...string) {
	for _, s := range seeds {
		data, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("az aks nodepool add --name 'x \\\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{file: "fuzz", src: data}
		_ = r.read(kind, data)
		r.check()
	})
}

func FuzzScript(f *testing.F) { fuzzFormat(f, "script", "aks.sh", "gke.sh", "eks-aws.sh") }

func FuzzTerraform(f *testing.F) { fuzzFormat(f, "Terraform", "main.tf") }

func FuzzBicep(f *testing.F) { fuzzFormat(f, "Bicep", "aks.bicep") }

// FuzzYAMLFormats: eksctl ClusterConfig, Karpenter and ARM JSON.
func FuzzYAMLFormats(f *testing.F) {
	for _, s := range []string{"eks.yaml", "karpenter.yaml", "arm.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range []string{"eksctl ClusterConfig", "Karpenter", "ARM template"} {
			r := &reader{file: "fuzz", src: data}
			_ = r.read(kind, data)
			r.check()
		}
	})
}
