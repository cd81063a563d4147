// Package loadgen measures the admission webhook under load: it runs
// `winkube webhook serve` as a subprocess on 127.0.0.1, sends a mix of
// AdmissionReviews at a fixed rate over keep-alive TLS connections, rotates
// the certificate meanwhile, ends with SIGTERM while requests are in
// flight, and reports client and server latency and every failure.
package loadgen
