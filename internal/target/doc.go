// Package target works out which operating system a workload is meant for
// and where the scheduler may put it, once per workload, from every signal
// the pod spec carries.
//
// Two questions are kept apart because Kubernetes keeps them apart. Where
// may the pod land is answered only by scheduling constraints: the
// nodeSelector and required node affinity on kubernetes.io/os or
// node.kubernetes.io/windows-build, after the RuntimeClass admission plugin
// has merged its scheduling in. What is the pod for is answered by those
// and also by spec.os.name, HostProcess and the images, none of which the
// scheduler looks at: a pod with only spec.os.name: windows is bound to a
// Linux node without complaint, and tolerations alone never pin a pod.
package target
