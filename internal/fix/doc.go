// Package fix applies rule fixes to manifest text and to live objects.
//
// A rule expresses a fix as field edits (set, remove, append) on API-style
// paths. Here those edits become text edits on the YAML the user wrote:
// lines are inserted or deleted and single values replaced, guided by the
// positions yaml.v3 reports, and nothing else is touched, so comments, key
// order, indentation, quoting, flow style and document separators survive,
// and a document without an edit stays byte-identical. A file is split
// and each document parsed once, into yaml.v3's located tree; the engine
// lints those trees (manifest.DocumentsInput) and the editor edits from
// them, and an edit that changes a document parses that document again,
// so edits never work from stale positions and no pass reads text twice.
//
// fix edits only text it understands, or refuses. A file's encoding
// (UTF-8 with or without a byte order mark, UTF-16) and each line's break
// (LF, CRLF, CR) are kept; positions are converted from yaml.v3's
// characters to bytes; a value is quoted wherever a plain scalar would be
// misread, and a .json file gets JSON. Documents are the ones
// manifest.Split finds, the numbering lint uses. A node behind a YAML
// anchor or alias, or in a mapping with a merge key, is refused: editing
// it would change other objects. Finally every edited document's tree is
// compared with the object the edits intend (the same edits applied to
// the decoded document); if they differ, nothing of the file is written
// and the edits say why.
//
// Converge is the one fix loop (lint, plan, apply, until nothing changes,
// at most MaxPasses): the CLI and the tests use it, and the webhook's
// per-object loop shares its bound through Rounds. The same edits become an
// RFC 6902 JSON patch for the admission webhook (Patch), all or nothing.
package fix
