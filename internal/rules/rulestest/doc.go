// Package rulestest reads rule fixtures (testdata/<rule-id>/*.yaml with
// "# want" comments, as go/analysis's analysistest does) for the fixture
// test of package rules and for the end-to-end tests that hold the same
// fixtures against a real API server.
package rulestest
