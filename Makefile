# sqlrun — build, test, lint.
#
#   make build   builds bin/sqlrun
#   make test    brings up what the tests need (MariaDB) and runs every test
#   make lint    the lint test: gofmt, go vet, staticcheck, deadcode, go mod tidy,
#                import rules (internal/lint; `make test` runs it too)
#   make fuzz    short fuzz runs of the parser and decoders
#   make bench   the benchmarks behind the README's performance section
#   make bench-scale  keyed state at 1M/5M keys, hashmap vs rocksdb (scripts/bench-scale.sh)
#   make bench-joins  regular join of two 1M-key datagen streams on both state
#                backends; lookup join against MariaDB, cache on and off, and
#                against a Paimon table
#                (scripts/bench-joins.sh)

GO      ?= go
PKGS    ?= ./...
FUZZTIME ?= 10s

.PHONY: build test unit lint fuzz bench bench-scale bench-joins demo soak

build:
	$(GO) build -o bin/sqlrun ./cmd/sqlrun

# test installs mariadb-server when it is missing and we may (root + apt-get),
# the S3-compatible server of the object-store tests (scripts/ensure-s3.sh)
# and the Paimon compatibility test's readers (scripts/compat/install.sh);
# the Go tests start their own throwaway mariadbd on a temp dir and a
# loopback port, so nothing here needs a running service.
test:
	@bash scripts/ensure-mariadb.sh || echo "make test: MariaDB unavailable; tests that need it will skip and say so"
	@bash scripts/ensure-s3.sh || echo "make test: no S3-compatible server; the object-store tests will skip and say so"
	@bash scripts/compat/install.sh || echo "make test: compat readers unavailable; connectors/paimon/compat will skip and say so"
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 30m $(PKGS)
	@$(MAKE) --no-print-directory fuzz FUZZTIME=5s

unit:
	$(GO) test -count=1 $(PKGS)

lint:
	$(GO) test -count=1 -timeout 30m -v -run 'TestLint|TestMatch' ./internal/lint

fuzz:
	@bash scripts/fuzz.sh $(FUZZTIME)

bench:
	@bash scripts/bench.sh

bench-scale:
	@bash scripts/bench-scale.sh

bench-joins:
	@bash scripts/bench-joins.sh

# soak runs the long soak (SOAK_FAULTS=200, SOAK_DURATION=15m unless set);
# `make test` runs its short form (go test ./soak, 54 faults, ~4 min, at most 12).
soak:
	@bash scripts/soak.sh

demo:
	$(GO) run ./cmd/sqlrun -f examples/quickstart.sql
