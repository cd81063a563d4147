package fetch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/live"
)

// Read resolves the config and reads the cluster.
func Read(ctx context.Context, o Options) (*live.Snapshot, error) {
	cfg, ns, err := Config(o)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the client: %w", err)
	}
	if o.Kubelets != nil && o.Kubelets.Rest == nil {
		k := *o.Kubelets
		k.Rest = cfg
		o.Kubelets = &k
	}
	return ReadWith(ctx, cs, ns, o)
}

// ReadWith reads the cluster through cs; ns is the namespace of the
// namespaced kinds, "" for all.
func ReadWith(ctx context.Context, cs kubernetes.Interface, ns string, o Options) (*live.Snapshot, error) {
	positiveOr(&o.PageSize, DefaultPageSize)
	positiveOr(&o.EventPageSize, DefaultEventPageSize)
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	s := &live.Snapshot{Server: v.GitVersion, Namespace: ns}
	r := &reader{s: s, ns: ns, limit: o.PageSize, eventLimit: o.EventPageSize, progress: o.Progress, eventSelector: o.EventSelector}
	core, apps, batch := cs.CoreV1(), cs.AppsV1(), cs.BatchV1()
	// The events of the pods EventsAbout picks are read while the rest
	// is (eventReader); a failed read cancels those lists.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var er *eventReader
	var seePod func(*corev1.Pod)
	if !o.NoEvents && o.EventsAbout != nil {
		perPod := o.PerPodEvents
		if perPod == 0 {
			perPod = DefaultPerPodEvents
		}
		er = newEventReader(ctx, r, cs, o.EventsAbout, perPod)
		seePod = er.see
	}
	tasks := []func(context.Context) error{
		func(ctx context.Context) (err error) {
			s.Nodes, err = list(ctx, r, "", "nodes", "", core.Nodes().List, func(l *corev1.NodeList) []corev1.Node { return l.Items })
			if err != nil || o.Kubelets == nil {
				return err
			}
			// The kubelets are read while the other kinds are listed.
			s.Kubelets, s.KubeletAccess, err = ReadKubelets(ctx, o.Kubelets.Rest, s.Nodes, *o.Kubelets)
			r.report("kubelets", len(s.Kubelets))
			return err
		},
		listInto(&s.Namespaces, r, "", "namespaces", "", core.Namespaces().List, func(l *corev1.NamespaceList) []corev1.Namespace { return l.Items }),
		listInto(&s.RuntimeClasses, r, "node.k8s.io", "runtimeclasses", "", cs.NodeV1().RuntimeClasses().List, func(l *nodev1.RuntimeClassList) []nodev1.RuntimeClass { return l.Items }),
		func(ctx context.Context) (err error) {
			s.Pods, err = listEach(ctx, r, "", "pods", ns, core.Pods(ns).List, func(l *corev1.PodList) []corev1.Pod { return l.Items }, seePod)
			return err
		},
		listInto(&s.Services, r, "", "services", ns, core.Services(ns).List, func(l *corev1.ServiceList) []corev1.Service { return l.Items }),
		listInto(&s.NetworkPolicies, r, "networking.k8s.io", "networkpolicies", ns, cs.NetworkingV1().NetworkPolicies(ns).List, func(l *networkingv1.NetworkPolicyList) []networkingv1.NetworkPolicy { return l.Items }),
		listInto(&s.ReplicationControllers, r, "", "replicationcontrollers", ns, core.ReplicationControllers(ns).List, func(l *corev1.ReplicationControllerList) []corev1.ReplicationController { return l.Items }),
		listInto(&s.Deployments, r, "apps", "deployments", ns, apps.Deployments(ns).List, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items }),
		listInto(&s.StatefulSets, r, "apps", "statefulsets", ns, apps.StatefulSets(ns).List, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items }),
		listInto(&s.DaemonSets, r, "apps", "daemonsets", ns, apps.DaemonSets(ns).List, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items }),
		listInto(&s.ReplicaSets, r, "apps", "replicasets", ns, apps.ReplicaSets(ns).List, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items }),
		listInto(&s.Jobs, r, "batch", "jobs", ns, batch.Jobs(ns).List, func(l *batchv1.JobList) []batchv1.Job { return l.Items }),
		listInto(&s.CronJobs, r, "batch", "cronjobs", ns, batch.CronJobs(ns).List, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items }),
	}
	if !o.NoEvents && o.EventsAbout == nil {
		tasks = append(tasks, func(ctx context.Context) error { return r.events(ctx, cs) })
	}
	if err := parallel(ctx, tasks); err != nil {
		return nil, err
	}
	if er != nil {
		if err := er.finish(); err != nil {
			return nil, err
		}
	}
	sort.Slice(s.Denied, func(i, j int) bool { return s.Denied[i].Resource < s.Denied[j].Resource })
	sort.SliceStable(s.Events, func(i, j int) bool { return s.Events[i].Last.Before(s.Events[j].Last) })
	return s, nil
}

// reader carries what the parallel lists share.
type reader struct {
	s     *live.Snapshot
	ns    string
	limit int64
	// eventLimit is the page size of the events.
	eventLimit int64
	progress   func(string)
	// eventSelector filters the events server-side.
	eventSelector string
	mu            sync.Mutex
}

func (r *reader) deny(group, resource, ns string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Denied = append(r.s.Denied, live.Denied{Group: group, Resource: resource, Namespace: ns, Err: err.Error()})
}

func (r *reader) report(resource string, n int) {
	if r.progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress(fmt.Sprintf("read %d %s", n, resource))
}

// list reads every page of one kind. Managed fields are dropped: nothing
// downstream reads them and they are a large share of an object's size.
// A kind the credentials may not list is recorded in Denied, not an
// error.
func list[L interface{ GetContinue() string }, T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, r *reader, group, resource, ns string,
	fetch func(context.Context, metav1.ListOptions) (L, error), items func(L) []T) ([]PT, error) {
	return listEach[L, T, PT](ctx, r, group, resource, ns, fetch, items, nil)
}

// listInto is the task of ReadWith that lists one kind into *dst.
func listInto[L interface{ GetContinue() string }, T any, PT interface {
	*T
	metav1.Object
}](dst *[]PT, r *reader, group, resource, ns string,
	fetch func(context.Context, metav1.ListOptions) (L, error), items func(L) []T) func(context.Context) error {
	return func(ctx context.Context) (err error) {
		*dst, err = list[L, T, PT](ctx, r, group, resource, ns, fetch, items)
		return err
	}
}

// listEach is list, telling each (when set) of every object as its page
// arrives.
func listEach[L interface{ GetContinue() string }, T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, r *reader, group, resource, ns string,
	fetch func(context.Context, metav1.ListOptions) (L, error), items func(L) []T, each func(PT)) ([]PT, error) {
	var out []PT
	opts := metav1.ListOptions{Limit: r.limit}
	pages := pager{resource: resource}
	for {
		l, err := fetch(ctx, opts)
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			r.deny(group, resource, ns, err)
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", resource, err)
		}
		page := items(l)
		for i := range page {
			p := PT(&page[i])
			p.SetManagedFields(nil)
			out = append(out, p)
			if each != nil {
				each(p)
			}
		}
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			break
		}
		if err := pages.next(opts.Continue, len(out)); err != nil {
			return nil, err
		}
	}
	r.report(resource, len(out))
	return out, nil
}

// parallel runs the tasks at once and returns their errors joined.
func parallel(ctx context.Context, tasks []func(context.Context) error) error {
	errs := make([]error, len(tasks))
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
