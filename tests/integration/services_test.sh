#!/usr/bin/env bash
# Services and their endpoints with kubectl 1.32, as on a real cluster: the EndpointSlice and
# Endpoints controllers follow a Deployment's pods (addresses, ports, conditions, nodes, target
# references), scaling, terminating and not-ready pods move them, named and multiple ports
# resolve per pod, publishNotReadyAddresses, a headless service is labelled so, a service without
# a selector gets nothing from the controllers, and `kubectl get` shows the columns.
# Run through with_sandbox.sh with serve --container-stop-delay=3s (KUBECONFIG set).
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
managed="endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io"
# Lines sorted and joined by spaces: the controllers' order is not part of the API.
sorted() { "$@" | sort | paste -sd" " -; }
pods() {  # pods LABEL JSONPATH-RANGE-BODY
  kubectl get pods -l "$1" --field-selector=status.phase=Running \
    -o jsonpath="{range .items[*]}$2{\"\\n\"}{end}"
}
slice_endpoints() {  # every endpoint of the service's controller-managed slices, one a line
  kubectl get endpointslices -l "kubernetes.io/service-name=$1,$managed" -o jsonpath="{range .items[*].endpoints[*]}$2{\"\\n\"}{end}"
}
ready_ips() { pods "$1" '{.status.podIP}' | sort | xargs; }
# The table's cells, without the AGE column, single-spaced.
row() { kubectl get "$@" --no-headers | awk '{NF--; print}'; }

k create deployment web --image=nginx --replicas=2 --port=80 >/dev/null
k expose deployment web --port=8080 --target-port=80 >/dev/null
k rollout status deployment/web --timeout=40s >/dev/null || fail "web rollout"

# The slice: one endpoint per ready pod, with the pod's IP, node, zone and reference.
want=$(sorted pods app=web '{.status.podIP} {.spec.nodeName} Pod/default/{.metadata.name}/{.metadata.uid}')
[[ $(wc -w <<<"$want") == 6 ]] || fail "two running pods: $want"
until_equal "slice endpoints are the pods" "$want" sorted slice_endpoints web \
  '{.addresses[0]} {.nodeName} {.targetRef.kind}/{.targetRef.namespace}/{.targetRef.name}/{.targetRef.uid}'
expect "slice conditions" '{"ready":true,"serving":true,"terminating":false} {"ready":true,"serving":true,"terminating":false}' \
  "$(sorted slice_endpoints web '{.conditions}')"
expect "slice zones are the nodes' zones" \
  "$(sorted bash -c "for n in \$(kubectl get pods -l app=web -o jsonpath='{.items[*].spec.nodeName}'); do kubectl get node \$n -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone}{\"\\n\"}'; done")" \
  "$(sorted slice_endpoints web '{.zone}')"
slice=$(k get endpointslices -l "kubernetes.io/service-name=web,$managed" -o jsonpath='{.items[*].metadata.name}')
[[ $slice == web-????? ]] || fail "one slice named from web-: $slice"
expect "slice shape" 'IPv4 [{"name":"","port":80,"protocol":"TCP"}] web-' \
  "$(k get endpointslice "$slice" -o jsonpath='{.addressType} {.ports} {.metadata.generateName}')"
expect "slice labels" '{"app":"web","endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":"web"}' \
  "$(k get endpointslice "$slice" -o jsonpath='{.metadata.labels}')"
expect "slice owner" "Service/web/$(k get svc web -o jsonpath='{.metadata.uid}')/true/true" \
  "$(k get endpointslice "$slice" -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].uid}/{.metadata.ownerReferences[0].controller}/{.metadata.ownerReferences[0].blockOwnerDeletion}')"

# The Endpoints object: one subset, the ready addresses sorted by IP, the target port.
ips=$(ready_ips app=web)
until_equal "endpoints addresses" "$ips" bash -c \
  "kubectl get endpoints web -o jsonpath='{range .subsets[*].addresses[*]}{.ip}{\"\\n\"}{end}' | xargs"
expect "endpoints addresses carry node and pod" \
  "$(sorted pods app=web '{.status.podIP} {.spec.nodeName} Pod/default/{.metadata.name}/{.metadata.uid}')" \
  "$(sorted kubectl get endpoints web -o jsonpath='{range .subsets[*].addresses[*]}{.ip} {.nodeName} {.targetRef.kind}/{.targetRef.namespace}/{.targetRef.name}/{.targetRef.uid}{"\n"}{end}')"
expect "endpoints ports" '[{"port":80,"protocol":"TCP"}] {"app":"web"}' \
  "$(k get endpoints web -o jsonpath='{.subsets[0].ports} {.metadata.labels}')"

