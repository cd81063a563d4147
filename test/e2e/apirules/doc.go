// Package apirules holds the suite's API-rejection rules (category
// api-rejection, taken from rules.Suite) to a real kube-apiserver: their
// fixtures and tables of user and gMSA names, created with a server-side
// dry run.
package apirules
