# Causeway's build entry points. `make test` is what CI runs.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
PROTOC_GEN_GO_VERSION = v1.36.11
PROTOC_GEN_GO_GRPC_VERSION = v1.6.2

.PHONY: test vet staticcheck unit seeds seeds-long bench proto demo build docs docker-image docker-test chromium

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
	$(GO) test -count=1 -timeout 20m -run 'IsCaught|HeavyLoad|StaysAvailable|Shrink|RandomizedFailureReplay|WANRoundsOfEveryOperation' ./bench/

## seeds-long: the zone-fault runs of the Karma family over SEEDS seeds
## (200) with self-checks and quiescence invariants: a failing seed prints
## its shrunk replay. Not part of make test (about 20 CPU-minutes; 35
## minutes on 2 busy cores).
SEEDS ?= 200
seeds-long:
	CAUSEWAY_SEEDS=$(SEEDS) $(GO) test -count=1 -timeout 180m -tags causeway_invariants -v -run 'ZoneFaults' ./bench/

## bench: the Go benchmarks (simulator events/s, checker ops/s, storage).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

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

## fuzz: every fuzz target (func FuzzXxx in a _test.go file) for FUZZTIME
## each, one at a time on one worker. A failure stops the run and leaves
## its input in the package's testdata/fuzz, which plain `go test` replays.
FUZZTIME ?= 10s
FUZZMINIMIZETIME ?= 5s
.PHONY: fuzz
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "== $$name in $$(dirname $$f)"; \
			$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) \
				-fuzzminimizetime $(FUZZMINIMIZETIME) -parallel 1 $$(dirname $$f); \
		done; \
	done
