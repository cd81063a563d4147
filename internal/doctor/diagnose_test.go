package doctor

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func pod(uid, node string, st corev1.PodStatus) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: types.UID("uid-" + uid), CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec:   corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}}},
		Status: st}
}

func creating() corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}
}

func TestState(t *testing.T) {
	t.Parallel()
	young := pod("1", "n", creating())
	young.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"unbound", pod("1", "", corev1.PodStatus{Phase: corev1.PodPending}), "Pending"},
		{"creating long", pod("1", "n", creating()), "ContainerCreating"},
		{"creating briefly", young, ""},
		{"evicted", pod("1", "n", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}), "Evicted"},
		{"succeeded", pod("1", "n", corev1.PodStatus{Phase: corev1.PodSucceeded}), ""},
		{"backoff", pod("1", "n", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}}), "ImagePullBackOff"},
		{"not ready", pod("1", "n", corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}}), "NotReady"},
		{"ready", pod("1", "n", corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}), ""},
	}
	for _, tt := range tests {
		if got := State(tt.pod, now, DefaultCreatingAfter); got != tt.want {
			t.Errorf("%s: State = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDiagnoseJoinsByUID: an event about an earlier pod of the same name
// (another UID) is not evidence; the pod's own sandbox event is.
func TestDiagnoseJoinsByUID(t *testing.T) {
	t.Parallel()
	p := pod("new", "win-1", creating())
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{corev1.LabelOSStable: "windows"}},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KernelVersion: "10.0.20348.2966"}}}
	ref := func(uid types.UID) corev1.ObjectReference {
		return corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web", UID: uid}
	}
	s := &live.Snapshot{Server: "v1.36.3", Pods: []*corev1.Pod{p}, Nodes: []*corev1.Node{node}, Events: []live.Event{
		{Object: ref("uid-old"), Reason: "FailedCreatePodSandBox", Message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "x": plugin type="calico" failed (add): boom`, Count: 1, Last: now},
		{Object: ref(p.UID), Reason: "FailedCreatePodSandBox", Message: "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem x: The container operating system does not match the host operating system.: unknown", Count: 4, Last: now},
	}}
	rep, got := causesOf(t, s, Options{Now: now, NoSimulation: true})
	if diff := cmp.Diff([]string{"pause-image-build-mismatch"}, got); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	if d := rep.Diagnoses[0]; d.NodeBuild != "10.0.20348" || d.Pod.UID != p.UID || d.Commands[0].Line != "kubectl get node win-1 -o jsonpath='{.metadata.labels.node\\.kubernetes\\.io/windows-build}'" {
		t.Errorf("diagnosis: build %q, uid %q, first command %q", d.NodeBuild, d.Pod.UID, d.Commands[0].Line)
	}
}

// TestDiagnoseExitCodes: STATUS_DLL_NOT_FOUND and OOMKilled are read
// from the container's last termination.
func TestDiagnoseExitCodes(t *testing.T) {
	t.Parallel()
	for code, want := range map[int32]string{-1073741515: "dll-not-found", 137: "oom-killed", 1: "unknown"} {
		reason := "Error"
		if code == 137 {
			reason = "OOMKilled"
		}
		p := pod("x", "win-1", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}}})
		rep, err := Diagnose(t.Context(), &live.Snapshot{Server: "v1.36.3", Pods: []*corev1.Pod{p}}, Options{Now: now, NoSimulation: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Diagnoses) == 0 || rep.Diagnoses[0].Cause != want {
			t.Errorf("exit code %d: diagnoses %+v, want %s", code, rep.Diagnoses, want)
		}
	}
}

// TestExamined: the pods whose events a reader fetches are exactly the
// pods Diagnose reports on: the unhealthy ones, or the named one even
// when healthy.
func TestExamined(t *testing.T) {
	t.Parallel()
	ready := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	sick, healthy := pod("sick", "win-1", creating()), pod("ok", "win-1", ready)
	healthy.Name = "api"
	s := &live.Snapshot{Server: "v1.36.3", Pods: []*corev1.Pod{healthy, sick}}
	for _, opts := range []Options{{Now: now, NoSimulation: true}, {Now: now, NoSimulation: true, Pod: "api"}} {
		rep, err := Diagnose(t.Context(), s, opts)
		if err != nil {
			t.Fatal(err)
		}
		diagnosed := map[types.UID]bool{}
		for _, d := range rep.Diagnoses {
			diagnosed[d.Pod.UID] = true
		}
		var examined []types.UID
		for _, p := range Examined(s, opts) {
			examined = append(examined, p.UID)
			if !diagnosed[p.UID] && opts.Pod == "" {
				t.Errorf("pod %s examined but not diagnosed", p.Name)
			}
		}
		want := []types.UID{sick.UID}
		if opts.Pod != "" {
			want = []types.UID{healthy.UID}
		}
		if diff := cmp.Diff(want, examined); diff != "" {
			t.Errorf("Examined with pod %q (-want +got):\n%s", opts.Pod, diff)
		}
	}
}

// TestYoungPodWithFatalEvent: a pod in ContainerCreating for a minute is
// left alone while its events show nothing it will not outgrow, and
// diagnosed at once when a Warning event shows a sandbox that cannot start
// on this host's build.
func TestYoungPodWithFatalEvent(t *testing.T) {
	t.Parallel()
	young := pod("young", "win-1", creating())
	young.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web", UID: young.UID}
	pulling := live.Event{Object: ref, Type: corev1.EventTypeNormal, Reason: "Pulling", Message: `Pulling image "mcr.microsoft.com/windows/servercore:ltsc2022"`, Count: 1, Last: now}
	mismatch := live.Event{Object: ref, Type: corev1.EventTypeWarning, Reason: "FailedCreatePodSandBox", Count: 14, Last: now,
		Message: "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem x: The container operating system does not match the host operating system.: unknown"}
	for _, tc := range []struct {
		name   string
		events []live.Event
		want   []string
	}{
		{"pulling", []live.Event{pulling}, nil},
		{"sandbox cannot start", []live.Event{pulling, mismatch}, []string{"pause-image-build-mismatch"}},
	} {
		s := &live.Snapshot{Server: "v1.36.3", Pods: []*corev1.Pod{young}, Events: tc.events}
		if got := Examined(s, Options{Now: now}); len(got) != 1 {
			t.Errorf("%s: a young ContainerCreating pod's events are not read (%d pods examined)", tc.name, len(got))
		}
		rep, got := causesOf(t, s, Options{Now: now, NoSimulation: true})
		for _, d := range rep.Diagnoses {
			if d.State != "ContainerCreating" {
				t.Errorf("%s: state %q, want ContainerCreating", tc.name, d.State)
			}
		}
		if len(got) > len(tc.want) {
			got = got[:len(tc.want)] // the most likely causes first
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: most likely causes (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestDiagnoseSettings: a cause the config disables is never named; the
// pod falls to the next cause that matches, or to unknown.
func TestDiagnoseSettings(t *testing.T) {
	t.Parallel()
	p := pod("x", "win-1", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 3,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}})
	tests := []struct {
		name string
		set  *rule.Settings
		want []string
	}{
		{"defaults", nil, []string{OOMKilled.ID}},
		{"cause disabled", &rule.Settings{Off: map[string]bool{OOMKilled.ID: true}}, []string{Unknown.ID}},
		{"unknown disabled too", &rule.Settings{Off: map[string]bool{OOMKilled.ID: true, Unknown.ID: true}}, nil},
	}
	for _, tt := range tests {
		_, got := causesOf(t, &live.Snapshot{Server: "v1.36.3", Pods: []*corev1.Pod{p}}, Options{Now: now, NoSimulation: true, Settings: tt.set})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// causesOf runs Diagnose and returns its report and the causes it names,
// most likely first.
func causesOf(t *testing.T, s *live.Snapshot, o Options) (*Report, []string) {
	t.Helper()
	rep, err := Diagnose(t.Context(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	var causes []string
	for _, d := range rep.Diagnoses {
		causes = append(causes, d.Cause)
	}
	return rep, causes
}
