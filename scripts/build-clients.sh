#!/usr/bin/env bash
# Builds what the installation serves at /clients/ (the dashboard role) into dist/clients, when it
# is missing or stale: the SDK and the CLI as npm package tarballs (`npm install <url>` takes
# them), the SDK as one ES module for a page's <script type="module">, and the JSON schema of the
# CLI's definition file. The stamp is a hash of their sources and the lockfile.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=dist/clients
stamp=dist/.clients-stamp
want=$(find sdk/src sdk/package.json sdk/README.md sdk/bundle.ts sdk/tsconfig.json cli/src cli/package.json cli/README.md cli/schema cli/tsconfig.json package-lock.json -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ -f "$out/index.json" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "[build:clients] building the SDK and the CLI into $out"
rm -rf "$out" sdk/dist cli/dist
mkdir -p "$out"
npx tsc -p sdk/tsconfig.json
npx tsc -p cli/tsconfig.json
# --ignore-scripts: packing runs no lifecycle script of either package.
sdk_tgz=$(npm pack ./sdk --pack-destination "$out" --ignore-scripts --loglevel=error | tail -n 1)
cli_tgz=$(npm pack ./cli --pack-destination "$out" --ignore-scripts --loglevel=error | tail -n 1)
npx tsx sdk/bundle.ts "$out/mongobaas.js"
cp cli/schema/project-config.schema.json "$out/project-config.schema.json"
sdk_version=$(node -p "require('./sdk/package.json').version")
cli_version=$(node -p "require('./cli/package.json').version")
cat >"$out/index.json" <<JSON
{
  "sdk": { "version": "$sdk_version", "tarball": "$sdk_tgz", "module": "mongobaas.js" },
  "cli": { "version": "$cli_version", "tarball": "$cli_tgz", "schema": "project-config.schema.json" }
}
JSON
echo "$want" >"$stamp"
