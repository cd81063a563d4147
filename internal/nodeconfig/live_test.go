package nodeconfig

import (
	"testing"

	"github.com/winkube/winkube/internal/winsupport"
)

// TestCheckConfigz: a live /configz object is checked with the file
// rules; a field this winkube does not know (a newer kubelet's) hides
// nothing; findings point into the body as served.
func TestCheckConfigz(t *testing.T) {
	t.Parallel()
	body := "{\"kind\":\"KubeletConfiguration\",\"apiVersion\":\"kubelet.config.k8s.io/v1beta1\",\n" +
		"\"aFieldOfKubelet140\":true,\"cgroupsPerQOS\":false,\"enforceNodeAllocatable\":[\"none\"],\"evictionHard\":{\"memory.available\":\"500Mi\"},\"systemReserved\":{\"memory\":\"2Gi\"},\n" +
		"\"containerRuntimeEndpoint\":\"unix:///run/containerd/containerd.sock\"}"
	got, err := CheckConfigz("node/win-1/configz", []byte(body), 20348, winsupport.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Rule != "kubelet-runtime-endpoint" || got[0].File != "node/win-1/configz" || got[0].Line != 3 {
		t.Errorf("findings %+v, want one kubelet-runtime-endpoint on line 3", got)
	}
	if _, err := CheckConfigz("x", []byte(`{"cgroupsPerQOS": "yes"}`), 0, winsupport.Default()); err == nil {
		t.Error("a configz whose field has the wrong type is not an error")
	}
}
