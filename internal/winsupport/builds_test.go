package winsupport

import "testing"

func TestKernelBuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"10.0.20348.2461", "10.0.20348", true},
		{"10.0.26100", "10.0.26100", true},
		{"10.0.17763.6893.1", "10.0.17763", true},
		{"10.0", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := KernelBuild(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("KernelBuild(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
