package fetch

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/live/nodelog"
)

// BenchmarkLogLines reads one service's log answer of 300 klog lines of
// the last hour (a busy, healthy node's, as test/bench/audit serves),
// keeping the lines a node-log signature matches, as audit and doctor
// --node-reads do for each service of each Windows node.
func BenchmarkLogLines(b *testing.B) {
	now := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	var body bytes.Buffer
	for i := range 300 {
		t := now.Add(-time.Hour + time.Duration(i+1)*time.Hour/301)
		fmt.Fprintf(&body, "I%s    4712 kubelet.go:%d] \"Routine housekeeping\" pod=\"bench/web-%d\" status=\"Running\" elapsed=\"12.3ms\"\n", t.Format("0102 15:04:05.000000"), 100+i, i)
	}
	c := &kubeletClient{o: KubeletOptions{Since: time.Hour, TailLines: DefaultTailLines, LogMaxBytes: DefaultLogMaxBytes, Now: now, KeepLine: nodelog.Keep}}
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		lr := &logReader{c: c, svc: "kubelet", since: now.Add(-time.Hour)}
		if err := lr.read(bytes.NewReader(body.Bytes())); err != nil {
			b.Fatal(err)
		}
		if len(lr.kept()) != 0 {
			b.Fatal("a routine line was kept")
		}
	}
}