# kubectl get: ENDPOINTS lists at most three ready addresses, the slices' column every address.
expect "get endpoints header" "NAME ENDPOINTS AGE" "$(k get endpoints web | head -1 | xargs)"
expect "get endpoints row" "web $(sed 's/ /:80,/g; s/$/:80/' <<<"$ips")" "$(row endpoints web)"
expect "get endpointslices header" "NAME ADDRESSTYPE PORTS ENDPOINTS AGE" \
  "$(k get endpointslices -l kubernetes.io/service-name=web | head -1 | xargs)"
cells=$(row endpointslices -l kubernetes.io/service-name=web)
expect "get endpointslices row" "$slice IPv4 80" "$(cut -d' ' -f1-3 <<<"$cells")"
expect "get endpointslices addresses" "$ips" "$(cut -d' ' -f4 <<<"$cells" | tr , '\n' | sort | xargs)"

# Scaling up and down moves the addresses.
k scale deployment web --replicas=5 >/dev/null
until_equal "five addresses" "5" bash -c \
  "kubectl get endpoints web -o jsonpath='{range .subsets[*].addresses[*]}{.ip}{\"\\n\"}{end}' | wc -l | tr -d ' '"
ips=$(ready_ips app=web)
first3=$(cut -d' ' -f1-3 <<<"$ips" | sed 's/ /:80,/g; s/$/:80/')
expect "get endpoints shows three and counts the rest" "web $first3 + 2 more..." "$(row endpoints web)"
until_equal "slice has five" "$ips" bash -c \
  "kubectl get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{range .items[*].endpoints[*]}{.addresses[0]}{\"\\n\"}{end}' | sort | xargs"
# Scaled down, the pods stop (serve --container-stop-delay=3s): the slice keeps them as
# terminating (still serving, not ready), the Endpoints object drops them at once.
k scale deployment web --replicas=1 >/dev/null
until_equal "terminating endpoints in the slice" \
  '{"ready":false,"serving":true,"terminating":true} x4' bash -c \
  "kubectl get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{range .items[*].endpoints[?(@.conditions.terminating==true)]}{.conditions}{\"\\n\"}{end}' | uniq -c | awk '{print \$2, \"x\" \$1}'"
expect "Endpoints without the terminating pods" "1" \
  "$(k get endpoints web -o jsonpath='{range .subsets[*].addresses[*]}{.ip}{"\n"}{end}' | wc -l | tr -d ' ')"
until_equal "one pod left" "1" bash -c "kubectl get pods -l app=web -o name | wc -l | tr -d ' '"
until_equal "one address left" "$(ready_ips app=web)" bash -c \
  "kubectl get endpoints web -o jsonpath='{range .subsets[*].addresses[*]}{.ip}{\"\\n\"}{end}' | xargs"
until_equal "one endpoint left in the slice" "1" bash -c \
  "kubectl get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{range .items[*].endpoints[*]}{.addresses[0]}{\"\\n\"}{end}' | wc -l | tr -d ' '"

# A pod that is running but not ready: notReadyAddresses, and ready=serving=false in the slice.
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: warming, labels: {app: web}}
spec:
  containers:
  - name: nginx
    image: nginx
    ports: [{containerPort: 80}]
    readinessProbe: {httpGet: {port: 80}, initialDelaySeconds: 3600}
YAML
until_equal "not-ready pod is Running" "Running/False" \
  k get pod warming -o jsonpath='{.status.phase}/{.status.conditions[?(@.type=="Ready")].status}'
warming_ip=$(k get pod warming -o jsonpath='{.status.podIP}')
until_equal "notReadyAddresses" "$warming_ip warming" \
  k get endpoints web -o jsonpath='{.subsets[0].notReadyAddresses[*].ip} {.subsets[0].notReadyAddresses[*].targetRef.name}'
expect "ready addresses unchanged" "$(ready_ips app=web,pod-template-hash)" \
  "$(k get endpoints web -o jsonpath='{.subsets[0].addresses[*].ip}')"
until_equal "not-ready slice endpoint" '{"ready":false,"serving":false,"terminating":false}' bash -c \
  "kubectl get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{range .items[*].endpoints[?(@.targetRef.name==\"warming\")]}{.conditions}{end}'"
expect "get endpoints lists ready addresses only" \
  "web $(ready_ips app=web,pod-template-hash):80" "$(row endpoints web)"
k delete pod warming --wait=false >/dev/null
until_equal "deleted pod leaves the endpoints" "" \
  k get endpoints web -o jsonpath='{.subsets[0].notReadyAddresses}'

# A headless service: the same endpoints, labelled service.kubernetes.io/headless.
k create deployment db --image=nginx --replicas=1 --port=5432 >/dev/null
k create service clusterip db --clusterip=None --tcp=5432:5432 >/dev/null
k rollout status deployment/db --timeout=40s >/dev/null || fail "db rollout"
db_ip=$(ready_ips app=db)
until_equal "headless endpoints" "db $db_ip:5432" row endpoints db
expect "headless Endpoints labels" '{"app":"db","service.kubernetes.io/headless":""}' \
  "$(k get endpoints db -o jsonpath='{.metadata.labels}')"
