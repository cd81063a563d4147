package target

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

func req(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func affinity(terms ...[]corev1.NodeSelectorRequirement) *corev1.Affinity {
	var ts []corev1.NodeSelectorTerm
	for _, t := range terms {
		ts = append(ts, corev1.NodeSelectorTerm{MatchExpressions: t})
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: ts}}}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	yes := true
	winRC := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "win"}, Handler: "runhcs-wcow-hypervisor",
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{cluster.LabelOS: "windows"},
			Tolerations: []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}}}
	tests := []struct {
		name        string
		spec        corev1.PodSpec
		rc          *nodev1.RuntimeClass
		wantOS      OS
		wantBy      Source
		wantPinned  bool
		wantSched   []OS
		wantBuilds  []string
		wantConflct string
		wantHP      bool
		wantHyperV  bool
	}{
		{name: "nothing", spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "myregistry/app:1"}}},
			wantSched: []OS{Linux, Windows}},
		{name: "selector pins", spec: corev1.PodSpec{NodeSelector: map[string]string{cluster.LabelOS: "windows"}},
			wantOS: Windows, wantBy: FromNodeSelector, wantPinned: true, wantSched: []OS{Windows}},
		{name: "the deprecated beta label pins too", spec: corev1.PodSpec{NodeSelector: map[string]string{cluster.LabelOSBeta: "linux"}},
			wantOS: Linux, wantBy: FromNodeSelector, wantPinned: true, wantSched: []OS{Linux}},
		{name: "a build pin implies Windows", spec: corev1.PodSpec{NodeSelector: map[string]string{cluster.LabelWindowsBuild: "10.0.20348"}},
			wantOS: Windows, wantBy: FromNodeSelector, wantPinned: true, wantSched: []OS{Windows}, wantBuilds: []string{"10.0.20348"}},
		{name: "NotIn linux affinity", spec: corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{req(cluster.LabelOS, corev1.NodeSelectorOpNotIn, "linux")})},
			wantOS: Windows, wantBy: FromNodeAffinity, wantPinned: true, wantSched: []OS{Windows}},
		{name: "terms are ORed", spec: corev1.PodSpec{Affinity: affinity(
			[]corev1.NodeSelectorRequirement{req(cluster.LabelOS, corev1.NodeSelectorOpIn, "linux")},
			[]corev1.NodeSelectorRequirement{req(cluster.LabelOS, corev1.NodeSelectorOpIn, "windows")})},
			wantSched: []OS{Linux, Windows}},
		{name: "AKS's OS SKU pins the OS and the build", spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.azure.com/os-sku": "Windows2022"}},
			wantOS: Windows, wantBy: FromNodeSelector, wantPinned: true, wantSched: []OS{Windows}, wantBuilds: []string{"10.0.20348"}},
		{name: "a Linux OS SKU pins Linux", spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.azure.com/os-sku": "AzureLinux"}},
			wantOS: Linux, wantBy: FromNodeSelector, wantPinned: true, wantSched: []OS{Linux}},
		{name: "GKE's Windows version label pins Windows", spec: corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{req("cloud.google.com/gke-windows-os-version", corev1.NodeSelectorOpIn, "2019")})},
			wantOS: Windows, wantBy: FromNodeAffinity, wantPinned: true, wantSched: []OS{Windows}, wantBuilds: []string{"10.0.17763"}},
		{name: "other labels say nothing about the OS", spec: corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{req("agentpool", corev1.NodeSelectorOpIn, "win")})},
			wantSched: []OS{Linux, Windows}},
		{name: "spec.os.name is read but does not pin", spec: corev1.PodSpec{OS: &corev1.PodOS{Name: "windows"}},
			wantOS: Windows, wantBy: FromSpecOS, wantSched: []OS{Linux, Windows}},
		{name: "tolerations never pin", spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
			wantSched: []OS{Linux, Windows}},
		{name: "images vote when they agree", spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}, {Image: "registry.k8s.io/pause:3.10"}}},
			wantOS: Windows, wantBy: FromImage, wantSched: []OS{Linux, Windows}},
		{name: "images that disagree say nothing", spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}, {Image: "alpine:3.20"}}},
			wantSched: []OS{Linux, Windows}},
		{name: "HostProcess on a container", spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "x", SecurityContext: &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: &yes}}}}},
			wantOS: Windows, wantBy: FromHostProcess, wantSched: []OS{Linux, Windows}, wantHP: true},
		{name: "RuntimeClass scheduling is merged", spec: corev1.PodSpec{RuntimeClassName: ptr("win")}, rc: winRC,
			wantOS: Windows, wantBy: FromRuntimeClass, wantPinned: true, wantSched: []OS{Windows}, wantHyperV: true},
		{name: "RuntimeClass conflict uses the admission plugin's words", spec: corev1.PodSpec{RuntimeClassName: ptr("win"), NodeSelector: map[string]string{cluster.LabelOS: "linux"}}, rc: winRC,
			wantOS: Windows, wantBy: FromNodeSelector, wantPinned: true, wantSched: []OS{Windows}, wantHyperV: true,
			wantConflct: "conflict: runtimeClass.scheduling.nodeSelector[kubernetes.io/os] = windows; pod.spec.nodeSelector[kubernetes.io/os] = linux"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := Resolve(Input{Spec: &tc.spec, SpecPath: field.NewPath("spec"), RuntimeClass: tc.rc, Cluster: cluster.Reference(), Model: winsupport.Default()})
			got := []any{f.OS, f.By, f.Pinned, f.Schedulable, f.Builds, f.Conflict, f.HostProcess, f.HyperV}
			want := []any{tc.wantOS, tc.wantBy, tc.wantPinned, tc.wantSched, tc.wantBuilds, tc.wantConflct, tc.wantHP, tc.wantHyperV}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("facts (OS, By, Pinned, Schedulable, Builds, Conflict, HostProcess, HyperV) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeTolerationsKeepsOneOfEach(t *testing.T) {
	t.Parallel()
	a := []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	b := []corev1.Toleration{a[0], {Key: "gpu", Operator: corev1.TolerationOpExists}}
	got := MergeTolerations(a, b)
	if len(got) != 2 || got[1].Key != "gpu" {
		t.Errorf("MergeTolerations = %+v, want the os toleration once and gpu added", got)
	}
}

func ptr(s string) *string { return &s }
