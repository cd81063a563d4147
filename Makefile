# winkube

SHELL := bash
GO ?= go

.PHONY: all controlplane chromium test docs bench

all: test

# Build (or verify the cached) etcd, kube-apiserver and kube-scheduler that the
# tests run; see hack/build-controlplane.sh. A cold build takes several minutes.
controlplane:
	bash hack/build-controlplane.sh

# Install Debian's chromium when missing: the HTML report test renders in it.
chromium:
	bash hack/ensure-chromium.sh

# Every test: unit, fixtures, fuzz seeds, the real-corpus golden, the
# fidelity test and the webhook end-to-end test against the real control plane.
test: controlplane chromium
	$(GO) test -timeout 60m ./...

# Regenerate docs/rules.md, docs/cli.md and docs/support-matrix.md.
docs:
	$(GO) test ./internal/docs -update

# Benchmarks against peers; figures go to docs/performance.md.
bench:
	bash hack/bench-lint.sh
	bash hack/bench-simulate.sh
	bash hack/bench-webhook.sh
	bash hack/bench-images.sh
