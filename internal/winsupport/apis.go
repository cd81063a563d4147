package winsupport

// RemovedAPI is an API version of a kind that Kubernetes stopped serving:
// from Removed on, the API server answers `no matches for kind "Deployment"
// in version "extensions/v1beta1"` (kubectl's RESTMapper error).
type RemovedAPI struct {
	APIVersion string
	Kind       string
	Removed    Version
	Use        string // the served version to move to
}

// removedAPIs cites the Kubernetes deprecated API migration guide
// (kubernetes.io/docs/reference/using-api/deprecation-guide), the kinds a
// Windows or hybrid manifest carries.
var removedAPIs = []RemovedAPI{
	{"extensions/v1beta1", "Deployment", Version{16}, "apps/v1"},
	{"extensions/v1beta1", "DaemonSet", Version{16}, "apps/v1"},
	{"extensions/v1beta1", "ReplicaSet", Version{16}, "apps/v1"},
	{"extensions/v1beta1", "NetworkPolicy", Version{16}, "networking.k8s.io/v1"},
	{"extensions/v1beta1", "PodSecurityPolicy", Version{16}, "nothing (PodSecurityPolicy was removed in 1.25; use Pod Security Admission)"},
	{"extensions/v1beta1", "Ingress", Version{22}, "networking.k8s.io/v1"},
	{"apps/v1beta1", "Deployment", Version{16}, "apps/v1"},
	{"apps/v1beta1", "StatefulSet", Version{16}, "apps/v1"},
	{"apps/v1beta2", "Deployment", Version{16}, "apps/v1"},
	{"apps/v1beta2", "DaemonSet", Version{16}, "apps/v1"},
	{"apps/v1beta2", "StatefulSet", Version{16}, "apps/v1"},
	{"apps/v1beta2", "ReplicaSet", Version{16}, "apps/v1"},
	{"networking.k8s.io/v1beta1", "Ingress", Version{22}, "networking.k8s.io/v1"},
	{"networking.k8s.io/v1beta1", "IngressClass", Version{22}, "networking.k8s.io/v1"},
	{"rbac.authorization.k8s.io/v1beta1", "ClusterRole", Version{22}, "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding", Version{22}, "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io/v1beta1", "Role", Version{22}, "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io/v1beta1", "RoleBinding", Version{22}, "rbac.authorization.k8s.io/v1"},
	{"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", Version{22}, "apiextensions.k8s.io/v1"},
	{"admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration", Version{22}, "admissionregistration.k8s.io/v1"},
	{"admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration", Version{22}, "admissionregistration.k8s.io/v1"},
	{"storage.k8s.io/v1beta1", "CSIDriver", Version{22}, "storage.k8s.io/v1"},
	{"storage.k8s.io/v1beta1", "StorageClass", Version{22}, "storage.k8s.io/v1"},
	{"scheduling.k8s.io/v1beta1", "PriorityClass", Version{22}, "scheduling.k8s.io/v1"},
	{"batch/v1beta1", "CronJob", Version{25}, "batch/v1"},
	{"policy/v1beta1", "PodDisruptionBudget", Version{25}, "policy/v1"},
	{"policy/v1beta1", "PodSecurityPolicy", Version{25}, "nothing (use Pod Security Admission)"},
	{"node.k8s.io/v1beta1", "RuntimeClass", Version{25}, "node.k8s.io/v1"},
	{"discovery.k8s.io/v1beta1", "EndpointSlice", Version{25}, "discovery.k8s.io/v1"},
	{"autoscaling/v2beta1", "HorizontalPodAutoscaler", Version{25}, "autoscaling/v2"},
	{"autoscaling/v2beta2", "HorizontalPodAutoscaler", Version{26}, "autoscaling/v2"},
}

// RemovedAPIKinds lists the kinds of the removed-API table.
func RemovedAPIKinds() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range removedAPIs {
		if !seen[r.Kind] {
			seen[r.Kind] = true
			out = append(out, r.Kind)
		}
	}
	return out
}

// RemovedAPI reports whether the model's Kubernetes release no longer
// serves kind in apiVersion.
func (m Model) RemovedAPI(apiVersion, kind string) (RemovedAPI, bool) {
	for _, r := range removedAPIs {
		if r.APIVersion == apiVersion && r.Kind == kind && !m.V.Less(r.Removed) {
			return r, true
		}
	}
	return RemovedAPI{}, false
}
