// Package cli is winkube's command tree: flag parsing, option validation
// and exit codes around the engine, simulator and servers. It is the only
// package that imports cobra.
package cli
