# winkube

SHELL := bash
GO ?= go

.PHONY: all controlplane test

all: test

# Build (or verify the cached) etcd, kube-apiserver and kube-scheduler that the
# tests run; see hack/build-controlplane.sh. A cold build takes several minutes.
controlplane:
	bash hack/build-controlplane.sh

test: controlplane
	$(GO) test -timeout 60m ./...
