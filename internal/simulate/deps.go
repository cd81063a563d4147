package simulate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/svcname"
)

// depInput is what the dependency check reads of the input.
type depInput struct {
	domain    string
	pools     map[string]cluster.Pool
	services  map[string]*corev1.Service
	configs   map[string]*corev1.ConfigMap
	policies  []*networkingv1.NetworkPolicy
	templates []podLabels // every workload's pod labels, for Service backends
}

type podLabels struct {
	ns     string
	labels map[string]string
}

// dependencies lists the Service dependencies of the workloads the
// simulation placed on Windows pools.
func dependencies(in Input, res *Result) []Dependency {
	d := depInput{domain: cluster.DefaultClusterDomain, pools: map[string]cluster.Pool{}, services: map[string]*corev1.Service{}, configs: map[string]*corev1.ConfigMap{}}
	if in.Cluster != nil {
		d.domain = in.Cluster.Domain()
		for _, p := range in.Cluster.Pools {
			d.pools[p.Name] = p
		}
	}
	for _, o := range in.Objects {
		ns := nsOf(o.Namespace)
		switch t := o.Typed.(type) {
		case *corev1.Service:
			d.services[ns+"/"+o.Name] = t
		case *corev1.ConfigMap:
			d.configs[ns+"/"+o.Name] = t
		case *networkingv1.NetworkPolicy:
			d.policies = append(d.policies, t)
		}
		if w := o.Workload(); w != nil {
			d.templates = append(d.templates, podLabels{ns, w.Template.Labels})
		}
	}
	windowsPool := map[string]bool{}
	for _, pu := range res.Pools {
		if pu.OS == "windows" {
			windowsPool[pu.Pool] = true
		}
	}
	byRef := map[string]WorkloadResult{}
	for _, wr := range res.Workloads {
		byRef[wr.Workload] = wr
	}
	var out []Dependency
	for _, o := range in.Objects {
		w := o.Workload()
		if w == nil {
			continue
		}
		ns := nsOf(o.Namespace)
		ref := o.Kind + "/" + ns + "/" + o.Name
		pool := ""
		for _, pc := range byRef[ref].Placed {
			if windowsPool[pc.Pool] {
				pool = pc.Pool
				break
			}
		}
		if pool == "" {
			continue
		}
		client := podLabels{ns, w.Template.Labels}
		seen := map[string]bool{}
		d.names(w, func(where, value string) {
			for _, n := range svcname.Find(value, ns, d.domain) {
				key := n.Namespace + "/" + n.Service
				svc := d.services[key]
				if (svc == nil && n.Form != svcname.Qualified && !n.Always) || seen[n.Name+"\x00"+where] {
					continue
				}
				seen[n.Name+"\x00"+where] = true
				dep := Dependency{Workload: ref, Pool: pool, Name: n.Name, Where: where, Service: key, Resolves: n.Form != svcname.Partial}
				switch {
				case !dep.Resolves:
					dep.Blocked = "a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix; use " + n.FQDN
				case svc == nil:
					dep.Note = "the Service is not in the input"
				default:
					dep.Blocked, dep.Note = d.blocked(client, pool, n.Namespace, svc)
				}
				out = append(out, dep)
			}
		})
	}
	return out
}

// names calls fn with every string of the workload's pods where a
// Service name may be written, the data of the ConfigMaps they read
// included.
func (d depInput) names(w *manifest.Workload, fn func(where, value string)) {
	svcname.Visit(w.Spec, w.SpecPath, func(_ *field.Path, where, value string) { fn(where, value) })
	ns := nsOf(w.Meta.Namespace)
	for _, name := range svcname.ConfigMaps(w.Spec) {
		cm := d.configs[ns+"/"+name]
		if cm == nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
			fn(fmt.Sprintf("ConfigMap %s key %s", name, k), cm.Data[k])
		}
	}
}

