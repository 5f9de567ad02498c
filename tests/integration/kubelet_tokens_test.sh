#!/usr/bin/env bash
# The simulated kubelets' service-account tokens, as a learner sees them: each pod started with
# the injected kube-api-access volume has its token asked for by its node's kubelet (a
# TokenRequest bound to the pod, as system:node:<node>, in /debug/requests), and a node may ask
# only for tokens bound to pods on it (the Node authorizer and NodeRestriction admission, with
# upstream's words), such a token dying with its pod. Run through with_sandbox.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out() { "$@" 2>&1 || true; }
expect() { [[ $3 == "$2" ]] || fail "$1: want [$2] got [$3]"; }
pki=$(dirname "$KUBECONFIG")/pki

# The TokenRequests of the kubelets, from the request trace: "user code target".
token_requests() {
  kubectl get --raw '/debug/requests?verb=create&resource=serviceaccounts&limit=200' | python3 -c '
import json, sys
for t in json.load(sys.stdin)["items"]:
    if t["subresource"] == "token":
        print(t["user"], t["code"], t["target"])'
}

kubectl create serviceaccount robot >/dev/null
kubectl run web --image=nginx --overrides='{"spec":{"serviceAccountName":"robot"}}' >/dev/null
kubectl wait --for=condition=Ready pod/web --timeout=60s >/dev/null || fail "web not Ready"
node=$(kubectl get pod web -o jsonpath='{.spec.nodeName}')
volume=$(kubectl get pod web -o jsonpath='{.spec.volumes[0].name}')
[[ $volume == kube-api-access-* ]] || fail "no injected volume: $volume"
# (A request refused while the node authorizer has not seen the pod yet is retried: count 201s.)
expect "the kubelet's TokenRequest" \
  "system:node:$node 201 /api/v1/namespaces/default/serviceaccounts/robot/token" \
  "$(token_requests | grep ' 201 .*robot')"
# No token for a pod that mounts none.
kubectl run plain --image=nginx --overrides='{"spec":{"automountServiceAccountToken":false}}' >/dev/null
kubectl wait --for=condition=Ready pod/plain --timeout=60s >/dev/null || fail "plain not Ready"
expect "TokenRequests" 1 "$(token_requests | grep -c ' 201 ')"

# The node's own identity: a client certificate as a kubelet's, signed by the sandbox's CA.
node_kubeconfig() {  # NODE: writes $tmp/NODE.kubeconfig
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/O=system:nodes/CN=system:node:$1" -keyout "$tmp/$1.key" -out "$tmp/$1.csr" 2>/dev/null
  openssl x509 -req -in "$tmp/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 1 -out "$tmp/$1.crt" 2>/dev/null
  cp "$KUBECONFIG" "$tmp/$1.kubeconfig"
  kubectl --kubeconfig "$tmp/$1.kubeconfig" config set-credentials "$1" \
    --client-certificate="$tmp/$1.crt" --client-key="$tmp/$1.key" --embed-certs >/dev/null
  kubectl --kubeconfig "$tmp/$1.kubeconfig" config set-context --current --user="$1" >/dev/null
}
other=node-1
[[ $node == node-1 ]] && other=node-2
node_kubeconfig "$node"
node_kubeconfig "$other"
kn() { kubectl --kubeconfig "$tmp/$node.kubeconfig" "$@"; }
ko() { kubectl --kubeconfig "$tmp/$other.kubeconfig" "$@"; }
uid=$(kubectl get pod web -o jsonpath='{.metadata.uid}')
bound=(--bound-object-kind Pod --bound-object-name web --bound-object-uid "$uid")

# The pod's node gets a token bound to it; it works until the pod goes.
token=$(kn create token robot "${bound[@]}") || fail "the pod's node was refused"
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
as() { kubectl --kubeconfig=/dev/null --server="$server" --certificate-authority="$pki/ca.crt" --token="$token" "$@"; }
expect "whoami with the node's token" system:serviceaccount:default:robot \
  "$(as auth whoami -o jsonpath='{.status.userInfo.username}')"

# Refusals. Another node uses no pod of the account: the Node authorizer has no path to it.
msg=$(out ko create token robot "${bound[@]}")
grep -qF "serviceaccounts \"robot\" is forbidden: User \"system:node:$other\" cannot create resource \"serviceaccounts/token\" in API group \"\" in the namespace \"default\": no relationship found between node '$other' and this object" \
  <<<"$msg" || fail "unrelated node: $msg"
# Once a pod of the account runs there, NodeRestriction still refuses a pod of another node.
kubectl run twin --image=nginx --overrides="{\"spec\":{\"serviceAccountName\":\"robot\",\"nodeName\":\"$other\"}}" >/dev/null
grep -qF 'serviceaccounts "robot" is forbidden: node requested token bound to a pod scheduled on a different node' \
  <<<"$(out ko create token robot "${bound[@]}")" || fail "other node: $(out ko create token robot "${bound[@]}")"
grep -qF 'serviceaccounts "robot" is forbidden: node requested token not bound to a pod' \
  <<<"$(out kn create token robot)" || fail "unbound: $(out kn create token robot)"
grep -qF 'serviceaccounts "robot" is forbidden: node requested token with a pod binding without a uid' \
  <<<"$(out kn create token robot --bound-object-kind Pod --bound-object-name web)" || fail "no uid"
grep -qF 'serviceaccounts "robot" is forbidden: the UID in the bound object reference (0000) does not match the UID in record. The object might have been deleted and then recreated' \
  <<<"$(out kn create token robot --bound-object-kind Pod --bound-object-name web --bound-object-uid 0000)" \
  || fail "stale uid"

# Deleting the pod invalidates the tokens bound to it, the kubelet's as this one.
kubectl delete pod web --wait=true >/dev/null
grep -q Unauthorized <<<"$(out as auth whoami)" || fail "the token outlived its pod"
grep -q 'service account token has been invalidated' <<<"$(kubectl get --raw '/debug/requests?limit=100')" \
  || fail "no invalidation reason in /debug/requests"
echo "kubelet tokens: ok"
