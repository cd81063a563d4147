package simulate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

// topologyNodes are n1 (zone a), n2 (zone a), n3 (zone b) and n4 (no
// zone), with pods of app=web on n1 and n2 and one of app=db on n3.
func topologyNodes(t *testing.T) []*node {
	t.Helper()
	objs := []*corev1.Node{
		testNode("n1", map[string]string{"topology.kubernetes.io/zone": "a"}, nil, "4", "8Gi", 10),
		testNode("n2", map[string]string{"topology.kubernetes.io/zone": "a"}, nil, "4", "8Gi", 10),
		testNode("n3", map[string]string{"topology.kubernetes.io/zone": "b"}, nil, "4", "8Gi", 10),
		testNode("n4", nil, nil, "4", "8Gi", 10),
	}
	nodes := newNodes(objs, nil)
	place := func(n *node, app string) {
		p := &placed{ns: "default", labels: labels.Set{"app": app}, node: n, sp: &schedPod{}}
		n.pods = append(n.pods, p)
	}
	place(nodes[0], "web")
	place(nodes[1], "web")
	place(nodes[2], "db")
	return nodes
}

func TestSpreadFilter(t *testing.T) {
	t.Parallel()
	constraint := func(key string, skew int32, mutate func(*corev1.TopologySpreadConstraint)) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			c := corev1.TopologySpreadConstraint{MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
			if mutate != nil {
				mutate(&c)
			}
			s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, c)
		}
	}
	tests := []struct {
		name string
		pod  func(*corev1.PodSpec)
		want map[string]string // node -> reason, "" passes
	}{
		{"zone skew 1: zone a has 2, b has 0", constraint("topology.kubernetes.io/zone", 1, nil),
			map[string]string{"n1": reasonSpread, "n2": reasonSpread, "n3": "", "n4": reasonSpreadLabel}},
		{"zone skew 2 still refuses a third pod in zone a", constraint("topology.kubernetes.io/zone", 2, nil),
			map[string]string{"n1": reasonSpread, "n2": reasonSpread, "n3": "", "n4": reasonSpreadLabel}},
		{"zone skew 3", constraint("topology.kubernetes.io/zone", 3, nil),
			map[string]string{"n1": "", "n2": "", "n3": "", "n4": reasonSpreadLabel}},
		{"hostname skew 1", constraint("kubernetes.io/hostname", 1, nil),
			map[string]string{"n1": reasonSpread, "n2": reasonSpread, "n3": "", "n4": ""}},
		{"minDomains above the domains counts the minimum as 0", constraint("topology.kubernetes.io/zone", 2, func(c *corev1.TopologySpreadConstraint) {
			c.MinDomains = ptr.To[int32](3)
		}), map[string]string{"n1": reasonSpread, "n2": reasonSpread, "n3": "", "n4": reasonSpreadLabel}},
		{"ScheduleAnyway never filters", constraint("topology.kubernetes.io/zone", 1, func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable = corev1.ScheduleAnyway
		}), map[string]string{"n1": "", "n2": "", "n3": "", "n4": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := topologyNodes(t)
			pod := podWith(tt.pod)
			pod.Labels = map[string]string{"app": "web"}
			sp := newSchedPod(pod, false)
			var sc *spreadCounts
			if len(sp.spread) > 0 {
				sc = countSpread(sp, "default", nodes)
			}
			for _, n := range nodes {
				got := ""
				if sc != nil {
					if st := sc.filter(sp, n.obj.Labels); st != nil {
						got = st.reasons[0]
					}
				}
				if got != tt.want[n.name] {
					t.Errorf("%s: %q, want %q", n.name, got, tt.want[n.name])
				}
			}
		})
	}
}

