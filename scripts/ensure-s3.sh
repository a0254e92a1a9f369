#!/usr/bin/env bash
# Makes sure an S3-compatible server is there for the object-store tests
# (internal/testutil/s3server): versitygw's POSIX gateway, built from its Go
# module into ${XDG_CACHE_HOME:-~/.cache}/sqlrun/versitygw-<version>/. Tests
# start their own throwaway gateway on a loopback port and a temp dir.
# Exit 0 when it is there, 1 when it cannot be built (the S3 tests then
# skip and say so).
set -euo pipefail
version=v1.8.0 # keep in step with internal/testutil/s3server.Version
if [ -n "${SQLRUN_S3_SERVER:-}" ]; then
  exit 0
fi
dir="${XDG_CACHE_HOME:-$HOME/.cache}/sqlrun/versitygw-$version"
if [ -x "$dir/versitygw" ]; then
  exit 0
fi
echo "ensure-s3: building versitygw $version (the S3 tests' server) into $dir"
mkdir -p "$dir"
# Outside this module, so its dependencies never enter sqlrun's go.mod.
cd "$(mktemp -d)"
GOFLAGS= GOBIN="$dir" go install "github.com/versity/versitygw/cmd/versitygw@$version"
