// Package kustomize builds a kustomization in-process, as kustomize build
// does, into one input whose findings point at the base or overlay file
// each object came from.
package kustomize
