package fetch

import (
	"regexp"
	"strconv"
	"time"
)

// Timestamps of the log formats a Windows node's services write.
var (
	// klog (kubelet, kube-proxy, flanneld): "E1127 03:58:01.123456    4712 file.go:12] ...";
	// the year is not written.
	klogHeader = regexp.MustCompile(`^[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{1,9})`)
	// logrus text (containerd): time="2026-11-27T03:58:01.123456700Z".
	logrusTime = regexp.MustCompile(`time="([^"]+)"`)
	// RFC 3339 at the start of a line (JSON and structured logs).
	rfc3339Start = regexp.MustCompile(`^"?(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))`)
	// Calico: "2026-11-27 03:58:01.123 [INFO][1234] ...", node local time.
	calicoTime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})`)
	// Get-WinEvent | Format-Table, the kubelet's node log query for a
	// service writing to the Event Log: "11/27/2026 3:58:01 AM ...".
	winEventTime = regexp.MustCompile(`^\s*(\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M)`)
)

// LogTime reads the timestamp at the head of a log line. Times without
// a zone (klog, Calico, the Event Log table) are taken as UTC; a klog
// time takes now's year, or the year before when that would put it more
// than a day in the future.
func LogTime(line string, now time.Time) (time.Time, bool) {
	if m := winEventTime.FindStringSubmatch(line); m != nil {
		if t, err := time.Parse("1/2/2006 3:04:05 PM", m[1]); err == nil {
			return t, true
		}
	}
	if m := klogHeader.FindStringSubmatch(line); m != nil {
		n := make([]int, 6)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+1])
		}
		frac := m[6] + "000000000"[:9-len(m[6])]
		ns, _ := strconv.Atoi(frac)
		t := time.Date(now.Year(), time.Month(n[0]), n[1], n[2], n[3], n[4], ns, time.UTC)
		if t.After(now.Add(24 * time.Hour)) {
			t = t.AddDate(-1, 0, 0)
		}
		return t, true
	}
	if m := rfc3339Start.FindStringSubmatch(line); m != nil {
		if t, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			return t, true
		}
	}
	if m := calicoTime.FindStringSubmatch(line); m != nil {
		if t, err := time.Parse("2006-01-02 15:04:05.000", m[1]); err == nil {
			return t, true
		}
	}
	if m := logrusTime.FindStringSubmatch(line); m != nil {
		if t, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
