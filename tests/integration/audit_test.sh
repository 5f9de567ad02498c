#!/usr/bin/env bash
# Auditing as a user meets it: serve with --audit-policy-file and --audit-log-path, kubectl
# requests audited at each level (None, Metadata, Request, RequestResponse), omitStages and
# omitManagedFields, a watch's ResponseStarted, the authorization decision and reason of an
# allowed and a forbidden request, a refused token, the Audit-Id header, a policy kube-apiserver
# would refuse, and the log on standard output.
set -euo pipefail
source "$(dirname "$0")/serve_lib.sh"
out=$tmp/serve.out
log=$tmp/logs/audit.log

cat >"$tmp/policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  namespaces: ["quiet"]
- level: Metadata
  namespaces: ["meta"]
  omitStages: ["RequestReceived"]
- level: Request
  namespaces: ["req"]
- level: RequestResponse
  namespaces: ["full"]
  omitManagedFields: true
- level: Metadata
  users: ["nobody"]
  omitStages: ["RequestReceived"]
YAML
echo 'nobody-token,nobody,uid-9,"devs"' >"$tmp/tokens.csv"

# No nodes and no cluster controllers; ClusterRole aggregation (the view role the test binds) runs.
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready.json" --headless \
  --nodes=0 --controllers=clusterrole-aggregation --token-auth-file "$tmp/tokens.csv" \
  --audit-policy-file "$tmp/policy.yaml" --audit-log-path "$log" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready.json"