func TestInterPodAffinityFilter(t *testing.T) {
	t.Parallel()
	term := func(key, app string) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
	}
	tests := []struct {
		name   string
		labels map[string]string
		aff    *corev1.Affinity
		owner  *corev1.PodAffinityTerm // a bound pod on n3 with this anti-affinity
		want   map[string]string
	}{
		{"affinity to web by zone", nil, &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("topology.kubernetes.io/zone", "web")}}},
			nil, map[string]string{"n1": "", "n2": "", "n3": reasonAffinity, "n4": reasonAffinity}},
		{"affinity to a group that does not exist yet, matching itself", map[string]string{"app": "new"}, &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("topology.kubernetes.io/zone", "new")}}},
			nil, map[string]string{"n1": "", "n2": "", "n3": "", "n4": reasonAffinity}},
		{"anti-affinity to web by hostname", nil, &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("kubernetes.io/hostname", "web")}}},
			nil, map[string]string{"n1": reasonAntiAffinity, "n2": reasonAntiAffinity, "n3": "", "n4": ""}},
		{"anti-affinity to db by zone", nil, &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("topology.kubernetes.io/zone", "db")}}},
			nil, map[string]string{"n1": "", "n2": "", "n3": reasonAntiAffinity, "n4": ""}},
		{"an existing pod's anti-affinity", map[string]string{"app": "cache"}, nil, ptr.To(term("topology.kubernetes.io/zone", "cache")),
			map[string]string{"n1": "", "n2": "", "n3": reasonExistingAnti, "n4": ""}},
		{"an existing pod's anti-affinity that does not match", map[string]string{"app": "other"}, nil, ptr.To(term("topology.kubernetes.io/zone", "cache")),
			map[string]string{"n1": "", "n2": "", "n3": "", "n4": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := topologyNodes(t)
			var all []*placed
			for _, n := range nodes {
				all = append(all, n.pods...)
			}
			if tt.owner != nil {
				owner := podWith(func(s *corev1.PodSpec) {
					s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{*tt.owner}}}
				})
				all = append(all, &placed{ns: "default", labels: labels.Set{"app": "owner"}, node: nodes[2], anti: newInterPod(owner).anti})
			}
			pod := podWith(func(s *corev1.PodSpec) { s.Affinity = tt.aff })
			pod.Labels = tt.labels
			ip := newInterPod(pod)
			c := countAffinity(all, "default", labels.Set(tt.labels), ip)
			for _, n := range nodes {
				got := ""
				if st := c.filter("default", labels.Set(tt.labels), ip, n.obj.Labels); st != nil {
					got = st.reasons[0]
				}
				if got != tt.want[n.name] {
					t.Errorf("%s: %q, want %q", n.name, got, tt.want[n.name])
				}
			}
		})
	}
}

// TestInterPodLabelKeys: matchLabelKeys and mismatchLabelKeys join the
// term's selector with the pod's own values, as the API server merges
// them on create; a key the pod has no label for adds nothing.
func TestInterPodLabelKeys(t *testing.T) {
	t.Parallel()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Labels: map[string]string{"app": "web", "rev": "v1"}},
		Spec: corev1.PodSpec{Affinity: &corev1.Affinity{
			PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "front"}},
				TopologyKey:   "kubernetes.io/hostname", MatchLabelKeys: []string{"app", "absent"},
			}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				TopologyKey:   "kubernetes.io/hostname", MismatchLabelKeys: []string{"rev"},
			}}},
		}},
	}
	ip := newInterPod(pod)
	if ip == nil || len(ip.affinity) != 1 || len(ip.anti) != 1 {
		t.Fatalf("newInterPod = %+v, want one affinity and one anti-affinity term", ip)
	}
	for _, tc := range []struct {
		name string
		got  labels.Selector
		want string
	}{
		{"affinity", ip.affinity[0].selector, "app in (web),tier=front"},
		{"anti-affinity", ip.anti[0].selector, "app=web,rev notin (v1)"},
	} {
		if got := tc.got.String(); got != tc.want {
			t.Errorf("%s selector = %q, want %q", tc.name, got, tc.want)
		}
	}
}
