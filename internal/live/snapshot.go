package live

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Snapshot is what was read of a cluster at one moment.
type Snapshot struct {
	// Server is the API server's version, e.g. "v1.36.3".
	Server string
	// Namespace is the namespace read, "" for all namespaces.
	Namespace string

	Nodes                  []*corev1.Node
	Namespaces             []*corev1.Namespace
	Pods                   []*corev1.Pod
	Deployments            []*appsv1.Deployment
	StatefulSets           []*appsv1.StatefulSet
	DaemonSets             []*appsv1.DaemonSet
	ReplicaSets            []*appsv1.ReplicaSet
	ReplicationControllers []*corev1.ReplicationController
	Jobs                   []*batchv1.Job
	CronJobs               []*batchv1.CronJob
	RuntimeClasses         []*nodev1.RuntimeClass
	Services               []*corev1.Service
	NetworkPolicies        []*networkingv1.NetworkPolicy
	// Events are the events of both event APIs, one entry per event.
	Events []Event

	// Denied lists the kinds the credentials may not list.
	Denied []Denied

	// Kubelets are what was read of the Windows nodes' kubelets, when
	// they were read (KubeletAccess is then set).
	Kubelets      []*Kubelet
	KubeletAccess *KubeletAccess

	byUID  map[types.UID][]int
	byName map[string]*corev1.Node
}

// Kubelet returns what was read of node's kubelet, or nil.
func (s *Snapshot) Kubelet(node string) *Kubelet {
	for _, k := range s.Kubelets {
		if k.Node == node {
			return k
		}
	}
	return nil
}

// Event is an event in the form both event APIs share: core/v1 Events
// and events.k8s.io/v1 Events are one resource stored once, so an event
// is read through one of them and never counted twice.
type Event struct {
	// Object is the involved (core/v1) or regarding (events.k8s.io/v1)
	// object; doctor joins events to pods by its UID, never by name.
	Object  corev1.ObjectReference
	Type    string // Normal or Warning
	Reason  string
	Message string // core/v1 message, events.k8s.io/v1 note
	// Count is how often the event was seen: core/v1 count, or the
	// series count of an events.k8s.io/v1 event (1 without a series).
	Count int32
	// First and Last are when it was first and last seen.
	First, Last time.Time
	// Source is the reporting component and host, e.g. "kubelet, win-1".
	Source string
	// API names the API the event was read through.
	API string
}

// Denied is a kind the credentials may not list.
type Denied struct {
	Group, Resource, Namespace string
	Err                        string // the API server's message
}

// Permission says what to grant, in RBAC's words.
func (d Denied) Permission() string {
	g := d.Group
	if g == "" {
		g = `""`
	}
	scope := "cluster-wide (ClusterRole)"
	if d.Namespace != "" {
		scope = "in namespace " + d.Namespace
	}
	return fmt.Sprintf("grant verbs [get, list, watch] on resource %q of apiGroup %s %s, as in deploy/audit-rbac.yaml", d.Resource, g, scope)
}

// PodEvents returns the events whose involved object is the pod with
// uid, oldest first by last time seen.
func (s *Snapshot) PodEvents(uid types.UID) []Event {
	var out []Event
	for _, e := range s.eventIndex()[uid] {
		out = append(out, s.Events[e])
	}
	return out
}

func (s *Snapshot) eventIndex() map[types.UID][]int {
	if s.byUID == nil {
		s.byUID = map[types.UID][]int{}
		for i, e := range s.Events {
			if e.Object.UID != "" {
				s.byUID[e.Object.UID] = append(s.byUID[e.Object.UID], i)
			}
		}
	}
	return s.byUID
}

// Node returns the node named name, or nil. The index is built on first
// use: a snapshot is not changed once read.
func (s *Snapshot) Node(name string) *corev1.Node {
	if s.byName == nil {
		s.byName = make(map[string]*corev1.Node, len(s.Nodes))
		for _, n := range s.Nodes {
			s.byName[n.Name] = n
		}
	}
	return s.byName[name]
}
