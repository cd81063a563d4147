package fidelity

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

func TestExtenderRecordsAndSteers(t *testing.T) {
	t.Parallel()
	e := NewExtender()
	defer e.Close()
	e.Choose(map[string]string{Namespace + "/p0": "b"})
	filter := func(name, uid string, nodes ...string) []string {
		t.Helper()
		body, _ := json.Marshal(extenderArgs{Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, UID: k8stypes.UID(uid)}}, NodeNames: &nodes})
		resp, err := http.Post(e.srv.URL+"/filter", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res extenderFilterResult
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.Error != "" || res.NodeNames == nil {
			t.Fatalf("filter answered %+v, %v", res, err)
		}
		return *res.NodeNames
	}
	if got := filter("p0", "u0", "c", "b", "a"); !cmp.Equal(got, []string{"b"}) {
		t.Errorf("chosen feasible node: answer %v, want [b]", got)
	}
	if got := filter("p1", "u1", "c", "a"); !cmp.Equal(got, []string{"c", "a"}) {
		t.Errorf("no choice: answer %v, want every node", got)
	}
	if got := filter("p0", "u2", "c", "a"); !cmp.Equal(got, []string{"c", "a"}) {
		t.Errorf("chosen node not feasible: answer %v, want every node", got)
	}
	if got := filter(probePrefix+"7", "u3", "b", "a"); len(got) != 0 {
		t.Errorf("probe: answer %v, want no node", got)
	}
	filter("p0", "u0", "a") // a retry does not replace the first attempt
	for uid, want := range map[string][]string{"u0": {"a", "b", "c"}, "u1": {"a", "c"}, "u2": {"a", "c"}, "u3": {"a", "b"}} {
		if got, ok := e.Feasible(k8stypes.UID(uid)); !ok || !cmp.Equal(got, want) {
			t.Errorf("Feasible(%s) = %v, %v; want %v", uid, got, ok, want)
		}
	}
	if _, ok := e.Feasible(k8stypes.UID("never")); ok {
		t.Error("Feasible reports a pod the scheduler never asked about")
	}
}
