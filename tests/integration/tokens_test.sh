#!/usr/bin/env bash
# Service-account tokens as a user meets them: kubectl create token, the token used with curl and
# kubectl, a bound token dying with its pod, --duration and --audience in the claims, a legacy
# token Secret filled by the token controller, python3-kubernetes with a token, issuer discovery
# verifying a token's signature, hostile tokens, and serve's --service-account-* flags.
set -euo pipefail
source "$(dirname "$0")/serve_lib.sh"
here=$(dirname "$0")
out=$tmp/serve.out

serve_ready ready --container-start-delay=200ms --container-stop-delay=200ms
k() { kubectl "$@"; }
# as TOKEN ARGS...: kubectl with nothing but the token (no client certificate).
as() { local token=$1; shift; kubectl --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$token" "$@"; }
# code TOKEN PATH: the HTTP status of a GET with the token.
code() { curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" -H "Authorization: Bearer $1" "$url$2"; }
# claim TOKEN EXPR: a value of the token's claims, e.g. claim "$t" '["exp"]'
claim() {
  python3 - "$1" "$2" <<'PY'
import base64, json, sys
part = sys.argv[1].split(".")[1]
claims = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
print(eval("claims" + sys.argv[2]))
PY
}
expect() { [[ $3 == "$2" ]] || fail "$1: want [$2] got [$3]"; }
# until_true NAME CMD...: retries CMD (up to 20 s) until it succeeds.
until_true() {
  local name=$1; shift
  for _ in $(seq 1 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  fail "$name"
}

# What the default account may do in its namespace once RBAC is enforced (edit, as a user would
# grant it); whoami and issuer discovery need nothing.
k create rolebinding default-edit --clusterrole=edit --serviceaccount=default:default >/dev/null
ns_path=/api/v1/namespaces/default/configmaps

# kubectl create token, then the token on its own: curl and kubectl auth whoami.
token=$(k create token default)
expect "GET with the token" 200 "$(code "$token" $ns_path)"
who=$(as "$token" auth whoami -o json)
expect "whoami user" system:serviceaccount:default:default \
  "$(jq -r .status.userInfo.username <<<"$who")"
expect "whoami groups" "system:serviceaccounts system:serviceaccounts:default system:authenticated" \
  "$(jq -r '.status.userInfo.groups | join(" ")' <<<"$who")"
expect "whoami credential id" "JTI=$(claim "$token" '["jti"]')" \
  "$(jq -r '.status.userInfo.extra["authentication.kubernetes.io/credential-id"][0]' <<<"$who")"
expect "whoami uid" "$(k get serviceaccount default -o jsonpath='{.metadata.uid}')" \
  "$(jq -r .status.userInfo.uid <<<"$who")"
expect "issuer" https://kubernetes.default.svc.cluster.local "$(claim "$token" '["iss"]')"
expect "default duration" 3600 "$(claim "$token" '["exp"] - claims["iat"]')"

# --duration shows in exp, --audience in aud; a token for another audience is no API token.
short=$(k create token default --duration=15m)
expect "--duration" 900 "$(claim "$short" '["exp"] - claims["iat"]')"
grep -q 'may not specify a duration less than 10 minutes' <<<"$(k create token default --duration=1m 2>&1 || true)" \
  || fail "--duration=1m accepted"
vault=$(k create token default --audience=vault)
expect "--audience" "['vault']" "$(claim "$vault" '["aud"]')"
expect "other audience refused" 401 "$(code "$vault" $ns_path)"
cat >"$tmp/review.yaml" <<YAML
apiVersion: authentication.k8s.io/v1
kind: TokenReview
spec:
  token: $vault
  audiences: [vault]
YAML
review=$(k create -f "$tmp/review.yaml" -o json)
expect "review authenticated" true "$(jq -r .status.authenticated <<<"$review")"
expect "review audiences" vault "$(jq -r '.status.audiences | join(",")' <<<"$review")"
sed -i '/audiences:/d' "$tmp/review.yaml"
expect "review for the API audience" \
  '[invalid bearer token, token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]]' \
  "$(k create -f "$tmp/review.yaml" -o jsonpath='{.status.error}')"

# A token bound to a pod works while the pod lives.
k run web --image=nginx --restart=Never >/dev/null
bound=$(k create token default --bound-object-kind Pod --bound-object-name web)
expect "bound pod claim" web "$(claim "$bound" '["kubernetes.io"]["pod"]["name"]')"
expect "bound token works" 200 "$(code "$bound" $ns_path)"
expect "bound whoami pod" web \
  "$(as "$bound" auth whoami -o jsonpath='{.status.userInfo.extra.authentication\.kubernetes\.io/pod-name[0]}')"
grep -q 'NotFound\|not found' <<<"$(k create token default --bound-object-kind Pod --bound-object-name ghost 2>&1 || true)" \
  || fail "token bound to a missing pod"
k delete pod web --wait=true >/dev/null
expect "bound token after the pod" 401 "$(code "$bound" $ns_path)"
body=$(curl -s --cacert "$ca" -H "Authorization: Bearer $bound" "$url$ns_path")
expect "401 body" '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}' \
  "$(jq -c . <<<"$body")"
grep -q 'service account token has been invalidated' <<<"$(k get --raw '/debug/requests?limit=50')" \
  || fail "the refusal's reason is not in /debug/requests"

# A legacy token Secret gets its token from the token controller.
k create serviceaccount robot >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Secret
metadata:
  name: robot-token
  annotations: {kubernetes.io/service-account.name: robot}
type: kubernetes.io/service-account-token
YAML
until_true "the legacy secret got no token" test -n "$(k get secret robot-token -o jsonpath='{.data.token}')"
legacy=$(k get secret robot-token -o jsonpath='{.data.token}' | base64 -d)
expect "legacy issuer" kubernetes/serviceaccount "$(claim "$legacy" '["iss"]')"
expect "legacy ca.crt" "$(cat "$ca")" "$(k get secret robot-token -o jsonpath='{.data.ca\.crt}' | base64 -d)"
expect "legacy namespace" default "$(k get secret robot-token -o jsonpath='{.data.namespace}' | base64 -d)"
expect "legacy uid annotation" "$(k get sa robot -o jsonpath='{.metadata.uid}')" \
  "$(k get secret robot-token -o jsonpath='{.metadata.annotations.kubernetes\.io/service-account\.uid}')"
expect "legacy whoami" system:serviceaccount:default:robot \
  "$(as "$legacy" auth whoami -o jsonpath='{.status.userInfo.username}')"
until_true "the last-used label was not set" \
  test "$(k get secret robot-token -o jsonpath='{.metadata.labels.kubernetes\.io/legacy-token-last-used}')" = "$(date -u +%F)"
expect "tracking ConfigMap" "$(date -u +%F)" \
  "$(k get configmap -n kube-system kube-apiserver-legacy-service-account-token-tracking -o jsonpath='{.data.since}')"
k delete secret robot-token >/dev/null
expect "legacy token after its secret" 401 "$(code "$legacy" $ns_path)"

# python3-kubernetes with a service-account token, and issuer discovery verifying a token.
/usr/bin/python3 "$here/tokens_client_test.py" "$url" "$ca" "$(k create token default)" \
  || fail "python client with a service-account token"
expect "discovery for anonymous callers" 403 \
  "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" "$url/openid/v1/jwks")"

# Hostile tokens: each a 401, and the server still ready.
none_token="$(printf '{"alg":"none"}' | base64 -w0 | tr '+/' '-_' | tr -d '=').$(cut -d. -f2 <<<"$token")."
forged="$(cut -d. -f1-2 <<<"$token").$(cut -d. -f3 <<<"$short")"
deep="$(cut -d. -f1 <<<"$token").$(python3 -c 'import base64; print(base64.urlsafe_b64encode(b"["*40000).decode().rstrip("="))').x"
for bad in garbage a.b.c "$none_token" "$forged" "$deep" "$token.$token"; do
  expect "hostile token ${bad:0:20}" 401 "$(code "$bad" $ns_path)"
done
expect "ready after hostile tokens" 200 "$(code "$token" /readyz)"

# serve's flags: another issuer (the old one still accepted), audiences, an ECDSA signing key.
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/ec.key" 2>/dev/null
openssl ec -in "$tmp/ec.key" -pubout -out "$tmp/ec.pub" 2>/dev/null
out=$tmp/serve2.out
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready2.json" --headless --nodes 0 \
  --service-account-issuer https://issuer.example --service-account-issuer https://old.example \
  --api-audiences=api.example,other.example --service-account-signing-key-file "$tmp/ec.key" \
  --service-account-key-file "$tmp/ec.pub" --service-account-max-token-expiration 2h >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready2.json"
url=$(json "$tmp/ready2.json" '["url"]')
ca=$(json "$tmp/ready2.json" '["caFile"]')
export KUBECONFIG=$(json "$tmp/ready2.json" '["kubeconfig"]')
ec_token=$(k create token default --duration=10h 2>"$tmp/warning")
grep -q 'requested expiration of 36000 seconds shortened to 7200 seconds' "$tmp/warning" \
  || fail "no warning for the shortened token: $(cat "$tmp/warning")"
expect "flag issuer" https://issuer.example "$(claim "$ec_token" '["iss"]')"
expect "flag audiences" "['api.example', 'other.example']" "$(claim "$ec_token" '["aud"]')"
expect "max expiration" 7200 "$(claim "$ec_token" '["exp"] - claims["iat"]')"
expect "ES256 header" ES256 "$(cut -d. -f1 <<<"$ec_token" | base64 -d 2>/dev/null | jq -r .alg)"
expect "ECDSA token works" system:serviceaccount:default:default \
  "$(as "$ec_token" auth whoami -o jsonpath='{.status.userInfo.username}')"
expect "issuer in discovery" https://issuer.example \
  "$(curl -s --cacert "$ca" -H "Authorization: Bearer $ec_token" "$url/.well-known/openid-configuration" | jq -r .issuer)"
kill "${pids[-1]}"
wait "${pids[-1]}" || true

# Refused flags: kube-apiserver's messages, exit 1.
set +e
bad=$("$bin" serve --ephemeral --secure-port 0 --headless --nodes 0 \
  --service-account-max-token-expiration 10m 2>&1)
status=$?
set -e
expect "bad max expiration exit" 1 "$status"
grep -q 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds' <<<"$bad" \
  || fail "bad max expiration: $bad"
echo "tokens: ok"
