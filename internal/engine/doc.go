// Package engine runs the rule suite over manifests: the one engine behind
// lint, fix, the webhook and audit.
//
// Input is streamed. One goroutine splits files into documents; workers
// parse, decode and check documents in parallel; a collector puts the
// findings back into input order. Memory follows the largest document, not
// the input: an object is dropped once its rules have run, and only small
// summaries (plus Service and RuntimeClass objects) are kept for the rules
// that look across objects. A workload that names a RuntimeClass waits
// until the input is read, so every workload sees every class whatever the
// order of files and of the workers; of two classes with one name, the
// first in input order wins.
//
// Targeting facts are derived once per workload (package target) and
// shared by every rule. Load errors become load-error findings and the rest
// of the input is still checked; a field whose value is an unfilled
// placeholder is load-error's alone, no other rule reports it.
//
// The input is evidence too: the engine counts which Windows taint
// conventions the Windows workloads tolerate and, once the input is read,
// sums that up in one rule.Evidence per run. A rule that needs it holds
// its finding (rule.Pass.Later) and decides it then; only the decision and
// the few fields it keeps wait, not the object. One object alone (the
// webhook's) is never evidence about itself.
package engine
