#!/usr/bin/env bash
# `npm run lint:spec`: lints both bundled OpenAPI documents with Redocly (recommended rules,
# redocly.yaml) and Spectral (spectral:oas, .spectral.yaml). Errors and warnings both fail; the
# warnings kept on purpose are listed with their reasons in .redocly.lint-ignore.yaml.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

docs=(generated/public.openapi.json generated/dashboard.openapi.json)
status=0

# Redocly exits non-zero on errors only: read its totals to fail on warnings as well.
for doc in "${docs[@]}"; do
  if npx --no-install redocly lint "$doc" --format=json 2>/dev/null | node -e '
    const { totals } = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.exit(totals.errors + totals.warnings === 0 ? 0 : 1);
  '; then
    echo "redocly: $doc: no errors, no warnings"
  else
    npx --no-install redocly lint "$doc" --format=stylish 2>&1 | grep -v '^\s*[║╔╚]'
    echo "redocly: $doc: errors or warnings (see above)"
    status=1
  fi
done

if ! npx --no-install spectral lint "${docs[@]}" --ruleset .spectral.yaml --fail-severity=warn \
  --format=text 2>/dev/null; then
  echo "spectral: errors or warnings in the OpenAPI documents"
  status=1
fi
exit $status
