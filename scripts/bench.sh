#!/usr/bin/env bash
# `npm run bench` and `npm run soak`: start the test stack when it is not running (and stop it
# again afterwards), load its environment, build the service (the API is measured compiled, as
# `npm start` runs it), run the TypeScript script named first with the rest
# of the arguments. Export your STACK_*_PORT variables first when several stacks share a machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

script=$1
shift
bash scripts/install.sh
started=""
# The status is read whole first: `grep -q` ending the pipe early would fail it under pipefail.
status=$(bash scripts/stack.sh status test)
if grep -q stopped <<<"$status" || [ ! -f .env.test ]; then
  bash scripts/stack.sh start test
  started=1
fi
[ -n "$started" ] && trap 'bash scripts/stack.sh stop test' EXIT
load_env_file .env.test
# The API runs compiled, as `npm start` runs it.
npm run -s build
npx tsx "$script" "$@"
