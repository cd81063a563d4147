// Package rules is winkube's rule suite: every check lint, fix, the webhook
// and audit run, listed explicitly in Suite.
package rules
