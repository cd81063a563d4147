// Package htmldom finds elements, attributes and text in a parsed HTML
// page, for the tests of the HTML reports.
package htmldom
