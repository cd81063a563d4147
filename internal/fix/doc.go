// Package fix applies rule fixes to manifest text and to live objects.
//
// A rule expresses a fix as field edits (set, remove, append) on API-style
// paths. Here those edits become text edits on the YAML the user wrote:
// lines are inserted or deleted and single values replaced, guided by the
// positions yaml.v3 reports, and nothing else is touched, so comments, key
// order, indentation, quoting, flow style and document separators survive,
// and a document without an edit stays byte-identical. Each edit re-parses
// the document, so edits never work from stale positions. The same edits
// become an RFC 6902 JSON patch for the admission webhook (Patch).
package fix
