package fetch

import (
	"regexp"
	"strings"
	"time"
)

// stamps are the timestamps of the log formats a Windows node's services
// write besides klog's, in the order tried: each expression's first
// group is parsed with its layout.
var stamps = []struct {
	re     *regexp.Regexp
	layout string
}{
	// Get-WinEvent | Format-Table, the kubelet's node log query for a
	// service writing to the Event Log: "11/27/2026 3:58:01 AM ...".
	{regexp.MustCompile(`^\s*(\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M)`), "1/2/2006 3:04:05 PM"},
	// RFC 3339 at the start of a line (JSON and structured logs).
	{regexp.MustCompile(`^"?(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))`), time.RFC3339Nano},
	// Calico: "2026-11-27 03:58:01.123 [INFO][1234] ...", node local time.
	{regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})`), "2006-01-02 15:04:05.000"},
	// logrus text (containerd): time="2026-11-27T03:58:01.123456700Z".
	{regexp.MustCompile(`time="([^"]+)"`), time.RFC3339Nano},
}

// LogTime reads the timestamp at the head of a log line. Times without
// a zone (klog, Calico, the Event Log table) are taken as UTC; a klog
// time takes now's year, or the year before when that would put it more
// than a day in the future.
func LogTime(line string, now time.Time) (time.Time, bool) {
	// klog first, without a regular expression: most lines read are the
	// kubelet's and kube-proxy's, and this runs on every line.
	if t, ok := klogTime(line, now); ok {
		return t, true
	}
	for _, s := range stamps {
		if m := s.re.FindStringSubmatch(line); m != nil {
			if t, err := time.Parse(s.layout, m[1]); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// klogTime reads a klog header (kubelet, kube-proxy, flanneld:
// "E1127 03:58:01.123456    4712 file.go:12] ..."; the year is not
// written), byte by byte: ^[IWEF]MMDD hh:mm:ss\.\d{1,9}.
func klogTime(line string, now time.Time) (time.Time, bool) {
	const minLen = len("I1127 03:58:01.1")
	if len(line) < minLen || !strings.ContainsRune("IWEF", rune(line[0])) {
		return time.Time{}, false
	}
	two := func(i int) (int, bool) {
		a, b := line[i], line[i+1]
		if a < '0' || a > '9' || b < '0' || b > '9' {
			return 0, false
		}
		return int(a-'0')*10 + int(b-'0'), true
	}
	var n [5]int
	for i, at := range []int{1, 3, 6, 9, 12} {
		v, ok := two(at)
		if !ok {
			return time.Time{}, false
		}
		n[i] = v
	}
	if line[5] != ' ' || line[8] != ':' || line[11] != ':' || line[14] != '.' {
		return time.Time{}, false
	}
	ns, digits := 0, 0
	for i := 15; i < len(line) && digits < 9 && line[i] >= '0' && line[i] <= '9'; i++ {
		ns = ns*10 + int(line[i]-'0')
		digits++
	}
	if digits == 0 {
		return time.Time{}, false
	}
	for range 9 - digits {
		ns *= 10
	}
	t := time.Date(now.Year(), time.Month(n[0]), n[1], n[2], n[3], n[4], ns, time.UTC)
	if t.After(now.Add(24 * time.Hour)) {
		t = t.AddDate(-1, 0, 0)
	}
	return t, true
}
