// Package catalogue lists every rule winkube can report, of every family
// (lint, node-config, audit, doctor), in one place: the CLI's rules
// command, the config validator, the docs generator and the policy
// exporter read it, and Validate holds it to the shape every rule needs.
//
// Each family keeps its own list beside the code that runs it
// (rules.Suite, nodeconfig.Checks, audit.NodeRules and audit.Rules,
// doctor.Causes); a value added to one of those lists is in the catalogue.
package catalogue
