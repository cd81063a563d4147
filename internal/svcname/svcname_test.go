package svcname

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	t.Parallel()
	type got struct {
		Name string
		Form Form
		FQDN string
	}
	for _, tt := range []struct {
		in   string
		ns   string
		want []got
	}{
		{"http://backend.shop:8080/api", "", []got{{"backend.shop", Partial, "backend.shop.svc.cluster.local"}}},
		{"Server=sql.data.svc,1433;Database=x", "", []got{{"sql.data.svc", Partial, "sql.data.svc.cluster.local"}}},
		{"a.b.svc.cluster:1,c.d.svc.cluster.local:2", "", []got{{"a.b.svc.cluster", Partial, "a.b.svc.cluster.local"}, {"c.d.svc.cluster.local", Qualified, "c.d.svc.cluster.local"}}},
		{"http://backend:8080", "shop", []got{{"http", Short, "http.shop.svc.cluster.local"}, {"backend", Short, "backend.shop.svc.cluster.local"}}},
		{"http://backend:8080", "", nil},
		// Path segments, upper case, numbers and public names with more labels.
		{"http://host/orders.v1.svc", "", nil},
		{"Backend.Shop 1.2.3 www.example.co.uk", "", nil},
	} {
		var g []got
		for _, n := range Find(tt.in, tt.ns, "cluster.local") {
			g = append(g, got{n.Name, n.Form, n.FQDN})
			if tt.in[n.Start:n.End] != n.Name {
				t.Errorf("%q: name %q at [%d:%d] is %q", tt.in, n.Name, n.Start, n.End, tt.in[n.Start:n.End])
			}
		}
		if d := cmp.Diff(tt.want, g); d != "" {
			t.Errorf("Find(%q, %q) (-want +got):\n%s", tt.in, tt.ns, d)
		}
	}
}
