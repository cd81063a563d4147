# winkube

SHELL := bash
GO ?= go

.PHONY: all controlplane chromium tools kyverno test test-unit fuzz fuzz-targets docs bench

all: test

# Build (or verify the cached) etcd, kube-apiserver, kube-scheduler and kube-controller-manager that the
# tests run; see hack/build-controlplane.sh. A cold build takes several minutes.
controlplane:
	bash hack/build-controlplane.sh

# Install Debian's chromium when missing: the HTML report test renders in it.
chromium:
	bash hack/ensure-chromium.sh

# Install the release and hook tools the distribution tests run (Debian's
# pre-commit, goreleaser from the module proxy); see hack/ensure-tools.sh.
tools:
	bash hack/ensure-tools.sh

# Build (or verify the cached) Kyverno CLI that test/e2e/policy runs the
# exported Kyverno policies with; see hack/build-kyverno.sh. A cold build
# takes long (about 50 minutes on 2 cores), once.
kyverno:
	bash hack/build-kyverno.sh

# Every test: unit, fixtures, fuzz seeds, the real-corpus golden, and under
# test/ the fidelity test and the end-to-end tests against the real control
# plane and headless Chromium.
test: controlplane chromium tools kyverno
	$(GO) test -timeout 60m ./...
	$(MAKE) fuzz-targets FUZZTIME=8s

# Every fuzz target, package:Target. `make test` runs each for FUZZTIME=8s
# (about a minute and a half in all on 2 cores, builds included); `make fuzz`
# runs each for 5 minutes, or as long as FUZZTIME says:
#   make fuzz FUZZTIME=30m
FUZZ_TARGETS := \
	./internal/manifest:FuzzDecode \
	./internal/manifest:FuzzFastParse \
	./internal/manifest:FuzzSplit \
	./internal/engine:FuzzEngine \
	./internal/webhook:FuzzReview \
	./internal/fix:FuzzFixRoundTrip \
	./internal/nodeconfig:FuzzParseValidate \
	./internal/nodeconfig/generate:FuzzGenerate \
	./internal/cluster:FuzzLoad \
	./internal/report:FuzzClean \
	./internal/chart:FuzzLineMap \
	./internal/cloudprofile:FuzzScript \
	./internal/cloudprofile:FuzzTerraform \
	./internal/cloudprofile:FuzzBicep \
	./internal/cloudprofile:FuzzYAMLFormats
FUZZTIME ?= 5m

fuzz: fuzz-targets

fuzz-targets:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t##*:} ($(FUZZTIME))"; \
		$(GO) test $${t%%:*} -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME); \
	done

# The product's own tests: no server, no browser.
test-unit:
	$(GO) test ./internal/... ./cmd/...

# Regenerate docs/rules.md, docs/cli.md and docs/support-matrix.md.
docs:
	$(GO) test ./internal/docs -update

# Benchmarks against peers; figures go to docs/performance.md.
bench:
	bash hack/bench-lint.sh
	bash hack/bench-simulate.sh
	bash hack/bench-webhook.sh
	bash hack/bench-images.sh
