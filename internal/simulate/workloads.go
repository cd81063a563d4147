package simulate

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/winkube/winkube/internal/manifest"
)

// workload is an input object that creates pods, and what became of them.
type workload struct {
	obj       *manifest.Object
	ref       string // Kind/namespace/name
	ns        string
	spec      *manifest.Workload
	count     int  // pods to create (DaemonSet: filled in per node)
	daemon    bool // one pod per targeted node
	invalid   string
	forbidden string // RuntimeClass admission's refusal, without the pod name
	pod       *corev1.Pod
	sched     *schedPod
	targets   []*node
	// untargeted says why a DaemonSet targets no node.
	untargeted []string
	result     *WorkloadResult
	// unknown lists images whose platforms the model does not know.
	unknown     []string
	unknownDone bool
}

// collect finds the workloads and RuntimeClasses among the objects, in
// input order, and applies the replica overrides.
func collect(objs []*manifest.Object, overrides map[string]int32) ([]*workload, map[string]*nodev1.RuntimeClass, []string, error) {
	rcs := map[string]*nodev1.RuntimeClass{}
	var wls []*workload
	var notes []string
	for _, o := range objs {
		if rc, ok := o.Typed.(*nodev1.RuntimeClass); ok {
			rcs[rc.Name] = rc
			continue
		}
		if !manifest.CreatesPods(o.Kind) {
			continue
		}
		w := o.Workload()
		if w == nil {
			notes = append(notes, fmt.Sprintf("%s could not be read (see winkube lint); it is left out", o.Ref()))
			continue
		}
		ns := o.Namespace
		if ns == "" {
			ns = "default"
		}
		wl := &workload{obj: o, ref: o.Kind + "/" + ns + "/" + o.Name, ns: ns, spec: w, count: int(w.Replicas)}
		if job, ok := o.Typed.(*batchv1.Job); ok {
			wl.count = jobPods(&job.Spec)
		}
		if cj, ok := o.Typed.(*batchv1.CronJob); ok {
			wl.count = jobPods(&cj.Spec.JobTemplate.Spec)
		}
		_, wl.daemon = o.Typed.(*appsv1.DaemonSet)
		wls = append(wls, wl)
	}
	if err := applyOverrides(wls, overrides); err != nil {
		return nil, nil, nil, err
	}
	return wls, rcs, notes, nil
}

// jobPods is how many pods a Job runs at once: parallelism (default 1),
// capped by the completions still to go.
func jobPods(s *batchv1.JobSpec) int {
	n := int32(1)
	if s.Parallelism != nil {
		n = *s.Parallelism
	}
	if s.Completions != nil && *s.Completions < n {
		n = *s.Completions
	}
	return int(max(n, 0))
}

// applyOverrides sets replicas from "Kind/name" or "Kind/namespace/name"
// keys; the kind is matched case-insensitively.
func applyOverrides(wls []*workload, overrides map[string]int32) error {
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		found := false
		for _, wl := range matchWorkloads(wls, k) {
			if wl.daemon {
				return fmt.Errorf("--replicas %s: a DaemonSet runs one pod per node; its replicas cannot be set", k)
			}
			wl.count = int(overrides[k])
			found = true
		}
		if !found {
			return fmt.Errorf("--replicas %s: no such workload in the input (want Kind/name or Kind/namespace/name)", k)
		}
	}
	return nil
}

// matchWorkloads finds the workloads a "Kind/name" or
// "Kind/namespace/name" reference names.
func matchWorkloads(wls []*workload, ref string) []*workload {
	parts := strings.Split(ref, "/")
	var out []*workload
	for _, wl := range wls {
		if !strings.EqualFold(parts[0], wl.obj.Kind) {
			continue
		}
		switch len(parts) {
		case 2:
			if parts[1] == wl.obj.Name {
				out = append(out, wl)
			}
		case 3:
			if parts[1] == wl.ns && parts[2] == wl.obj.Name {
				out = append(out, wl)
			}
		}
	}
	return out
}

// podName is the i-th pod's name. Controllers add random suffixes;
// winkube numbers pods so runs are reproducible. DaemonSet pods are named
// after their node.
func (wl *workload) podName(i int) string {
	switch {
	case wl.obj.Kind == "Pod":
		return wl.obj.Name
	case wl.daemon:
		return wl.obj.Name + "-" + wl.targets[i].name
	}
	return wl.obj.Name + "-" + strconv.Itoa(i)
}

// controllerLabels are the labels a controller adds to the pods it
// creates, which selectors (matchLabelKeys, spread, anti-affinity) see.
func (wl *workload) controllerLabels() map[string]string {
	switch wl.obj.Kind {
	case "Deployment":
		return map[string]string{"pod-template-hash": templateHash(wl.ref)}
	case "StatefulSet", "DaemonSet":
		return map[string]string{"controller-revision-hash": wl.obj.Name + "-" + templateHash(wl.ref)}
	case "Job":
		return map[string]string{"batch.kubernetes.io/job-name": wl.obj.Name, "job-name": wl.obj.Name}
	case "CronJob":
		job := wl.obj.Name + "-0"
		return map[string]string{"batch.kubernetes.io/job-name": job, "job-name": job}
	}
	return nil
}

// templateHash stands in for the controller's pod-template-hash: stable
// per workload, in the same alphabet.
func templateHash(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// replicaLabelSet returns the labels of the i-th pod: StatefulSet pods
// carry their own name and index.
func (wl *workload) replicaLabelSet(i int) labels.Set {
	if wl.obj.Kind != "StatefulSet" {
		return labels.Set(wl.pod.Labels)
	}
	l := make(map[string]string, len(wl.pod.Labels)+2)
	for k, v := range wl.pod.Labels {
		l[k] = v
	}
	l["statefulset.kubernetes.io/pod-name"] = wl.podName(i)
	l["apps.kubernetes.io/pod-index"] = strconv.Itoa(i)
	return labels.Set(l)
}

// podFor builds the pod a workload's controller creates, before admission:
// the template with the controller's labels, the API server's defaults
// winkube relies on, and for a DaemonSet the tolerations its controller
// adds to every pod.
func podFor(wl *workload) *corev1.Pod {
	meta := wl.spec.Template.DeepCopy()
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: wl.obj.Name, Namespace: wl.ns, Labels: meta.Labels, Annotations: meta.Annotations},
		Spec:       *wl.spec.Spec.DeepCopy(),
	}
	if extra := wl.controllerLabels(); len(extra) > 0 {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range extra {
			pod.Labels[k] = v
		}
	}
	defaultPorts(&pod.Spec)
	defaultRequests(&pod.Spec)
	if wl.daemon {
		addDaemonTolerations(&pod.Spec)
	}
	addDefaultTolerationSeconds(&pod.Spec)
	return pod
}
