#!/usr/bin/env bash
# Client certificates the way a learner gets them, with kubectl 1.32 and the openssl CLI:
# a key and a CertificateSigningRequest for the kubernetes.io/kube-apiserver-client signer,
# `kubectl certificate approve`, the certificate the csrsigning controller writes to
# status.certificate, and a kubeconfig with it that `kubectl auth whoami` knows as the request's
# CN and O; requests with server usages fail with the signer's condition, pending and denied ones
# stay unsigned, and v1 refuses the legacy-unknown signer. Run through with_sandbox.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
admin=$KUBECONFIG
data_dir=$(dirname "$admin")
out() { "$@" 2>&1 || true; }

# Waits (up to 30 s) until jsonpath $2 of CSR $1 is not empty; prints it.
wait_for() {
  local value=""
  for _ in $(seq 150); do
    value=$(kubectl get csr "$1" -o jsonpath="$2")
    [[ -n $value ]] && { echo "$value"; return 0; }
    sleep 0.2
  done
  return 1
}

# A key and a request for CN=carol, O=devs, O=qa, as a CertificateSigningRequest.
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -subj "/O=devs/O=qa/CN=carol" -keyout "$tmp/carol.key" -out "$tmp/carol.csr" 2>/dev/null ||
  fail "carol's key and request"
csr_yaml() {  # name usages [expirationSeconds]
  cat <<YAML
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: $1
spec:
  request: $(base64 -w0 "$tmp/carol.csr")
  signerName: kubernetes.io/kube-apiserver-client
  usages: $2
${3:+  expirationSeconds: $3}
YAML
}
csr_yaml carol '[digital signature, key encipherment, client auth]' 3600 >"$tmp/csr.yaml"
kubectl create -f "$tmp/csr.yaml" >/dev/null || fail "create csr"
[[ $(kubectl get csr carol -o jsonpath='{.spec.username}') == kube-sandbox-admin ]] ||
  fail "requester: $(kubectl get csr carol -o yaml)"
grep -qE '^carol +[0-9a-z]+ +kubernetes.io/kube-apiserver-client +kube-sandbox-admin +60m +Pending$' \
  <<<"$(kubectl get csr carol --no-headers)" || fail "pending row: $(kubectl get csr carol)"
sleep 1
[[ -z $(kubectl get csr carol -o jsonpath='{.status.certificate}') ]] || fail "signed unapproved"

[[ $(kubectl certificate approve carol) == \
  'certificatesigningrequest.certificates.k8s.io/carol approved' ]] || fail "approve"
cert=$(wait_for carol '{.status.certificate}') || fail "no certificate: $(kubectl get csr carol -o yaml)"
base64 -d <<<"$cert" >"$tmp/carol.crt"
grep -qE '^carol .* Approved,Issued$' <<<"$(kubectl get csr carol --no-headers)" ||
  fail "issued row: $(kubectl get csr carol)"
[[ $(kubectl get csr carol -o jsonpath='{.status.conditions[0].reason}') == KubectlApprove ]] ||
  fail "approval condition"
openssl verify -CAfile "$data_dir/pki/ca.crt" "$tmp/carol.crt" >/dev/null || fail "verify"
text=$(openssl x509 -in "$tmp/carol.crt" -noout -text)
grep -q 'TLS Web Client Authentication' <<<"$text" || fail "client auth: $text"
# 3600 s asked, no backdating at the end of a certificate under 8 hours: 65 minutes in all.
start=$(date -d "$(openssl x509 -in "$tmp/carol.crt" -noout -startdate | cut -d= -f2)" +%s)
end=$(date -d "$(openssl x509 -in "$tmp/carol.crt" -noout -enddate | cut -d= -f2)" +%s)
(( end - start == 3900 )) || fail "validity $((end - start)) s"

cp "$admin" "$tmp/carol.kubeconfig"
kc() { kubectl --kubeconfig "$tmp/carol.kubeconfig" "$@"; }
kc config set-credentials carol --client-certificate="$tmp/carol.crt" \
  --client-key="$tmp/carol.key" --embed-certs >/dev/null
