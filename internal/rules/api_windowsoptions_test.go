package rules

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestUserNameErrorsStop checks the order the API server's checks stop in:
// an empty name, control characters and extra backslashes end the check
// with one error; the others accumulate.
func TestUserNameErrorsStop(t *testing.T) {
	t.Parallel()
	path := field.NewPath("windowsOptions")
	for _, tc := range []struct {
		name string
		want int
	}{
		{"", 1}, {"a\tb\\c\\d", 1}, {`a\b\c`, 1},
		{`a*b\...`, 2}, {strings.Repeat("a", 256) + `\u@`, 3}, {`dom\ok`, 0},
	} {
		if got := userNameErrors(&corev1.WindowsSecurityContextOptions{RunAsUserName: &tc.name}, path); len(got) != tc.want {
			t.Errorf("runAsUserName %q: %d errors %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}
