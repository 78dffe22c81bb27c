#!/usr/bin/env bash
# The Python `mcp` client the MCP specs drive toolsmith with (spec/cli/mcp_eras.spec.ts):
# a virtualenv in .cache/py-mcp (git-ignored) with the pinned release. Idempotent: a venv
# that already has the pinned version is left as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."

MCP_VERSION=2.3.0
VENV=.cache/py-mcp

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
  exit 0
fi

# Debian's python3 splits venv (and ensurepip) into python3-venv; install it like .ci/run installs bubblewrap.
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
  else
    echo "python3 -m venv is missing: install it (apt-get install python3-venv)" >&2
    exit 1
  fi
fi

rm -rf "$VENV"
python3 -m venv "$VENV"
# --retries 0: an index this machine cannot reach is skipped at once rather than retried with backoff
# (pip still tries every configured index and find-links location).
"$VENV/bin/pip" install --quiet --disable-pip-version-check --retries 0 "mcp==$MCP_VERSION"
"$VENV/bin/python" -c "import mcp; print('python mcp client', '$MCP_VERSION', 'in $VENV')"
