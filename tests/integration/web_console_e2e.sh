#!/usr/bin/env bash
# One suite of the web console's end-to-end browser test (console/web/e2e/SUITE.e2e.mjs) against
# the sandbox with_sandbox.sh started: builds the login URL from its ready file (the web address,
# and the token next to the CA file) and runs the suite with node from the source tree.
#   with_sandbox.sh web_console_e2e.sh SUITE
set -euo pipefail
suite=${1:?usage: web_console_e2e.sh SUITE (web_console, editing, browsing, loopback, users)}
ready=${KS_READY_FILE:?KS_READY_FILE must name the ready file}
web_dir=$(cd "$(dirname "$0")/../../console/web" && pwd)
read -r web ca < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["web"], r["caFile"])' "$ready")
token=$(cat "$(dirname "$ca")/web-console.token")
cd "$web_dir"
KS_WEB_LOGIN="${web}login?token=${token}" exec node "e2e/${suite}.e2e.mjs"
