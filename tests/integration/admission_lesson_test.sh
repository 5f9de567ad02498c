#!/usr/bin/env bash
# The fixtures/admission lesson, step by step as its README tells it: a certificate for the
# webhook, webhook.py started, the configurations applied with the certificate as caBundle; a pod
# without a team label refused by the validating webhook, one with it created with the sidecar
# the mutating webhook added, pods elsewhere untouched, the trace naming each plugin, and a
# stopped webhook refusing pods under failurePolicy Fail. Run through with_sandbox.sh with
# `--fixtures fixtures/admission`.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
lesson=$(cd "$(dirname "$0")/../../fixtures/admission" && pwd)
tmp=$(mktemp -d)
hook=
cleanup() {
  [[ -n $hook ]] && kill "$hook" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/webhook.key" -out "$tmp/webhook.crt" 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$lesson/webhook.py" "$tmp/webhook.crt" "$tmp/webhook.key" "$port" 2>"$tmp/webhook.log" &
hook=$!
for _ in $(seq 1 100); do
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
  sleep 0.05
done
sed -e "s/CA_BUNDLE/$(base64 -w0 "$tmp/webhook.crt")/" -e "s/127.0.0.1:8443/127.0.0.1:$port/" \
  "$lesson/webhooks.yaml.in" | k apply -f - >/dev/null

expect "no team label" 'Error from server: admission webhook "team-label.lesson.example.com" denied the request: pods here need a team label' \
  "$(out k run solo -n lesson --image=nginx)"
expect "refused pod not stored" "" "$(k get pods -n lesson -o name)"
expect "labelled pod" "pod/web created" "$(k run web -n lesson --image=nginx --labels=team=blue)"
expect "sidecar added" "web log-agent" "$(k get pod web -n lesson -o jsonpath='{.spec.containers[*].name}')"
expect "sidecar defaulted" "IfNotPresent /dev/termination-log" \
  "$(k get pod web -n lesson -o jsonpath='{.spec.containers[1].imagePullPolicy} {.spec.containers[1].terminationMessagePath}')"
# The trace of web's create names the plugins that acted.
notes=$(k get --raw '/debug/requests?verb=create&resource=pods&limit=1' |
  python3 -c 'import json,sys; print("\n".join(n["text"] for n in json.load(sys.stdin)["items"][0]["notes"] if n["layer"] == "admission"))')
for plugin in "ServiceAccount: set " "MutatingAdmissionWebhook: set spec.containers[1]" "ValidatingAdmissionWebhook: "; do
  grep -qF "$plugin" <<<"$notes" || fail "trace of web's create lacks \"$plugin\": $notes"
done

expect "other namespaces untouched" "pod/plain created" "$(k run plain -n default --image=nginx)"
expect "no sidecar elsewhere" "plain" "$(k get pod plain -n default -o jsonpath='{.spec.containers[*].name}')"

# A webhook that is gone fails every call; failurePolicy Fail refuses the pod.
kill "$hook"
wait "$hook" 2>/dev/null || true
hook=
refused=$(out k run later -n lesson --image=nginx --labels=team=blue)
[[ $refused == *'failed calling webhook "sidecar.lesson.example.com"'* ]] ||
  fail "a stopped webhook: want failed calling webhook, got: $refused"
expect "nothing stored" "pod/web" "$(k get pods -n lesson -o name)"
echo "admission lesson: ok"
