// Package kubelettest is a fake kubelet for tests: an HTTPS server that
// answers /configz, /stats/summary and the node log query /logs/ with
// given bodies, can answer badly (hang, refuse, send huge logs), and
// authorizes requests as the kubelet does (Authorizer, SARAuthorizer).
package kubelettest
