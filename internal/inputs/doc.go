// Package inputs resolves command-line arguments into the inputs every
// front-end checks: files, folders and stdin as manifest.Inputs reads
// them, Helm charts rendered and kustomizations built in-process.
package inputs
