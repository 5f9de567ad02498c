#!/usr/bin/env bash
# Bearer tokens the API server refuses, each checked with curl: a 401 with upstream's Unauthorized
# Status, and the server still answering the next request. Garbage, bad base64, alg "none", a
# tampered signature, an oversized token, an expired one (signed with the server's own key, so
# that only its time is wrong), another audience, and tokens bound to a deleted pod or secret.
set -euo pipefail
source "$(dirname "$0")/serve_lib.sh"
out=$tmp/serve.out

# The server's signing key is ours, to sign tokens with a chosen expiry.
openssl genrsa -traditional -out "$tmp/sa.key" 2048 2>/dev/null
openssl rsa -in "$tmp/sa.key" -pubout -out "$tmp/sa.pub" 2>/dev/null
serve_ready ready --service-account-signing-key-file "$tmp/sa.key" \
  --service-account-key-file "$tmp/sa.pub" --container-start-delay=200ms --container-stop-delay=200ms
expect() { [[ $3 == "$2" ]] || fail "$1: want [$2] got [$3]"; }
path=/api/v1/namespaces/default/configmaps
unauthorized='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
# get TOKEN: "CODE BODY" of a GET of $path with the token (sent from a file: tokens may be long).
get() {
  printf 'Authorization: Bearer %s\n' "$1" >"$tmp/header"
  curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" -H @"$tmp/header" "$url$path"
  printf ' %s' "$(jq -c . "$tmp/body" 2>/dev/null || cat "$tmp/body")"
}
# refused NAME TOKEN: a 401 with the Status, then a good token still works.
refused() {
  expect "$1" "401 $unauthorized" "$(get "$2")"
  expect "after $1" 200 "$(get "$good" | cut -d' ' -f1)"
}
# sign CLAIMS_JSON: an RS256 token with the server's key (kid as kube-apiserver derives it).
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
kid=$(openssl rsa -pubin -in "$tmp/sa.pub" -outform DER 2>/dev/null | openssl dgst -sha256 -binary | b64url)
sign() {
  local input
  input="$(printf '{"alg":"RS256","kid":"%s"}' "$kid" | b64url).$(printf '%s' "$1" | b64url)"
  printf '%s.%s' "$input" "$(printf '%s' "$input" | openssl dgst -sha256 -sign "$tmp/sa.key" | b64url)"
}
claims() { cut -d. -f2 <<<"$1" | tr -- '-_' '+/' | base64 -d 2>/dev/null; }

kubectl create rolebinding default-view --clusterrole=view --serviceaccount=default:default >/dev/null
good=$(kubectl create token default)
expect "a good token" 200 "$(get "$good" | cut -d' ' -f1)"
# The signing above is right: the good token's claims signed anew are accepted.
payload=$(python3 -c 'import base64,sys; p=sys.argv[1].split(".")[1]; print(base64.urlsafe_b64decode(p+"="*(-len(p)%4)).decode())' "$good")
expect "claims signed here" 200 "$(get "$(sign "$payload")" | cut -d' ' -f1)"

refused garbage 'not-a-token'
refused "three garbage parts" 'a.b.c'
refused "bad base64" "$(cut -d. -f1 <<<"$good").%%%\$\$\$.$(cut -d. -f3 <<<"$good")"
refused "alg none" "$(printf '{"alg":"none","kid":"%s"}' "$kid" | b64url).$(cut -d. -f2 <<<"$good")."
refused "alg HS256 keyed with the public key" \
  "$(printf '{"alg":"HS256"}' | b64url).$(cut -d. -f2 <<<"$good").$(printf x | openssl dgst -sha256 -hmac "$(cat "$tmp/sa.pub")" -binary | b64url)"
sig=$(cut -d. -f3 <<<"$good")
flipped=$([[ ${sig:10:1} == A ]] && echo B || echo A)
refused "tampered signature" "$(cut -d. -f1-2 <<<"$good").${sig:0:10}${flipped}${sig:11}"
refused "tampered claims" "$(cut -d. -f1 <<<"$good").$(sed 's/"default"/"kube-system"/g' <<<"$payload" | b64url).$sig"
refused "60 KB token" "$(head -c 60000 /dev/zero | tr '\0' A).$(cut -d. -f2- <<<"$good")"
now=$(date +%s)
expired=$(python3 -c 'import json,sys; c=json.loads(sys.argv[1]); n=int(sys.argv[2]); c.update(iat=n-7200, nbf=n-7200, exp=n-3600); print(json.dumps(c))' "$payload" "$now")
refused expired "$(sign "$expired")"
refused "other audience" "$(kubectl create token default --audience other)"
other_issuer=$(sed 's#"iss":"[^"]*"#"iss":"https://elsewhere.example"#' <<<"$payload")
refused "other issuer" "$(sign "$other_issuer")"

# A header field longer than the server can hold: 431, and the server goes on.
python3 - "$url" "$ca" <<'PY' || fail "oversized header"
import http.client, ssl, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPSConnection(u.hostname, u.port, context=ssl.create_default_context(cafile=sys.argv[2]), timeout=20)
c.request("GET", "/api", headers={"Authorization": "Bearer " + "A" * 200000})
r = c.getresponse()
body = r.read().decode()
assert r.status == 431 and '"message":"the request headers are too large"' in body, (r.status, body)
PY
expect "after an oversized header" 200 "$(get "$good" | cut -d' ' -f1)"

# Tokens bound to objects that go: refused once the object is deleted.
kubectl run web --image=nginx --restart=Never >/dev/null
kubectl create secret generic anchor --from-literal=a=b >/dev/null
pod_token=$(kubectl create token default --bound-object-kind Pod --bound-object-name web)
secret_token=$(kubectl create token default --bound-object-kind Secret --bound-object-name anchor)
expect "pod-bound token" 200 "$(get "$pod_token" | cut -d' ' -f1)"
expect "secret-bound token" 200 "$(get "$secret_token" | cut -d' ' -f1)"
kubectl delete pod web --wait=true >/dev/null
kubectl delete secret anchor >/dev/null
refused "bound to a deleted pod" "$pod_token"
refused "bound to a deleted secret" "$secret_token"
# A new pod of the same name does not revive it (another uid).
kubectl run web --image=nginx --restart=Never >/dev/null
refused "bound to a pod of the same name" "$pod_token"
expect "ready" 200 "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" -H "Authorization: Bearer $good" "$url/readyz")"
echo "token rejections: ok"
