// Package auditreport writes the audit report: text, JSON, SARIF and a self-contained HTML page.
package auditreport
