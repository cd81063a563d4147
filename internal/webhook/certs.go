package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// DefaultCertValidity is the lifetime of generated certificates when
// GenerateCerts is given 0.
const DefaultCertValidity = 365 * 24 * time.Hour

func generateCerts(service, namespace string, validFor time.Duration, extraSANs ...string) (caPEM, certPEM, keyPEM []byte, err error) {
	for _, n := range []struct{ what, v string }{{"service", service}, {"namespace", namespace}} {
		if msgs := validation.IsDNS1123Label(n.v); len(msgs) > 0 {
			return nil, nil, nil, fmt.Errorf("%s %q: %s", n.what, n.v, msgs[0])
		}
	}
	if validFor < 0 {
		return nil, nil, nil, fmt.Errorf("validity %s is negative", validFor)
	}
	if validFor == 0 {
		validFor = DefaultCertValidity
	}
	// Backdated a little: the API server's clock may be behind ours.
	notBefore := time.Now().Add(-time.Hour).UTC()
	notAfter := notBefore.Add(validFor + time.Hour)

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "winkube-webhook-ca." + namespace},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("creating the CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	svc := service + "." + namespace + ".svc"
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: svc},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{service, service + "." + namespace, svc, svc + ".cluster.local"},
	}
	for _, san := range extraSANs {
		if ip := net.ParseIP(san); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if san != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, san)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("creating the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	return pemBlock("CERTIFICATE", caDER), pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", keyDER), nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// serial is a random 128-bit serial number, as RFC 5280 recommends.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n
}
