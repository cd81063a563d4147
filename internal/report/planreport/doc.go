// Package planreport writes a plan.Report as text, versioned JSON or a
// self-contained HTML page.
package planreport
