#!/usr/bin/env bash
# make soak: the long soak of the Paimon → MariaDB pipeline (soak/): a
# streaming sqlrun job under a random insert/update/delete workload with
# random faults (kill -9 + --resume, MariaDB restarts, a full disk for the
# checkpoints, Paimon commit conflicts), every row compared after each
# recovery. Bounded by SOAK_FAULTS (default 200) and SOAK_DURATION
# (default 15m); SOAK_SEED replays a run, SOAK_PRODUCERS picks producers.
# CI runs the short form as part of `make test` (go test ./soak).
set -euo pipefail
cd "$(dirname "$0")/.."
export SOAK_FAULTS="${SOAK_FAULTS:-200}"
export SOAK_DURATION="${SOAK_DURATION:-15m}"
bash scripts/ensure-mariadb.sh || echo "make soak: MariaDB unavailable; the soak will skip and say so"
# The soak bounds itself (SOAK_DURATION, and 90 s per catch-up); the go
# test timeout is only a backstop.
exec go test -count=1 -timeout 3h -run '^TestSoak$' -v ./soak
