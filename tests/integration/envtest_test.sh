#!/usr/bin/env bash
# kubectl against the control plane envtest starts (run by with_envtest.sh): the admin user envtest
# provisions, the keys in envtest's etcd, a CRD installed as envtest installs them, and what
# kube-apiserver alone does and does not do (no controllers, no scheduler, no nodes; RBAC; its
# service range; service-account tokens signed with envtest's key).
set -euo pipefail
: "${KUBECONFIG:?run me under with_envtest.sh}" "${ETCD_URL:?}" "${CERTS:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
k() { kubectl --request-timeout=10s "$@"; }

# envtest's admin: CN admin in system:masters, through the client CA it passed
grep -q 'admin' <<<"$(k auth whoami -o jsonpath='{.status.userInfo.username}')" || fail "whoami"
k get namespace default >/dev/null || fail "no default namespace"
[[ $(k get service kubernetes -o jsonpath='{.spec.clusterIP}') == 10.0.0.1 ]] ||
  fail "the kubernetes Service is not on the first address of --service-cluster-ip-range"

# what kube-apiserver writes goes to envtest's etcd
k create namespace team >/dev/null || fail "create namespace"
k create configmap -n team conf --from-literal=a=b >/dev/null || fail "create configmap"
rv=$(k get configmap -n team conf -o jsonpath='{.metadata.resourceVersion}')
etcdctl --endpoints="$ETCD_URL" get /registry/configmaps/team/conf -w json >"$tmp/etcd.json" ||
  fail "etcdctl get"
[[ $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kvs"][0]["mod_revision"])' "$tmp/etcd.json") == "$rv" ]] ||
  fail "the configmap's key in etcd is not at its resourceVersion $rv"

# a CRD, installed as envtest's InstallCRDs does: create, then wait until it is served
cat >"$tmp/crd.yaml" <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer, minimum: 1}}}
          status: {type: object, properties: {ready: {type: boolean}}}
EOF
k apply -f "$tmp/crd.yaml" >/dev/null || fail "apply CRD"
k wait --for=condition=Established crd/widgets.example.com --timeout=10s >/dev/null || fail "CRD not Established"
for _ in $(seq 1 100); do
  grep -q '^widgets ' <<<"$(k api-resources --api-group=example.com 2>/dev/null)" && break
  sleep 0.1
done
printf 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: team}\nspec: {size: 3}\n' |
  k apply -f - >/dev/null || fail "create a Widget"
printf 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad, namespace: team}\nspec: {size: 0}\n' |
  k apply -f - >"$tmp/bad.out" 2>&1 && fail "a Widget below the schema's minimum was stored"
grep -q 'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1' "$tmp/bad.out" ||
  fail "schema error: $(cat "$tmp/bad.out")"

# kube-apiserver alone: nothing acts on the objects
k create deployment -n team web --image=nginx --replicas=2 >/dev/null || fail "create deployment"
k run -n team lone --image=nginx --overrides='{"spec":{"containers":[{"name":"lone","image":"nginx","securityContext":{"privileged":true}}]}}' >/dev/null ||
  fail "a privileged pod was refused (envtest passes --allow-privileged=true)"
sleep 2
[[ -z $(k get replicasets -n team -o name) ]] || fail "a ReplicaSet appeared: controllers run"
[[ -z $(k get pod -n team lone -o jsonpath='{.spec.nodeName}') ]] || fail "the pod was scheduled"
[[ -z $(k get serviceaccounts -n team -o name) ]] || fail "a ServiceAccount appeared in a new namespace"
rules=$(k get clusterrole admin -o jsonpath='{.rules}')
[[ -z $rules || $rules == null ]] || fail "the admin ClusterRole was aggregated"
k get priorityclass system-node-critical >/dev/null || fail "no system PriorityClasses"
ip=$(k create service clusterip -n team db --tcp=5432 -o jsonpath='{.spec.clusterIP}')
[[ $ip == 10.0.0.* ]] || fail "cluster IP $ip is outside 10.0.0.0/24"
k delete namespace team --wait=false >/dev/null || fail "delete namespace"
sleep 1
[[ $(k get namespace team -o jsonpath='{.status.phase}') == Terminating ]] ||
  fail "the namespace did not stay Terminating (no namespace controller in envtest)"
k get configmap -n team conf >/dev/null || fail "the namespace's content went"

# RBAC (--authorization-mode=RBAC): a user of envtest's client CA outside system:masters
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$tmp/dev.key"
openssl req -new -key "$tmp/dev.key" -subj "/O=devs/CN=dev" 2>/dev/null |
  openssl x509 -req -CA "$CERTS/client-cert-auth-ca.crt" -CAkey "$CERTS/client-cert-auth-ca.key" \
    -CAcreateserial -days 1 -out "$tmp/dev.crt" 2>/dev/null
sed '/client-certificate-data\|client-key-data/d' "$KUBECONFIG" >"$tmp/anonymous.kubeconfig"
dev=(--kubeconfig="$tmp/anonymous.kubeconfig" --client-certificate="$tmp/dev.crt" --client-key="$tmp/dev.key")
k "${dev[@]}" get pods -n default >"$tmp/dev.out" 2>&1 && fail "dev may list pods without a binding"
grep -q 'User "dev" cannot list resource "pods" in API group "" in the namespace "default"' "$tmp/dev.out" ||
  fail "RBAC refusal: $(cat "$tmp/dev.out")"
k create rolebinding dev-view -n default --clusterrole=view --user=dev >/dev/null
k create role pod-reader -n default --verb=list --resource=pods >/dev/null
k create rolebinding dev-pods -n default --role=pod-reader --user=dev >/dev/null
for _ in $(seq 1 50); do k "${dev[@]}" get pods -n default >/dev/null 2>&1 && break; sleep 0.1; done
k "${dev[@]}" get pods -n default >/dev/null 2>&1 || fail "dev cannot list pods once bound"

# service-account tokens signed with envtest's sa-signer key, verified with its certificate
k create serviceaccount -n default robot >/dev/null
token=$(k create token -n default robot)
[[ $(kubectl --kubeconfig="$tmp/anonymous.kubeconfig" --token="$token" auth whoami \
  -o jsonpath='{.status.userInfo.username}') == system:serviceaccount:default:robot ]] ||
  fail "a TokenRequest token does not authenticate"
echo "envtest kubectl: ok"
