package rule

import (
	"encoding/json"
	"testing"
)

func TestSeverityOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name                string
		rule, conf, finding Severity
		want                Severity
	}{
		{"the rule's", Warning, Unset, Unset, Warning},
		{"an info rule", Info, Unset, Unset, Info},
		{"the finding's own", Warning, Unset, Error, Error},
		{"a finding lowered to info", Error, Unset, Info, Info},
		{"configured info wins over the finding's", Error, Info, Warning, Info},
		{"configured error wins too", Info, Error, Unset, Error},
	} {
		r := &Rule{Severity: tt.rule, Configured: tt.conf}
		if got := r.SeverityOf(Finding{Severity: tt.finding}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSeverityText(t *testing.T) {
	t.Parallel()
	for _, s := range []Severity{Info, Warning, Error} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%v: round trip %s gives %v, %v", s, b, back, err)
		}
	}
	if _, err := json.Marshal(Unset); err == nil {
		t.Error("an unset severity was written")
	}
	if s, err := ParseSeverity("loud"); err == nil || s != Unset {
		t.Errorf("ParseSeverity(loud) = %v, %v", s, err)
	}
	if !(Unset < Info && Info < Warning && Warning < Error) {
		t.Error("severities are not ordered unset < info < warning < error")
	}
}
