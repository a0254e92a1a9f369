#!/usr/bin/env bash
# Makes sure mariadbd and mariadb-install-db are available for the tests,
# which start their own throwaway server (internal/testutil/mariadb) on a temp
# dir and a loopback port. Installs Debian's mariadb-server with apt-get when
# missing and we run as root; never starts or enables a system service.
# Exit 0 when the binaries are there (or SQLRUN_MYSQL_DSN names a server),
# 1 when they are missing and cannot be installed.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

if [ -n "${SQLRUN_MYSQL_DSN:-}" ]; then
  echo "ensure-mariadb: using SQLRUN_MYSQL_DSN"
  exit 0
fi
if have mariadbd && have mariadb-install-db; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-mariadb: mariadbd missing and cannot install it (needs root and apt-get); MariaDB tests will skip" >&2
  exit 1
fi
echo "ensure-mariadb: installing mariadb-server with apt-get"
export DEBIAN_FRONTEND=noninteractive
# Keep the package's service from starting: tests run their own servers.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
fi
trap '[ "$created_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get update -qq
apt-get install -y -qq mariadb-server >/dev/null
have mariadbd && have mariadb-install-db
