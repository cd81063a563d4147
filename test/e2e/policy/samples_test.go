package policy

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/test/corpusgen"
)

// sample is one workload object to create, with the cluster profile and
// Kubernetes release it is judged against.
type sample struct {
	name    string // file, document and object, for messages
	cluster string // a testClusters key
	version string // "" for the newest
	obj     *manifest.Object
}

const root = "../../.."

var (
	clusterRE = regexp.MustCompile(`^#\s*cluster:\s*(\S+)`)
	versionRE = regexp.MustCompile(`^#\s*kubernetes-version:\s*(\S+)`)
)

// served are the workload kinds the API server serves and the policies
// match, by apiVersion/kind.
var served = map[string]string{
	"v1/Pod": "pods", "v1/ReplicationController": "replicationcontrollers", "v1/PodTemplate": "podtemplates",
	"apps/v1/Deployment": "deployments", "apps/v1/StatefulSet": "statefulsets", "apps/v1/DaemonSet": "daemonsets", "apps/v1/ReplicaSet": "replicasets",
	"batch/v1/Job": "jobs", "batch/v1/CronJob": "cronjobs",
}

// workloads reads the served workload objects of one input.
func workloads(t *testing.T, name string, data []byte, clusterName, version string) []sample {
	t.Helper()
	objs, _ := manifest.ReadAll([]manifest.Input{manifest.BytesInput(name, data)})
	var out []sample
	for _, o := range objs {
		if o.Typed == nil || o.Workload() == nil || served[o.APIVersion+"/"+o.Kind] == "" {
			continue
		}
		out = append(out, sample{name: fmt.Sprintf("%s#%d %s/%s", name, o.Doc, o.Kind, o.Name), cluster: clusterName, version: version, obj: o})
	}
	return out
}

// fixture is one rule fixture file: its path and its path below root.
type fixture struct {
	path, name string
	data       []byte
}

// ruleFixtures reads every rule fixture under internal/rules/testdata.
func ruleFixtures(t *testing.T) []fixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "internal/rules/testdata/*/*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule fixtures under %s/internal/rules/testdata: %v", root, err)
	}
	out := make([]fixture, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fixture{path: f, name: strings.TrimPrefix(f, root+"/"), data: data})
	}
	return out
}

// fixtureSamples are the workloads of every rule fixture, with the cluster
// and release their header chooses.
func fixtureSamples(t *testing.T) []sample {
	t.Helper()
	var out []sample
	for _, f := range ruleFixtures(t) {
		c, v := "reference", ""
		sc := bufio.NewScanner(bytes.NewReader(f.data))
		for sc.Scan() {
			if m := clusterRE.FindStringSubmatch(sc.Text()); m != nil {
				c = m[1]
			}
			if m := versionRE.FindStringSubmatch(sc.Text()); m != nil {
				v = m[1]
			}
		}
		if testClusters[c] == nil {
			t.Fatalf("%s: unknown cluster %q", f.path, c)
		}
		if testClusters[c]().Assumed {
			// Policies enforce a cluster's taint convention, so winkube
			// policy export refuses an assumed cluster (internal/cli TestPolicyExport).
			t.Logf("%s: on the assumed cluster, which policies are never exported for", f.path)
			continue
		}
		out = append(out, workloads(t, f.name, f.data, c, v)...)
	}
	return out
}

// fixtureSamplesAnyCluster are the rule fixtures' workloads, including
// those whose header names the assumed cluster: the differential test
// judges every object under every cluster, not only its header's.
func fixtureSamplesAnyCluster(t *testing.T) []sample {
	t.Helper()
	var out []sample
	for _, f := range ruleFixtures(t) {
		out = append(out, workloads(t, f.name, f.data, "", "")...)
	}
	return out
}

// corpusSamples are the workloads of the real corpus, on the reference
// cluster.
func corpusSamples(t *testing.T) []sample {
	t.Helper()
	dir := filepath.Join(root, "internal/corpus/testdata/real")
	var out []sample
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, workloads(t, strings.TrimPrefix(p, root+"/"), data, "reference", "")...)
		return nil
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("reading the real corpus under %s: %d workloads, %v", dir, len(out), err)
	}
	return out
}

// generatedSamples are the workloads of a seeded generated corpus.
func generatedSamples(t *testing.T, seed uint64, n int) []sample {
	t.Helper()
	g := corpusgen.New(corpusgen.Options{Objects: n, Seed: seed})
	var out []sample
	for i := 0; i < n; i++ {
		d := g.Next()
		out = append(out, workloads(t, fmt.Sprintf("generated(seed %d)/%d", seed, i), d.Data, "reference", "")...)
	}
	return out
}
