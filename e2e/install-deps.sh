#!/usr/bin/env bash
# Installs what the end-to-end suite needs, idempotently and offline-friendly:
# Debian's Chromium and the exact playwright-core that playwright-go pins,
# arranged as playwright-go's driver directory.
#
# Usage: e2e/install-deps.sh DRIVER_DIR
set -euo pipefail

driver_dir=${1:?usage: install-deps.sh DRIVER_DIR}
# playwright-go v0.5200.1 pins playwright 1.52.0 (playwrightCliVersion in its run.go).
playwright_version=1.52.0

if ! command -v chromium >/dev/null 2>&1; then
  echo "install-deps: installing Debian chromium" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

cli="$driver_dir/package/cli.js"
if [ ! -f "$cli" ] || [ "$(node "$cli" --version 2>/dev/null)" != "Version $playwright_version" ]; then
  echo "install-deps: installing playwright-core@$playwright_version into $driver_dir" >&2
  mkdir -p "$driver_dir"
  npm install --silent --no-audit --no-fund --no-save --prefix "$driver_dir" "playwright-core@$playwright_version" >/dev/null
  ln -sfn "$(command -v node)" "$driver_dir/node"
  ln -sfn "node_modules/playwright-core" "$driver_dir/package"
fi
echo "install-deps: chromium $(chromium --version 2>/dev/null | awk '{print $2}'), playwright-core $(node "$cli" --version | awk '{print $2}')" >&2
