#!/usr/bin/env bash
# Installs what the end-to-end suite needs, idempotently and offline-friendly:
# Debian's Chromium and the exact playwright-core that playwright-go pins,
# arranged as playwright-go's driver directory, and axe-core (the
# accessibility checks the Playwright tests inject) in the same node_modules.
#
# Usage: e2e/install-deps.sh DRIVER_DIR
set -euo pipefail

driver_dir=${1:?usage: install-deps.sh DRIVER_DIR}
# playwright-go v0.5200.1 pins playwright 1.52.0 (playwrightCliVersion in its run.go).
playwright_version=1.52.0
# Pinned exactly: a new axe release adds rules, and the suite fails on them.
axe_version=4.14.1

if ! command -v chromium >/dev/null 2>&1; then
  echo "install-deps: installing Debian chromium" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

cli="$driver_dir/package/cli.js"
axe_pkg="$driver_dir/node_modules/axe-core/package.json"
installed_axe() { node -p "require(require('path').resolve(process.argv[1])).version" "$axe_pkg" 2>/dev/null || true; }
if [ ! -f "$cli" ] || [ "$(node "$cli" --version 2>/dev/null)" != "Version $playwright_version" ] ||
  [ "$(installed_axe)" != "$axe_version" ]; then
  echo "install-deps: installing playwright-core@$playwright_version and axe-core@$axe_version into $driver_dir" >&2
  mkdir -p "$driver_dir"
  # One command for both: npm prunes what a --no-save install does not name.
  npm install --silent --no-audit --no-fund --no-save --prefix "$driver_dir" \
    "playwright-core@$playwright_version" "axe-core@$axe_version" >/dev/null
  ln -sfn "$(command -v node)" "$driver_dir/node"
  ln -sfn "node_modules/playwright-core" "$driver_dir/package"
fi
echo "install-deps: chromium $(chromium --version 2>/dev/null | awk '{print $2}'), playwright-core $(node "$cli" --version | awk '{print $2}'), axe-core $(installed_axe)" >&2
