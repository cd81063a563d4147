package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/internal/live"
)

// Lines of the kubelet's node log query that are its own, not the
// service's (kubernetes/kubernetes v1.36.3
// pkg/kubelet/kubelet_server_journal.go).
const (
	// filesWithOptions: on Windows a service that does not write to the
	// Event Log resolves to a file under C:\var\log, and a file query
	// refuses sinceTime and tailLines.
	filesWithOptions = "options present and query resolved to log files for"
)

// Prefixes of the Unread errors about an answer that came (the kubelet's
// own error line, a log too large), as against a request refused.
const (
	answeredPrefix = "the kubelet answered: "
	tooLargePrefix = "the log answer is larger than"
	logNotFound    = "log not found for "
)

// ofAnswer says whether u is about an answer the kubelet gave.
func ofAnswer(u live.Unread) bool {
	return strings.HasPrefix(u.Err, answeredPrefix) || strings.HasPrefix(u.Err, tooLargePrefix)
}

var queryErrors = []string{logNotFound, "error getting log for ", "error: journal output not available", "failed to get logging cmd", "context error: "}

// readLogs queries one service's log, asking the kubelet for the lines
// since o.Since and at most o.TailLines of them; when the service logs
// to a file, which refuses those options, it asks again without them
// and applies them here.
func (c *kubeletClient) readLogs(ctx context.Context, base, svc string, k *live.Kubelet) {
	since := c.o.Now.Add(-c.o.Since)
	q := url.Values{"query": {svc}, "sinceTime": {since.UTC().Format(time.RFC3339)}, "tailLines": {strconv.Itoa(c.o.TailLines)}}
	lr := &logReader{c: c, svc: svc, since: since}
	endpoint := "/logs/?" + q.Encode()
	if u := c.get(ctx, base, endpoint, lr.read); u != nil {
		k.Unread = append(k.Unread, *u)
		return
	}
	if lr.fileLog {
		lr = &logReader{c: c, svc: svc, since: since}
		endpoint = "/logs/?" + url.Values{"query": {svc}}.Encode()
		if u := c.get(ctx, base, endpoint, lr.read); u != nil {
			k.Unread = append(k.Unread, *u)
			return
		}
	}
	// "log not found for SERVICE": the node has no such service (a
	// flannel node has no CalicoNode), which is not a failure to read.
	if lr.queryErr != "" && !strings.HasPrefix(lr.queryErr, logNotFound) {
		k.Unread = append(k.Unread, live.Unread{Endpoint: endpoint, Err: answeredPrefix + lr.queryErr})
	}
	if lr.truncated {
		k.Unread = append(k.Unread, live.Unread{Endpoint: endpoint, Err: fmt.Sprintf(tooLargePrefix+" %d bytes; only its first %d bytes were read", c.o.LogMaxBytes, c.o.LogMaxBytes)})
	}
	k.Logs = append(k.Logs, lr.kept()...)
}

// logReader reads one log answer line by line, keeping the last
// TailLines lines since the start that KeepLine wants.
type logReader struct {
	c         *kubeletClient
	svc       string
	since     time.Time
	ring      []live.LogLine
	next      int
	full      bool
	last      time.Time // the last timestamp seen, for lines without one
	fileLog   bool
	queryErr  string
	truncated bool
}

func (lr *logReader) read(r io.Reader) error {
	br := bufio.NewReaderSize(io.LimitReader(r, lr.c.o.LogMaxBytes+1), 64<<10)
	var read int64
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		read += int64(len(chunk))
		if len(line) < maxLogLine {
			line = append(line, chunk[:min(len(chunk), maxLogLine-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			lr.line(strings.TrimRight(string(line), "\r\n"))
		}
		line = line[:0]
		if read > lr.c.o.LogMaxBytes {
			lr.truncated = true
			return nil
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (lr *logReader) line(text string) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return
	}
	if strings.HasPrefix(trimmed, filesWithOptions) {
		lr.fileLog = true
		return
	}
	if strings.HasPrefix(trimmed, "try without specifying options") {
		return
	}
	for _, e := range queryErrors {
		if strings.HasPrefix(trimmed, e) {
			lr.queryErr = trimmed
			return
		}
	}
	t, ok := LogTime(text, lr.c.o.Now)
	if ok {
		lr.last = t
	} else {
		t = lr.last
	}
	if !t.IsZero() && t.Before(lr.since) {
		return
	}
	if lr.c.o.KeepLine != nil && !lr.c.o.KeepLine(lr.svc, text) {
		return
	}
	l := live.LogLine{Service: lr.svc, Time: t, Text: text}
	if len(lr.ring) < lr.c.o.TailLines {
		lr.ring = append(lr.ring, l)
		return
	}
	lr.ring[lr.next] = l
	lr.next = (lr.next + 1) % len(lr.ring)
	lr.full = true
}

// kept returns the lines kept, oldest first.
func (lr *logReader) kept() []live.LogLine {
	if !lr.full {
		return lr.ring
	}
	return append(append([]live.LogLine(nil), lr.ring[lr.next:]...), lr.ring[:lr.next]...)
}
