package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAreasUnknownWhenUnread: an area whose kinds could not be listed is
// unknown, never ready, even with no finding in it.
func TestAreasUnknownWhenUnread(t *testing.T) {
	for _, tc := range []struct {
		unread []string
		want   map[string]string
	}{
		{nil, map[string]string{AreaNodes: "ready", AreaPlacement: "ready", AreaImages: "ready", AreaSecurity: "ready", AreaCapacity: "ready"}},
		{[]string{"nodes"}, map[string]string{AreaNodes: "unknown", AreaPlacement: "unknown", AreaImages: "ready", AreaSecurity: "ready", AreaCapacity: "unknown"}},
		{[]string{"pods", "deployments", "nodes", "runtimeclasses", "services", "namespaces"},
			map[string]string{AreaNodes: "unknown", AreaPlacement: "unknown", AreaImages: "unknown", AreaSecurity: "unknown", AreaCapacity: "unknown"}},
	} {
		got := map[string]string{}
		for _, a := range Areas(&Result{Unread: tc.unread}) {
			got[a.Name] = a.Status
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("unread %v (-want +got):\n%s", tc.unread, diff)
		}
	}
}
