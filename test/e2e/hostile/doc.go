// Package hostile runs every newer front-end of the winkube binary (audit,
// doctor, images, nodeconfig validate and generate, simulate, webhook serve
// and certs) against hostile inputs: hung, slow, endless and malformed
// servers on 127.0.0.1, and deep, huge and special files. Each run must end
// within its time budget and its memory budget with a clear error and the
// right exit code.
package hostile
