// Package simulatehtml renders simulate's HTML report in headless Chromium
// and checks what a reader sees: bars, rows, messages and colours.
package simulatehtml
