# Causeway's build entry points. `make test` is what CI runs.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
PROTOC_GEN_GO_VERSION = v1.36.11
PROTOC_GEN_GO_GRPC_VERSION = v1.6.2

.PHONY: test vet staticcheck unit seeds seeds-long bench proto demo build docs docker-image docker-test docker-nemesis chromium torture-live torture

## test: vet + staticcheck + every test under the race detector, then the
## randomized simulation tests over all their seeds without it (the race
## detector slows the simulator tenfold, so under -race they run 6 seeds).
test: vet staticcheck unit seeds

vet:
	$(GO) vet ./...

staticcheck:
	$(STATICCHECK) ./...

unit:
	$(GO) test -race -count=1 -timeout 20m ./...

## seeds: the randomized runs; the small-key-space ones with the protocols'
## self-checks compiled in (-tags causeway_invariants, internal/invariants:
## karma's about 1.7x slower), the heavy-load ones without (karma's checks
## walk a node's whole state after every input).
seeds:
	$(GO) test -count=1 -timeout 20m -tags causeway_invariants -run 'RandomFaults|ZoneFaults' ./bench/
	$(GO) test -count=1 -timeout 20m -run 'IsCaught|HeavyLoad|StaysAvailable|Shrink|RandomizedFailureReplay|WANRoundsOfEveryOperation|AvailabilityClaimsLive|AnswersAfterRestartThenPartition|NearItsBound|NearestReplica|TortureFindsPlantedBug|TortureSmallRunPasses|ConvergesAfterLongFaults|KeepsUpWithAOneDCGroup' ./bench/

## seeds-long: the zone-fault runs of the Karma family over SEEDS seeds
## (200) with self-checks and quiescence invariants: a failing seed prints
## its shrunk replay. Not part of make test (about 20 CPU-minutes; 35
## minutes on 2 busy cores).
SEEDS ?= 200
seeds-long:
	CAUSEWAY_SEEDS=$(SEEDS) $(GO) test -count=1 -timeout 180m -tags causeway_invariants -v -run 'ZoneFaults' ./bench/

## bench: the Go benchmarks (storage, workload, checker at 1M), then the
## simulator's and the checker's figures, each printed last as a ratio to
## its reference measured in the same run, so that a regression shows on a
## shared machine: ratio-to-noop is the simulator's messages per
## CPU-second (cops, the demo's configuration) over the no-op relay's on
## the same topology; ratio-4M/100k is the checker's CPU per operation at
## 4M operations over that at 100k (linear: 1), beside its bytes per
## operation held at 4M. docs/performance.md has the figures and targets.
RATIOS = 'BenchmarkSimulator$$|BenchmarkCheckScaling$$'
bench:
	$(GO) test -run '^$$' -bench . -skip $(RATIOS) -benchtime 3x ./...
	@out=$$(mktemp) && $(GO) test -run '^$$' -bench $(RATIOS) -benchtime 1x ./bench/ ./check/ > $$out; rc=$$?; \
		awk '{print} /^Benchmark/ {for (i = 3; i < NF; i++) if ($$(i+1) ~ /^(ratio|bytes\/op@|msgs\/op$$)/) r = r sprintf("  %-26s %-16s %s\n", $$1, $$(i+1), $$i)} END {printf "ratios to references:\n%s", r}' $$out; \
		rm -f $$out; exit $$rc

## build: the causeway binary into ./bin.
build:
	$(GO) build -o bin/causeway ./cmd/causeway

demo:
	$(GO) run ./cmd/causeway demo

## chromium: install Debian's Chromium when no Chromium is on PATH: the
## headless browser that check's TestHTMLInChromium opens `check --html`
## pages in (without it that test skips; .ci/run installs it and sets
## CAUSEWAY_REQUIRE_CHROMIUM=1 so that it cannot skip there).
chromium:
	command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

## docs: regenerate what docs/ derives from the code: the CLI reference
## (docs/cli), the protocol pages (docs/protocols) and the generated blocks
## of the hand-written pages (package internal/docgen). A test fails while
## docs/ is stale.
docs:
	$(GO) run ./cmd/causeway gen-docs docs

