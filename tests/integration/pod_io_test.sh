#!/usr/bin/env bash
# Reading from and reaching into pods with kubectl 1.32: `kubectl logs` on simulated containers
# (plain, --tail, --timestamps, -c and the default container of a multi-container pod, --previous
# after a restart (OnFailure after a failure, Always after any exit) and its error without one,
# -f that ends when the container exits or the pod goes, nothing for a pod on no node),
# kube-apiserver's log errors through the raw API, and exec, attach and port-forward refused with
# the sandbox's message. Run through with_sandbox.sh (KUBECONFIG set).
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
started() { echo "kube-sandbox: container $1 started (image $2); its process is simulated"; }
refused() {
  echo "$1 is not available in kube-sandbox: the containers of pod $2 are simulated, no process runs in them"
}

k run solo --image=nginx >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: duo}
spec:
  containers:
  - {name: app, image: nginx}
  - {name: side, image: busybox}
YAML
# Exits after a second with code 3 and is restarted in place (restartPolicy OnFailure).
k run crashy --image=busybox --restart=OnFailure \
  --annotations=kube-sandbox.io/run-seconds=1 --annotations=kube-sandbox.io/exit-code=3 >/dev/null
k run once --image=busybox --restart=Never --annotations=kube-sandbox.io/run-seconds=1 >/dev/null
k wait --for=condition=Ready pod/solo pod/duo --timeout=40s >/dev/null || fail "pods ready"

# Plain logs, --tail and --timestamps.
expect "logs" "$(started solo nginx)" "$(k logs solo)"
until_equal "once succeeded" "Succeeded" k get pod once -o jsonpath='{.status.phase}'
expect "logs of a finished container" "$(started once busybox)
kube-sandbox: once exited with code 0" "$(k logs once)"
expect "logs --tail=1" "kube-sandbox: once exited with code 0" "$(k logs once --tail=1)"
expect "logs --tail=0" "" "$(k logs once --tail=0)"
[[ $(k logs solo --timestamps) =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z\ kube-sandbox:\ container\ solo\ started ]] ||
  fail "logs --timestamps: $(k logs solo --timestamps)"

# Several containers: kubectl defaults to the first one and says so; -c picks one.
expect "logs of the default container" "Defaulted container \"app\" out of: app, side
$(started app nginx)" "$(out k logs duo)"
expect "logs -c" "$(started side busybox)" "$(k logs duo -c side)"
# kubectl asks for each container's log in turn, in no set order (it keeps the requests in a map).
expect "logs --all-containers" "$(started app nginx)
$(started side busybox)" "$(k logs duo --all-containers | sort)"
expect "logs -c unknown" "error: container nope is not valid for pod duo" "$(out k logs duo -c nope)"
k logs duo -c nope >/dev/null 2>&1 && fail "logs -c unknown exits 0"
# The API itself (kubectl get --raw) answers kube-apiserver's 400s.
expect "raw log without container" \
  "Error from server (BadRequest): a container name must be specified for pod duo, choose one of: [app side]" \
  "$(out k get --raw /api/v1/namespaces/default/pods/duo/log)"
expect "raw log of an unknown container" \
  "Error from server (BadRequest): container nope is not valid for pod duo" \
  "$(out k get --raw '/api/v1/namespaces/default/pods/duo/log?container=nope')"

# A pod no node takes has no log yet: kube-apiserver answers 204 No Content.
k run nowhere --image=nginx --overrides='{"spec":{"nodeSelector":{"disk":"none"}}}' >/dev/null
expect "logs of a pod on no node" "" "$(k logs nowhere 2>&1)"
expect "logs -c unknown of a pod on no node" "Error from server (BadRequest): container nope is not valid for pod nowhere" \
  "$(out k get --raw '/api/v1/namespaces/default/pods/nowhere/log?container=nope')"

# --previous: the run before the last restart; none yet is the kubelet's 400.
expect "no previous run" \
  "Error from server (BadRequest): previous terminated container \"solo\" in pod \"solo\" not found" \
  "$(out k logs solo --previous)"
until_equal "crashy restarted" "yes" bash -c \
  "[[ \$(kubectl get pod crashy -o jsonpath='{.status.containerStatuses[0].restartCount}') -ge 1 ]] && echo yes"
expect "logs --previous" "$(started crashy busybox)
kube-sandbox: crashy exited with code 3" "$(k logs crashy --previous)"
expect "last state" "Error/3" \
  "$(k get pod crashy -o jsonpath='{.status.containerStatuses[0].lastState.terminated.reason}/{.status.containerStatuses[0].lastState.terminated.exitCode}')"
# restartPolicy Always: a container that exits, even with 0, is restarted; the pod stays Running.
k run looping --image=busybox --annotations=kube-sandbox.io/run-seconds=1 >/dev/null
until_equal "looping restarted" "yes" bash -c \
  "[[ \$(kubectl get pod looping -o jsonpath='{.status.containerStatuses[0].restartCount}') -ge 1 ]] && echo yes"
expect "looping stays Running" "Running/Completed/0" \
  "$(k get pod looping -o jsonpath='{.status.phase}/{.status.containerStatuses[0].lastState.terminated.reason}/{.status.containerStatuses[0].lastState.terminated.exitCode}')"
expect "looping logs --previous" "$(started looping busybox)
kube-sandbox: looping exited with code 0" "$(k logs looping --previous)"
until_equal "the kubelet's BackOff event" \
  "Warning Back-off restarting failed container looping in pod looping_default($(k get pod looping -o jsonpath='{.metadata.uid}'))" \
  k get events --field-selector involvedObject.name=looping,reason=BackOff -o jsonpath='{.items[0].type} {.items[0].message}'

# -f follows until the container exits ...
k run brief --image=busybox --restart=Never --annotations=kube-sandbox.io/run-seconds=2 >/dev/null
k wait --for=condition=Ready pod/brief --timeout=40s >/dev/null || fail "brief ready"
followed=$(timeout 30 kubectl logs -f brief) || fail "logs -f did not end with the container ($?)"
expect "logs -f to the exit" "$(started brief busybox)
kube-sandbox: brief exited with code 0" "$followed"
# ... or until the pod is deleted.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
(timeout 30 kubectl logs -f solo >"$log" 2>&1; echo "exit $?" >>"$log") &
follower=$!
until_equal "following" "$(started solo nginx)" cat "$log"
k delete pod solo --wait=false >/dev/null
wait "$follower"
expect "logs -f ends with the pod" "$(started solo nginx)
exit 0" "$(cat "$log")"

# No process runs in a simulated container: exec, attach and port-forward are refused.
expect "exec" "Defaulted container \"app\" out of: app, side
Error from server (BadRequest): $(refused exec duo)" "$(out timeout 20 kubectl exec duo -- ls)"
expect "exec -c" "Error from server (BadRequest): $(refused exec duo)" \
  "$(out timeout 20 kubectl exec duo -c side -- ls)"
expect "exec in a finished pod" \
  "error: cannot exec into a container in a completed pod; current phase is Succeeded" \
  "$(out timeout 20 kubectl exec once -- ls)"
got=$(out timeout 20 kubectl attach duo -c app)
[[ $got == *"Error from server (BadRequest): $(refused attach duo)" ]] || fail "attach: $got"
expect "port-forward" "error: error upgrading connection: $(refused port-forward duo)" \
  "$(out timeout 20 kubectl port-forward pod/duo 18080:80)"
expect "exec on a missing pod" 'Error from server (NotFound): pods "ghost" not found' \
  "$(out timeout 20 kubectl exec ghost -- ls)"
echo "pod io: ok"
