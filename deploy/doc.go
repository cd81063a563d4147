// Package deploy holds the webhook's plain deployment manifests
// (webhook.yaml); its tests hold them, and the Helm chart in
// charts/winkube-webhook that must render the same objects, to the
// requirements in README.md.
package deploy
