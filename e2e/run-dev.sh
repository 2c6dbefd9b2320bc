#!/usr/bin/env bash
# Starts the seeded dev control plane and the console against it; Ctrl-C
# stops both. Usage: run-dev.sh BIN_DIR DATA_DIR LISTEN_ADDR
set -euo pipefail

bin=${1:?bin dir} data=${2:?data dir} listen=${3:?listen address}
mkdir -p "$data"
ready="$data/ready.json"
rm -f "$ready"

pids=()
cleanup() {
  trap - INT TERM EXIT
  [ ${#pids[@]} -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

echo "Starting the dev control plane (data: $data, log: $data/devcluster.log)..."
"$bin/devcluster" --data-dir "$data" --seed >"$ready" 2>"$data/devcluster.log" &
pids+=($!)

# The control plane prints one JSON line when it is ready.
until grep -q '"ready":true' "$ready" 2>/dev/null; do
  if ! kill -0 "${pids[0]}" 2>/dev/null; then
    echo "The dev control plane exited; the end of its log:" >&2
    tail -n 30 "$data/devcluster.log" >&2
    exit 1
  fi
  sleep 0.5
done
kubeconfig=$(sed -n 's/.*"kubeconfig":"\([^"]*\)".*/\1/p' "$ready")

"$bin/tabula" --kubeconfig "$kubeconfig" --listen "$listen" &
pids+=($!)

cat <<MSG

  Tabula:      http://$listen/
  kubeconfig:  $kubeconfig
               (export KUBECONFIG=$kubeconfig; kubectl get pods -A)

  Press Ctrl-C to stop both.

MSG
wait -n "${pids[@]}"