kc config set-context --current --user=carol >/dev/null
who=$(kc auth whoami)
grep -qE '^Username +carol$' <<<"$who" || fail "whoami: $who"
grep -qE '^Groups +\[devs qa system:authenticated\]$' <<<"$who" || fail "groups: $who"

# Usages the signer does not allow: a Failed condition with the signer's reason, no certificate.
csr_yaml server '[server auth, client auth]' >"$tmp/server.yaml"
kubectl create -f "$tmp/server.yaml" >/dev/null || fail "create server csr"
kubectl certificate approve server >/dev/null || fail "approve server"
msg=$(wait_for server '{.status.conditions[?(@.type=="Failed")].message}') ||
  fail "no Failed condition: $(kubectl get csr server -o yaml)"
[[ $msg == 'invalid usage for client certificate: server auth' ]] || fail "failed message: $msg"
[[ $(kubectl get csr server -o jsonpath='{.status.conditions[?(@.type=="Failed")].reason}') == \
  SignerValidationFailure ]] || fail "failed reason"
[[ -z $(kubectl get csr server -o jsonpath='{.status.certificate}') ]] || fail "server signed"

# Denied stays unsigned; the API refuses what v1 does not allow.
csr_yaml denied '[client auth]' >"$tmp/denied.yaml"
kubectl create -f "$tmp/denied.yaml" >/dev/null || fail "create denied"
kubectl certificate deny denied >/dev/null || fail "deny"
grep -qE '^denied .* Denied$' <<<"$(kubectl get csr denied --no-headers)" || fail "denied row"
sed 's/kube-apiserver-client/legacy-unknown/' "$tmp/denied.yaml" | sed 's/name: denied/name: legacy/' \
  >"$tmp/legacy.yaml"
grep -qF 'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version' \
  <<<"$(out kubectl create -f "$tmp/legacy.yaml")" || fail "legacy signer: $(out kubectl create -f "$tmp/legacy.yaml")"
[[ -z $(kubectl get csr denied -o jsonpath='{.status.certificate}') ]] || fail "denied signed"

# Admission: no system:masters through this signer; approving needs "approve" on the signer.
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -subj "/O=system:masters/CN=eve" -keyout "$tmp/eve.key" -out "$tmp/eve.csr" 2>/dev/null ||
  fail "eve's request"
sed "s|$(base64 -w0 "$tmp/carol.csr")|$(base64 -w0 "$tmp/eve.csr")|; s/name: denied/name: eve/" \
  "$tmp/denied.yaml" >"$tmp/eve.yaml"
refusal=$(out kubectl create -f "$tmp/eve.yaml")
[[ $refusal == 'Error from server (Forbidden): error when creating "'"$tmp/eve.yaml"'": certificatesigningrequests.certificates.k8s.io "eve" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed' ]] ||
  fail "system:masters: $refusal"
csr_yaml pending '[client auth]' >"$tmp/pending.yaml"
kubectl create -f "$tmp/pending.yaml" >/dev/null || fail "create pending"
kubectl create clusterrole csr-approver --verb=get,list,watch --resource=certificatesigningrequests \
  >/dev/null
kubectl patch clusterrole csr-approver --type=json -p '[{"op":"add","path":"/rules/-","value":
  {"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests/approval"],
   "verbs":["update"]}}]' >/dev/null
kubectl create clusterrolebinding carol-approves --clusterrole=csr-approver --user=carol >/dev/null
refusal=$(out kc certificate approve pending)
[[ $refusal == *'certificatesigningrequests.certificates.k8s.io "pending" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"'* ]] ||
  fail "approve without the signer: $refusal"
kubectl create -f - >/dev/null <<'YAML' || fail "signer-approver role"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: signer-approver}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [signers]
  resourceNames: ["kubernetes.io/*"]
  verbs: [approve]
YAML
kubectl create clusterrolebinding carol-signer --clusterrole=signer-approver --user=carol >/dev/null
kc certificate approve pending >/dev/null || fail "approve with the signer's domain"
wait_for pending '{.status.certificate}' >/dev/null || fail "pending not signed"

echo "certificates: ok"