## proto: regenerate the committed wire code (needs protoc: apt-get install protobuf-compiler).
proto:
	command -v protoc >/dev/null || (apt-get update && apt-get install -y protobuf-compiler)
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	PATH=$(CURDIR)/bin:$$PATH protoc --go_out=. --go_opt=module=github.com/causeway/causeway \
		--go-grpc_out=. --go-grpc_opt=module=github.com/causeway/causeway proto/causeway/*/v1/*.proto

## docker-image: the image causeway:dev (FROM scratch, static binaries built
## here; nothing is pulled).
docker-image:
	GO=$(GO) deploy/build-image.sh

## docker-test: the Docker Compose cluster (deploy/compose.yaml) under a
## workload, a killed node and a cut-off DC, checked; needs Docker and
## Compose (v1 or v2). About 2 minutes.
docker-test:
	GO=$(GO) deploy/docker-test.sh

## docker-nemesis: the live nemesis against the Docker Compose cluster
## (deploy/docker-nemesis.sh): `causeway nemesis --docker-project` in a
## container on the cluster's network runs deploy/nemesis.yaml (docker
## kill, start, pause/unpause, network disconnect/connect, a whole DC
## killed) under a checked bench, then reads every acknowledged write back
## from every DC. Needs Docker and Compose (v1 or v2). 43-65 s once the
## image is built (a cold build adds about 3 min on two busy cores).
docker-nemesis:
	GO=$(GO) deploy/docker-nemesis.sh

## torture-live: the live nemesis (package cluster/nemesis, `causeway
## nemesis`) against a real local3 cluster of each of TORTURE_PROTOCOLS:
## cluster up in a fresh directory, the built-in schedule (kill -9,
## SIGSTOP/SIGCONT, restarts, partitions, delay, clock skew; about 20 s)
## under a checked bench, then every acknowledged ack-log write read back
## from every DC; cluster down even on failure. Fails when a protocol loses
## an acknowledged write or fails the checker. Each history and log stays
## in $(TORTURE_DIR)/<protocol>. The ack-log writers are paced (20 puts/s
## each, `causeway nemesis --writer-rate`), so karma's replication keeps up:
## about 20 s (cops) and 33 s (karma, 8-11 s of it the read-back) per
## protocol that passes, 53 s for both on two busy cores; a protocol that
## never shows a write waits out --quiesce (60 s) first.
TORTURE_PROTOCOLS ?= cops karma
TORTURE_DIR ?= .build/torture-live
torture-live:
	$(GO) build -o bin/causeway ./cmd/causeway
	@set -e; rc=0; for p in $(TORTURE_PROTOCOLS); do \
		d=$(TORTURE_DIR)/$$p; rm -rf $$d; mkdir -p $$d; \
		echo "== torture-live: $$p on local3 in $$d"; \
		bin/causeway cluster up --dir $$d --topology local3 --protocol $$p --tls >/dev/null; \
		bin/causeway nemesis --cluster $$d --history $$d/history.jsonl || rc=1; \
		bin/causeway cluster down --dir $$d >/dev/null || rc=1; \
	done; exit $$rc

## torture: `causeway torture` in the simulator over SEEDS seeds of every
## protocol of PROTOCOLS (default all: the causal ones and eventual) under
## the whole nemesis catalogue, without the race detector, on every core.
## Fails when a causal protocol violates causal+ or does not converge, and
## (--require-caught) when eventual is never caught. Failing seeds are shrunk
## and saved in TORTURE_OUT as PROTOCOL-seedN.yaml, each headed by the
## command that replays it; the JSON report is TORTURE_OUT/report.json.
## About 0.5 CPU-s per run: SEEDS=200 (CI) is 1000 runs, about 4 min on two
## free cores; the default 1000 seeds about 20 min.
SEEDS ?= 1000
PROTOCOLS ?= all
TORTURE_OUT ?= .build/torture
torture:
	$(GO) build -o bin/causeway ./cmd/causeway
	@rm -rf $(TORTURE_OUT); mkdir -p $(TORTURE_OUT)
	@echo "== torture: $(PROTOCOLS) × $(SEEDS) seeds; failing seeds' replays in $(TORTURE_OUT)"
	bin/causeway torture --protocol $(PROTOCOLS) --seeds $(SEEDS) --require-caught \
		--out $(TORTURE_OUT) -w json >$(TORTURE_OUT)/report.json

## fuzz: every fuzz target (func FuzzXxx in a _test.go file) for FUZZTIME
## each, one at a time on one worker (.ci/run runs it after make test:
## 15 targets, FUZZTIME each plus one coverage-instrumented build per
## package, which dominates on a busy machine). A failure stops the run and leaves
## its input in the package's testdata/fuzz, which plain `go test` replays.
## FUZZMINIMIZETIME bounds the minimization of every input that finds new
## coverage (and of a failing one) by a count of runs, not a time: a time
## budget was spent whole on each kilobyte-sized YAML input, so topology's
## FuzzParse ran a few dozen inputs in 20 s (about 45,000 with 200x).
## FUZZTIME is a count of inputs too: with a duration, Go 1.26's fuzzing
## coordinator can report "context deadline exceeded" at the deadline with
## no failing input (golang/go#75804, fixed in Go 1.27), which failed CI
## once on topology's FuzzParse. 20000 inputs take 1-20 s per target here.
FUZZTIME ?= 20000x
FUZZMINIMIZETIME ?= 200x
.PHONY: fuzz
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "== $$name in $$(dirname $$f)"; \
			$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) \
				-fuzzminimizetime $(FUZZMINIMIZETIME) -parallel 1 $$(dirname $$f); \
		done; \
	done
