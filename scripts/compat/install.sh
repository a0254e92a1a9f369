#!/usr/bin/env bash
# Installs the independent readers the Paimon compatibility test
# (connectors/paimon/compat) runs: DuckDB through npm's @duckdb/node-api
# (into scripts/compat/node_modules, ignored by git) for the Parquet data
# files, and the Apache Avro Java library with zstd-jni (Debian packages)
# for the manifests. As root with apt-get it installs node, npm, java and
# the jars when missing; otherwise it installs what it can and the test
# skips the rest, saying why.
set -u
cd "$(dirname "$0")"
need=()
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
[ -f /usr/share/java/avro.jar ] || need+=(libavro-java)
[ -f /usr/share/java/zstd-jni.jar ] || need+=(libzstd-jni-java)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null ||
      echo "compat/install.sh: apt-get install ${need[*]} failed" >&2
  else
    echo "compat/install.sh: missing ${need[*]} (install as root with apt-get)" >&2
  fi
fi
if command -v npm >/dev/null 2>&1 && [ ! -d node_modules/@duckdb/node-api ]; then
  npm install --no-audit --no-fund --silent || echo "compat/install.sh: npm install failed" >&2
fi
