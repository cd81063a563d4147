package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"
	"time"
)

func TestGenerateCerts(t *testing.T) {
	t.Parallel()
	caPEM, certPEM, keyPEM, err := GenerateCerts("winkube-webhook", "winkube-system", 48*time.Hour, "127.0.0.1", "webhook.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Fatalf("certificate and key do not pair: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt holds no certificate")
	}
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// The names the API server, tests and operators dial.
	for _, name := range []string{"winkube-webhook.winkube-system.svc", "winkube-webhook.winkube-system.svc.cluster.local",
		"winkube-webhook", "winkube-webhook.winkube-system", "webhook.example.com", "127.0.0.1"} {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{DNSName: "other.winkube-system.svc", Roots: pool}); err == nil {
		t.Error("the certificate is valid for another Service")
	}
	if !cert.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")) {
		t.Errorf("IP SANs %v", cert.IPAddresses)
	}
	if life := cert.NotAfter.Sub(time.Now()); life < 47*time.Hour || life > 49*time.Hour {
		t.Errorf("valid for another %s, want about 48h", life)
	}
	if cert.NotBefore.After(time.Now()) {
		t.Errorf("not valid before %s", cert.NotBefore)
	}
}

func TestGenerateCertsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		service, namespace string
		validFor           time.Duration
		want               string
	}{
		{"Webhook", "ns", time.Hour, `service "Webhook": a lowercase RFC 1123 label must consist of`},
		{"webhook", "", time.Hour, `namespace "": a lowercase RFC 1123 label must consist of`},
		{"webhook", "ns", -time.Hour, "validity -1h0m0s is negative"},
	}
	for _, tc := range tests {
		_, _, _, err := GenerateCerts(tc.service, tc.namespace, tc.validFor)
		if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("GenerateCerts(%q, %q, %s) = %v, want %q...", tc.service, tc.namespace, tc.validFor, err, tc.want)
		}
	}
	_, certPEM, _, err := GenerateCerts("webhook", "ns", 0)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	cert, _ := x509.ParseCertificate(block.Bytes)
	if life := cert.NotAfter.Sub(time.Now()); life < DefaultCertValidity-time.Hour {
		t.Errorf("validity 0: valid for another %s, want the default %s", life, DefaultCertValidity)
	}
}
