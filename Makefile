# Causeway's build entry points. `make test` is what CI runs.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
PROTOC_GEN_GO_VERSION = v1.36.11
PROTOC_GEN_GO_GRPC_VERSION = v1.6.2

.PHONY: test vet staticcheck unit seeds bench proto demo build

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

seeds:
	$(GO) test -count=1 -timeout 20m -run 'RandomFaults|IsCaught|HeavyLoad|StaysAvailable' ./bench/

## bench: the Go benchmarks (simulator events/s, checker ops/s, storage).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

## build: the causeway binary into ./bin.
build:
	$(GO) build -o bin/causeway ./cmd/causeway

demo:
	$(GO) run ./cmd/causeway demo

## proto: regenerate the committed wire code (needs protoc: apt-get install protobuf-compiler).
proto:
	command -v protoc >/dev/null || (apt-get update && apt-get install -y protobuf-compiler)
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	PATH=$(CURDIR)/bin:$$PATH protoc --go_out=. --go_opt=module=github.com/causeway/causeway \
		--go-grpc_out=. --go-grpc_opt=module=github.com/causeway/causeway proto/causeway/*/v1/*.proto
