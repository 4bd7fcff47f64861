#!/usr/bin/env bash
# Rebuild ../sigma-graphology.min.js and ../licenses/ from the exact versions in package-lock.json (npm registry).
# Works in a temporary copy, so no node_modules is left in the package. Needs node >= 18 and npm.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)"
out="$(dirname "$src")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$src/package.json" "$src/package-lock.json" "$src/entry.mjs" "$tmp/"
cd "$tmp"
npm ci --no-audit --no-fund --loglevel=error
banner="/*! kgkit explorer renderer: sigma 3.0.3, graphology 0.26.0, graphology-utils 2.5.2, events 3.3.0 (all MIT; licenses/ beside this file). Built by src/build.sh with esbuild 0.28.2. */"
npx --no-install esbuild entry.mjs --bundle --minify --format=iife --global-name=KGKIT_SIGMA --target=es2019 \
  --legal-comments=none --charset=utf8 "--banner:js=$banner" --outfile="$out/sigma-graphology.min.js"
mkdir -p "$out/licenses"
cp node_modules/sigma/LICENSE.txt "$out/licenses/sigma.txt"
cp node_modules/graphology/LICENSE.txt "$out/licenses/graphology.txt"
cp node_modules/graphology-utils/LICENSE.txt "$out/licenses/graphology-utils.txt"
cp node_modules/events/LICENSE "$out/licenses/events.txt"
sha256sum "$out/sigma-graphology.min.js"
