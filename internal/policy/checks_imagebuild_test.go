package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/winsupport"
)

// TestHostRangesAgree holds the compiled relation to winsupport: a host
// version runs an image build exactly when it lies in one of the image's
// ranges, for every build of a 10.0 host, other major.minor versions and
// the spellings ParseOSVersion accepts, and every image build the model
// knows. (The CEL that reads the ranges is held to lint by test/e2e/policy
// TestImageBuildHostsDecideAsLint.)
func TestHostRangesAgree(t *testing.T) {
	t.Parallel()
	m := winsupport.Default()
	var hosts []string
	for b := 0; b <= 0xffff; b += 7 {
		hosts = append(hosts, fmt.Sprintf("10.0.%d", b))
	}
	for _, b := range m.Builds() {
		n := strings.TrimPrefix(b.Build, "10.0.")
		hosts = append(hosts, b.Build, b.Build+".2461", "010.0."+n, "10.00."+n, "10.0.00"+n, "11.0."+n, "10.1."+n, "6.3."+n)
	}
	var fired int
	for _, img := range m.Builds() {
		ranges := hostRanges(img.Build)
		if len(ranges) == 0 {
			t.Errorf("image build %s: no host runs it", img.Build)
		}
		for _, h := range hosts {
			v := winsupport.ParseOSVersion(h)
			n := int(v.Major)<<24 | int(v.Minor)<<16 | int(v.Build)
			in := false
			for _, r := range ranges {
				in = in || (r[0] <= n && n <= r[1])
			}
			if want := winsupport.BuildRuns(h, img.Build, winsupport.ProcessIsolation); in != want {
				t.Errorf("host %s, image %s: in the ranges %v is %v, BuildRuns says %v", h, img.Build, ranges, in, want)
			}
			if in {
				fired++
			}
		}
	}
	if fired == 0 {
		t.Fatal("no host ran any image: the test proves nothing")
	}
}
