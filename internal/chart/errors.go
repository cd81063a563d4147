package chart

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
)

// templatePos finds the position text/template puts in its errors:
// "template: c/templates/x.yaml:12:20: executing ...", "parse error at
// (c/templates/x.yaml:3): ...", "execution error at (c/templates/x.yaml:8:12): ...".
var templatePos = regexp.MustCompile(`(?:template: |\()([^\s:()]+):(\d+)(?::(\d+))?`)

// renderError locates a render failure at the template line it names.
func renderError(dir string, err error) *manifest.Error {
	msg := err.Error()
	e := &manifest.Error{File: dir, Msg: "helm template: " + msg, Class: manifest.ErrTemplate, Err: err,
		Hint: "fix the template, or pass the values it needs with --values or --set"}
	m := templatePos.FindStringSubmatch(msg)
	if m == nil {
		return e
	}
	e.File = diskPath(dir, m[1])
	e.Line, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		e.Column, _ = strconv.Atoi(m[3])
	}
	// The position is now the error's; keep only what follows it.
	if i := strings.Index(msg, m[0]); i >= 0 {
		rest := strings.TrimLeft(msg[i+len(m[0]):], "): ")
		if rest != "" {
			e.Msg = "helm template: " + rest
		}
	}
	return e
}
