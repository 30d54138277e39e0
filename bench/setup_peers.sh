#!/usr/bin/env bash
# Set up the peer implementations that bench/peers/run.py measures urlset against.
# Idempotent: safe to run again; it only installs what is missing or differs from the pins.
#   bench/.venv-peers/   Python peers, pinned in bench/peers/requirements.txt
#   bench/node/          sitemap.js (npm "sitemap"), pinned in package.json / package-lock.json
# The project's own venv (.venv) is not touched.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$BENCH/.venv-peers"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV with $("$PYTHON" --version)"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$BENCH/peers/requirements.txt"
"$VENV/bin/python" - <<'PY'
from importlib.metadata import version
import advertools, scrapy, trafilatura, usp, xml_sitemap_writer  # noqa: F401  (imports work)
for dist in ("ultimate-sitemap-parser", "advertools", "scrapy", "trafilatura", "xml-sitemap-writer"):
    print(f"  {dist} {version(dist)}")
PY

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "node/npm not found: the sitemap.js peer will report an error" >&2
    exit 1
fi
# The npm registry may be out of reach: the shared folder keeps sitemap.js's package files.
SHARED_NPM="${URLSET_SHARED:-$BENCH/../../shared}/peers/npm"
if [ -d "$SHARED_NPM" ]; then
    (cd "$BENCH/node" && npm install --offline --no-save --no-audit --no-fund --loglevel=error "$SHARED_NPM"/*.tgz)
else
    (cd "$BENCH/node" && npm install --no-audit --no-fund --loglevel=error)
fi
echo "  sitemap.js $(node -p "require('$BENCH/node/node_modules/sitemap/package.json').version") (node $(node --version))"
echo "peers ready: $VENV/bin/python $BENCH/peers/run.py list"
