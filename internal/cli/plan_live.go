package cli

import (
	"context"
	"fmt"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
)

// readLive reads the cluster from the API server, read-only, as audit
// does: the nodes become the current cluster (unless --cluster gives it),
// and, without PATH, the top-level workloads, the RuntimeClasses and the
// PodDisruptionBudgets become the objects planned.
func (o *planOptions) readLive(ctx context.Context, nodes, workloads bool) ([]*manifest.Object, error) {
	opts := o.live.opts
	opts.NoEvents = true
	snap, err := readSnapshot(ctx, o.streams, o.quiet, opts)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	if nodes {
		if len(snap.Nodes) == 0 {
			return nil, fmt.Errorf("the cluster has no nodes to plan on")
		}
		c := cluster.FromNodes(snap.Nodes)
		c.Source = "the live cluster (API server " + snap.Server + ")"
		if v, err := winsupport.ParseVersion(strings.TrimPrefix(snap.Server, "v")); err == nil {
			c.KubernetesVersion = v.String()
			if o.k8sVersionCurrent == "" {
				o.model = winsupport.ForVersion(v)
			}
		}
		o.cluster = c
	}
	if !workloads {
		return nil, nil
	}
	objs, err := live.TopLevel(snap, live.NewOwners(snap))
	if err != nil {
		return nil, err
	}
	for _, rc := range snap.RuntimeClasses {
		obj, err := live.Object("node.k8s.io/v1", "RuntimeClass", rc)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	pdbs, err := o.readBudgets(ctx, snap.Namespace)
	if err != nil {
		return nil, err
	}
	return append(objs, pdbs...), nil
}

// readBudgets lists the PodDisruptionBudgets, which the snapshot does not
// hold, for the drain.
func (o *planOptions) readBudgets(ctx context.Context, ns string) ([]*manifest.Object, error) {
	cfg, _, err := fetch.Config(o.live.opts)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the client: %w", err)
	}
	list, err := cs.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing PodDisruptionBudgets: %w", err)
	}
	var out []*manifest.Object
	for i := range list.Items {
		p := &list.Items[i]
		obj, err := live.Object("policy/v1", "PodDisruptionBudget", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}, Spec: p.Spec})
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}