url=$(json "$tmp/ready.json" '["url"]')
ca=$(json "$tmp/ready.json" '["caFile"]')
export KUBECONFIG=$(json "$tmp/ready.json" '["kubeconfig"]')
# as TOKEN ARGS...: kubectl with nothing but the token (no client certificate).
as() { local token=$1; shift; kubectl --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$token" "$@"; }
expect() { [[ $3 == "$2" ]] || fail "$1: want [$2] got [$3]"; }
# event FILTER: the last audit event jq's FILTER selects, waiting for the writer (up to 10 s).
event() {
  local found
  for _ in $(seq 1 50); do
    found=$(jq -c "select($1)" "$log" 2>/dev/null | tail -1)
    [[ -n $found ]] && { echo "$found"; return 0; }
    sleep 0.2
  done
  fail "no audit event with $1"
}
# count FILTER: how many events jq's FILTER selects now.
count() { jq -c "select($1)" "$log" | wc -l; }
of() { jq -r "$1" <<<"$2"; }

[[ $(stat -c %a "$log") == 600 && $(stat -c %a "$tmp/logs") == 700 ]] \
  || fail "the log is not 0600 in a 0700 folder"
for ns in quiet meta req full; do kubectl create namespace $ns >/dev/null; done

# None: nothing is written for the quiet namespace.
kubectl create configmap a -n quiet --from-literal=k=v >/dev/null
# Metadata, RequestReceived omitted: one ResponseComplete, no objects; the created object's
# name completes objectRef.
kubectl create configmap b -n meta --from-literal=k=v >/dev/null
e=$(event '.objectRef.namespace == "meta" and .verb == "create"')
expect "metadata level" Metadata "$(of .level "$e")"
expect "metadata stage" ResponseComplete "$(of .stage "$e")"
expect "metadata objectRef" '{"resource":"configmaps","namespace":"meta","name":"b","apiVersion":"v1"}' \
  "$(of '.objectRef | tojson' "$e")"
expect "metadata user" kube-sandbox-admin "$(of .user.username "$e")"
expect "metadata status" '{"metadata":{},"code":201}' "$(of '.responseStatus | tojson' "$e")"
expect "metadata has no objects" "false false" \
  "$(of '[has("requestObject"), has("responseObject")] | join(" ")' "$e")"
expect "admin's decision" allow "$(of '.annotations["authorization.k8s.io/decision"]' "$e")"
expect "system:masters gives no reason" '' "$(of '.annotations["authorization.k8s.io/reason"]' "$e")"
expect "RequestReceived omitted" 0 "$(count '.objectRef.namespace == "meta" and .stage == "RequestReceived"')"
[[ $(of .userAgent "$e") == kubectl/* ]] || fail "userAgent $(of .userAgent "$e")"
expect "sourceIPs" 127.0.0.1 "$(of '.sourceIPs | join(",")' "$e")"
[[ $(of .stageTimestamp "$e") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$ ]] \
  || fail "stageTimestamp $(of .stageTimestamp "$e")"

# Request: both stages, the request object, no response object.
kubectl create configmap c -n req --from-literal=k=v >/dev/null
e=$(event '.objectRef.namespace == "req" and .verb == "create" and .stage == "ResponseComplete"')
received=$(event '.objectRef.namespace == "req" and .verb == "create" and .stage == "RequestReceived"')
expect "same audit ID" "$(of .auditID "$received")" "$(of .auditID "$e")"
expect "RequestReceived time" "$(of .requestReceivedTimestamp "$received")" "$(of .stageTimestamp "$received")"
expect "request object" v "$(of .requestObject.data.k "$e")"
expect "request level has no response" false "$(of 'has("responseObject")' "$e")"

# RequestResponse with omitManagedFields: the response object without managedFields.
kubectl create configmap d -n full --from-literal=k=v >/dev/null
e=$(event '.objectRef.namespace == "full" and .verb == "create" and .stage == "ResponseComplete"')
expect "response object" d "$(of .responseObject.metadata.name "$e")"
expect "managedFields omitted" false "$(of '.responseObject.metadata | has("managedFields")' "$e")"
kubectl get configmap d -n full >/dev/null
e=$(event '.objectRef.namespace == "full" and .verb == "get" and .objectRef.name == "d"')
expect "get's response (kubectl asks for a Table)" Table "$(of .responseObject.kind "$e")"
expect "None wrote nothing" 0 "$(count '.objectRef.namespace == "quiet"')"

# A watch is long-running: ResponseStarted, then ResponseComplete when it ends (here when its
# timeoutSeconds run out).
kubectl get --raw '/api/v1/namespaces/full/configmaps?watch=true&timeoutSeconds=1' >/dev/null
e=$(event '.objectRef.namespace == "full" and .verb == "watch" and .stage == "ResponseStarted"')
expect "watch started" 200 "$(of .responseStatus.code "$e")"
event '.objectRef.namespace == "full" and .verb == "watch" and .stage == "ResponseComplete"' >/dev/null

# A user without bindings is forbidden: the decision and the 403 Status.
as nobody-token get pods -n default >/dev/null 2>&1 && fail "nobody listed pods"
e=$(event '.user.username == "nobody" and .verb == "list" and .objectRef.resource == "pods"')
expect "forbid" forbid "$(of '.annotations["authorization.k8s.io/decision"]' "$e")"
expect "forbid reason" '' "$(of '.annotations["authorization.k8s.io/reason"]' "$e")"
expect "forbidden status" "Failure Forbidden 403" \
  "$(of '[.responseStatus.status, .responseStatus.reason, .responseStatus.code] | join(" ")' "$e")"
expect "forbidden message" \
  'pods is forbidden: User "nobody" cannot list resource "pods" in API group "" in the namespace "default"' \
  "$(of .responseStatus.message "$e")"
expect "user groups" "devs,system:authenticated" "$(of '.user.groups | join(",")' "$e")"
# The request's trace names the level the policy chose.
trace=$(kubectl get --raw '/debug/requests?user=nobody&verb=list&resource=pods&limit=1')
expect "trace's audit stage" "level Metadata" \
  "$(jq -r '.items[0].stages[] | select(.stage == "audit") | .decision' <<<"$trace")"
# Once bound, allowed: RBAC's reason names the binding.
kubectl create rolebinding nobody-view -n meta --clusterrole=view --user=nobody >/dev/null
for _ in $(seq 1 50); do as nobody-token get configmaps -n meta >/dev/null 2>&1 && break; sleep 0.2; done
e=$(event '.user.username == "nobody" and .verb == "list" and .objectRef.namespace == "meta" and .responseStatus.code == 200')
expect "allow" allow "$(of '.annotations["authorization.k8s.io/decision"]' "$e")"
expect "allow reason" 'RBAC: allowed by RoleBinding "nobody-view/meta" of ClusterRole "view" to User "nobody"' \
  "$(of '.annotations["authorization.k8s.io/reason"]' "$e")"

# A token that matches nothing: one ResponseStarted event, no user. The Audit-Id header names
# the event; a client's Audit-ID is kept.
headers=$(curl -s -D - -o /dev/null --cacert "$ca" -H "Authorization: Bearer wrong" \
  "$url/api/v1/namespaces/meta/configmaps")
id=$(sed -n 's/^Audit-Id: \([^\r]*\).*/\1/Ip' <<<"$headers")
[[ -n $id ]] || fail "no Audit-Id header in: $headers"
e=$(event ".auditID == \"$id\"")
expect "refused stage" ResponseStarted "$(of .stage "$e")"
expect "refused user" '{}' "$(of '.user | tojson' "$e")"
expect "refused status" '{"metadata":{},"message":"Authentication failed, attempted: bearer","code":401}' \
  "$(of '.responseStatus | tojson' "$e")"
curl -s -o /dev/null --cacert "$ca" -H "Audit-ID: chosen-by-client" -H "Authorization: Bearer wrong" \
  "$url/api/v1/namespaces/meta/configmaps"
event '.auditID == "chosen-by-client"' >/dev/null

# Every line is one audit.k8s.io/v1 Event.
expect "every line an Event" 0 "$(jq -c 'select(.kind != "Event" or .apiVersion != "audit.k8s.io/v1")' "$log" | wc -l)"

# A policy kube-apiserver refuses is a usage error; so is the legacy format.
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n' >"$tmp/bad.yaml"
status=0
"$bin" serve --ephemeral --headless --audit-policy-file "$tmp/bad.yaml" --audit-log-path - \
  >"$tmp/bad.out" 2>&1 || status=$?
expect "bad policy exit" 2 "$status"
grep -qF "loading audit policy file: rules[0].level: Required value: from file $tmp/bad.yaml" "$tmp/bad.out" \
  || fail "bad policy message: $(cat "$tmp/bad.out")"
status=0
"$bin" serve --ephemeral --headless --audit-log-format legacy >"$tmp/bad.out" 2>&1 || status=$?
expect "legacy format exit" 2 "$status"

# --audit-log-path - writes the events to standard output.
out=$tmp/stdout.out
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready2.json" --headless \
  --nodes=0 --controllers= --audit-policy-file "$tmp/policy.yaml" --audit-log-path - >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready2.json"
KUBECONFIG=$(json "$tmp/ready2.json" '["kubeconfig"]') kubectl create namespace meta >/dev/null
KUBECONFIG=$(json "$tmp/ready2.json" '["kubeconfig"]') kubectl create configmap x -n meta >/dev/null
for _ in $(seq 1 50); do grep -q '"name":"x"' "$out" && break; sleep 0.2; done
grep '"name":"x"' "$out" | jq -e 'select(.stage == "ResponseComplete" and .verb == "create")' >/dev/null \
  || fail "no event on standard output"
echo "audit ok"
