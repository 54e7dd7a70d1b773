#!/usr/bin/env bash
# `npm run demo`: demo data on a running service (see scripts/demo.ts). Reads the service's URLs
# from the environment, else from .env.dev as `npm start` does (variables already set win).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh
if [ -f .env.dev ]; then load_env_file .env.dev; fi
exec npx tsx scripts/demo.ts