// blocked says what stops the client's traffic to the Service: Windows'
// lack of IPv6-only networking, or a NetworkPolicy over the Service's
// backends (ingress) or the client (egress, enforced on its pool) that
// admits none of it. Ports are not weighed.
func (d depInput) blocked(client podLabels, pool, svcNS string, svc *corev1.Service) (blocked, note string) {
	if len(svc.Spec.IPFamilies) == 1 && svc.Spec.IPFamilies[0] == corev1.IPv6Protocol &&
		(svc.Spec.IPFamilyPolicy == nil || *svc.Spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack) {
		return "the Service is IPv6 single-stack, which Windows does not support", ""
	}
	var backends []podLabels
	if len(svc.Spec.Selector) > 0 {
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		for _, t := range d.templates {
			if t.ns == svcNS && sel.Matches(labels.Set(t.labels)) {
				backends = append(backends, t)
			}
		}
	}
	for _, np := range d.policies {
		if nsOf(np.Namespace) != svcNS || !hasType(np, networkingv1.PolicyTypeIngress) {
			continue
		}
		for _, b := range backends {
			if selects(&np.Spec.PodSelector, b.labels) && !admitsFrom(np.Spec.Ingress, np.Namespace, client) {
				return fmt.Sprintf("NetworkPolicy %s/%s admits no traffic from it to the Service's pods", nsOf(np.Namespace), np.Name),
					"enforced where the backends' nodes enforce NetworkPolicy"
			}
		}
	}
	for _, np := range d.policies {
		if nsOf(np.Namespace) != client.ns || !hasType(np, networkingv1.PolicyTypeEgress) || !selects(&np.Spec.PodSelector, client.labels) {
			continue
		}
		if admitsTo(np.Spec.Egress, np.Namespace, backends) {
			continue
		}
		enforces, known := d.pools[pool].EnforcesNetworkPolicy()
		switch {
		case known && !enforces:
			note = fmt.Sprintf("NetworkPolicy %s/%s would block it, but pool %q does not enforce NetworkPolicy", nsOf(np.Namespace), np.Name, pool)
		case known:
			return fmt.Sprintf("NetworkPolicy %s/%s lets it send nothing to the Service's pods", nsOf(np.Namespace), np.Name), ""
		default:
			return fmt.Sprintf("NetworkPolicy %s/%s lets it send nothing to the Service's pods", nsOf(np.Namespace), np.Name),
				fmt.Sprintf("if pool %q enforces NetworkPolicy (unknown)", pool)
		}
	}
	return "", note
}

func hasType(np *networkingv1.NetworkPolicy, t networkingv1.PolicyType) bool {
	if len(np.Spec.PolicyTypes) == 0 {
		// The API server defaults Ingress, and Egress when there are
		// egress rules.
		return t == networkingv1.PolicyTypeIngress || len(np.Spec.Egress) > 0
	}
	for _, x := range np.Spec.PolicyTypes {
		if x == t {
			return true
		}
	}
	return false
}

func selects(sel *metav1.LabelSelector, l map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(l))
}

// admitsFrom: an ingress rule with no peers admits everyone; a peer admits
// a pod it selects. A namespace is known only by its
// kubernetes.io/metadata.name label; ipBlock peers admit no pod here.
func admitsFrom(rules []networkingv1.NetworkPolicyIngressRule, policyNS string, client podLabels) bool {
	for _, r := range rules {
		if len(r.From) == 0 || anyPeer(r.From, policyNS, []podLabels{client}) {
			return true
		}
	}
	return false
}

func admitsTo(rules []networkingv1.NetworkPolicyEgressRule, policyNS string, backends []podLabels) bool {
	for _, r := range rules {
		if len(r.To) == 0 || anyPeer(r.To, policyNS, backends) {
			return true
		}
	}
	return false
}

func anyPeer(peers []networkingv1.NetworkPolicyPeer, policyNS string, pods []podLabels) bool {
	for _, p := range peers {
		if p.IPBlock != nil {
			continue
		}
		for _, pod := range pods {
			inNS := nsOf(policyNS) == pod.ns
			if p.NamespaceSelector != nil {
				inNS = selects(p.NamespaceSelector, map[string]string{"kubernetes.io/metadata.name": pod.ns})
			}
			if inNS && (p.PodSelector == nil || selects(p.PodSelector, pod.labels)) {
				return true
			}
		}
	}
	return false
}

func nsOf(ns string) string {
	if ns == "" {
		return "default"
	}
	return strings.TrimSpace(ns)
}