until_equal "headless slice" "$db_ip/5432/5432-5432" \
  k get endpointslices -l "kubernetes.io/service-name=db,service.kubernetes.io/headless=,$managed" \
  -o jsonpath='{.items[0].endpoints[0].addresses[0]}/{.items[0].ports[0].port}/{.items[0].ports[0].name}'
expect "headless slice labels" '{"app":"db","endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":"db","service.kubernetes.io/headless":""}' \
  "$(k get endpointslices -l kubernetes.io/service-name=db -o jsonpath='{.items[0].metadata.labels}')"

# Scaled to zero: no address; the slice stays, empty.
k scale deployment db --replicas=0 >/dev/null
until_equal "no endpoints" "db <none>" row endpoints db
until_equal "empty slice" "IPv4 <unset> <unset>" bash -c \
  "kubectl get endpointslices -l kubernetes.io/service-name=db --no-headers | awk '{print \$2, \$3, \$4}'"

# Several ports: a named targetPort resolves on each pod by name and protocol, a name no
# container has leaves that port out; slices keep the service's port order. A service that
# publishes not-ready addresses lists a not-ready pod as ready (but not serving).
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: api-1, labels: {app: api}}
spec:
  containers:
  - {name: c, image: nginx, ports: [{name: http, containerPort: 8080}, {name: dns, containerPort: 53, protocol: UDP}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api-2, labels: {app: api}}
spec:
  containers:
  - name: c
    image: nginx
    ports: [{name: http, containerPort: 8080}, {name: dns, containerPort: 53, protocol: UDP}]
    readinessProbe: {tcpSocket: {port: 8080}, initialDelaySeconds: 3600}
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  ports:
  - {name: web, port: 80, targetPort: http}
  - {name: metrics, port: 9090}
  - {name: dns, port: 53, protocol: UDP, targetPort: dns}
  - {name: missing, port: 81, targetPort: nothere}
---
apiVersion: v1
kind: Service
metadata: {name: api-all}
spec:
  selector: {app: api}
  publishNotReadyAddresses: true
  ports: [{port: 80, targetPort: http}]
YAML
until_equal "api pods running" "Running Running" \
  k get pod api-1 api-2 -o jsonpath='{.items[*].status.phase}'
api1=$(k get pod api-1 -o jsonpath='{.status.podIP}')
api2=$(k get pod api-2 -o jsonpath='{.status.podIP}')
until_equal "multi-port slice" '[{"name":"web","port":8080,"protocol":"TCP"},{"name":"metrics","port":9090,"protocol":"TCP"},{"name":"dns","port":53,"protocol":"UDP"}] 2' bash -c \
  "echo \$(kubectl get endpointslices -l kubernetes.io/service-name=api -o jsonpath='{.items[0].ports}') \$(kubectl get endpointslices -l kubernetes.io/service-name=api -o jsonpath='{.items[0].endpoints[*].addresses[0]}' | wc -w)"
until_equal "multi-port Endpoints" "$api1/$api2/dns:53:UDP metrics:9090:TCP web:8080:TCP" bash -c \
  "echo \$(kubectl get endpoints api -o jsonpath='{.subsets[0].addresses[*].ip}/{.subsets[0].notReadyAddresses[*].ip}/')\$(kubectl get endpoints api -o jsonpath='{range .subsets[0].ports[*]}{.name}:{.port}:{.protocol}{\"\\n\"}{end}' | sort | paste -sd' ' -)"
until_equal "published not-ready addresses" "$(printf '%s\n' "$api1" "$api2" | sort | paste -sd' ' -)" bash -c \
  "kubectl get endpoints api-all -o jsonpath='{range .subsets[0].addresses[*]}{.ip}{\"\\n\"}{end}' | sort | paste -sd' ' -"
until_equal "published not-ready slice endpoint" '{"ready":true,"serving":false,"terminating":false}' \
  k get endpointslices -l kubernetes.io/service-name=api-all -o jsonpath='{.items[0].endpoints[?(@.targetRef.name=="api-2")].conditions}'

# A service without a selector: the controllers leave it alone. The service made after it is
# synced after it (one queue per controller), so once that one has its endpoints the first one
# has been looked at.
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: external}
spec:
  ports: [{port: 443}]
YAML
k create service clusterip web2 --tcp=80:80 >/dev/null
until_equal "the later service has its Endpoints" "web2 <none>" row endpoints web2
until_equal "the later service has its slice" "1" bash -c \
  "kubectl get endpointslices -l kubernetes.io/service-name=web2 -o name | wc -l | tr -d ' '"
expect "no Endpoints for a service without selector" \
  'Error from server (NotFound): endpoints "external" not found' "$(out k get endpoints external)"
expect "no slices for a service without selector" "No resources found in default namespace." \
  "$(out k get endpointslices -l kubernetes.io/service-name=external)"
echo "services: ok"
