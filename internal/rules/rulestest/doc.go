// Package rulestest reads rule fixtures (testdata/<rule-id>/*.yaml with
// "# want" comments, as go/analysis's analysistest does) and runs a rule
// over them (Run, Runner.Run: findings, firing and quiet fixtures, fix
// goldens), for the fixture test of package rules and for the end-to-end
// tests that hold the same fixtures against a real API server.
package rulestest
