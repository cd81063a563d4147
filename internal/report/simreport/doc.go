// Package simreport renders a simulation result (simulate.Result) as text
// for people, a versioned JSON SimulationReport, or a self-contained HTML
// page; the colours are the report layer's.
package simreport
