// Package controlplane runs a real Kubernetes control plane — etcd,
// kube-apiserver and kube-scheduler, built from k8s.io/kubernetes v1.36.3 —
// on 127.0.0.1 for tests, so that winkube's predictions can be compared with
// what the real API server and scheduler do.
//
// There are no kubelets: nodes are fake Node objects created with
// [ControlPlane.CreateNode], and pods are only ever bound, never run. Because
// nothing would ever remove the not-ready taint or create default service
// accounts, the TaintNodesByCondition and ServiceAccount admission plugins
// are disabled; everything else (RuntimeClass, the admission webhooks,
// validation) is the stock v1.36.3 behaviour.
//
// By default there is no kube-controller-manager either: tests create pods
// themselves. [Options.ControllerManager] starts one with only the
// controllers that make a workload's pods ([WorkloadControllers]: Deployment,
// ReplicaSet, StatefulSet, DaemonSet, Job), so a Deployment's replicas
// arrive at the scheduler as they do in a cluster. It runs without leader
// election, cloud provider, per-controller service accounts or garbage
// collector.
//
// Binaries (kube-controller-manager only when asked for) are found, in
// order, in [Options.BinDir], in the directory named by
// the WINKUBE_CONTROLPLANE_BIN environment variable, or in the version-keyed
// cache ${WINKUBE_CACHE:-$HOME/.cache/winkube}/controlplane/v1.36.3/bin, which
// is filled by running hack/build-controlplane.sh (found by walking up from the
// working directory to the module root) when a binary is missing. A cold build
// takes several minutes; `make controlplane` does it ahead of time.
//
// Typical use in a test:
//
//	cp := controlplane.StartT(t, controlplane.Options{})
//	cp.CreateNode(ctx, node)
//	cp.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
//	nodeName, failedMsg, err := cp.WaitForPodScheduled(ctx, ns, pod.Name)
package controlplane
