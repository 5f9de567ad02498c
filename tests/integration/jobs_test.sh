#!/usr/bin/env bash
# The Job controller with kubectl 1.32, as on a real cluster: failing pods (the exit-code
# annotation) end a Job at its backoffLimit, counting restarts for restartPolicy OnFailure;
# activeDeadlineSeconds ends it with DeadlineExceeded, Failed only once its pod has stopped; a
# deleted pod counts as failed; orphaned pods lose the tracking finalizer; an Indexed Job's pods
# carry their completion index; suspend and resume. Each with its conditions, events and
# `kubectl get job` columns. Run through with_sandbox.sh with serve --container-stop-delay=2s, so
# stopping pods can be seen.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
job() {  # job NAME RESTART-POLICY RUN-SECONDS EXIT-CODE [SPEC-LINE...]
  local name=$1 policy=$2 run=$3 code=$4
  shift 4
  kubectl apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $name}
spec:
$(for line in "$@"; do echo "  $line"; done)
  template:
    metadata:
      annotations: {kube-sandbox.io/run-seconds: "$run", kube-sandbox.io/exit-code: "$code"}
    spec:
      restartPolicy: $policy
      containers: [{name: c, image: busybox}]
YAML
}
conditions() {
  kubectl get job "$1" -o jsonpath='{range .status.conditions[*]}{.type}/{.status}/{.reason}/{.message};{end}'
}
cells() { kubectl get job "$1" --no-headers | awk '{print $2, $3}'; }
events() {  # events JOB: "type reason message" of the job's events, sorted
  kubectl get events --field-selector "involvedObject.kind=Job,involvedObject.name=$1" \
    -o jsonpath='{range .items[*]}{.type} {.reason} {.message}{"\n"}{end}' | sort
}
failed_as() {  # failed_as REASON MESSAGE
  echo "FailureTarget/True/$1/$2;Failed/True/$1/$2;"
}
backoff="Job has reached the specified backoff limit"
deadline="Job was active longer than specified deadline"

# backoffLimit 0: the first failed pod fails the Job; the pod stays, Failed.
job fragile Never 0 2 "backoffLimit: 0"
until_equal "fragile failed" "$(failed_as BackoffLimitExceeded "$backoff")" conditions fragile
expect "fragile counts" "1//" "$(k get job fragile -o jsonpath='{.status.failed}/{.status.active}/{.status.succeeded}')"
expect "fragile columns" "Failed 0/1" "$(cells fragile)"
until_equal "fragile event" "Warning BackoffLimitExceeded $backoff" bash -c \
  "kubectl get events --field-selector involvedObject.name=fragile,reason=BackoffLimitExceeded -o jsonpath='{.items[*].type} {.items[*].reason} {.items[*].message}'"
expect "fragile pod kept" "Failed/2/Error" "$(k get pods -l job-name=fragile -o jsonpath='{.items[*].status.phase}/{.items[*].status.containerStatuses[0].state.terminated.exitCode}/{.items[*].status.containerStatuses[0].state.terminated.reason}')"
k wait --for=condition=failed job/fragile --timeout=5s >/dev/null || fail "kubectl wait --for=condition=failed"

# restartPolicy OnFailure: the container restarts in place; two restarts reach backoffLimit 2,
# the pod is deleted and counted as failed.
job restarts OnFailure 1 1 "backoffLimit: 2"
until_equal "restarts failed" "$(failed_as BackoffLimitExceeded "$backoff")" conditions restarts
expect "restarts counts" "1/0" "$(k get job restarts -o jsonpath='{.status.failed}/{.status.terminating}')"
until_equal "restarts pod gone" "" k get pods -l job-name=restarts -o name

# activeDeadlineSeconds: FailureTarget first, the pod is deleted, Failed once it has stopped.
job slow Never 600 0 "activeDeadlineSeconds: 2"
until_equal "slow running" "1" k get job slow -o jsonpath='{.status.ready}'
expect "slow columns while running" "Running 0/1" "$(cells slow)"
slow_pod=$(k get pods -l job-name=slow -o jsonpath='{.items[0].metadata.name}')
until_equal "slow past its deadline, its pod stopping" "FailureTarget 0/1 1" bash -c \
  "echo \$(kubectl get job slow --no-headers | awk '{print \$2, \$3}') \$(kubectl get job slow -o jsonpath='{.status.terminating}')"
until_equal "slow failed" "$(failed_as DeadlineExceeded "$deadline")" conditions slow
expect "slow counts" "1/0//" \
  "$(k get job slow -o jsonpath='{.status.failed}/{.status.terminating}/{.status.active}/{.status.completionTime}')"
expect "slow columns" "Failed 0/1" "$(cells slow)"
until_equal "slow events" "Normal SuccessfulCreate Created pod: $slow_pod
Normal SuccessfulDelete Deleted pod: $slow_pod
Warning DeadlineExceeded $deadline" events slow

# A pod deleted by hand counts as failed, and is replaced.
job patient Never 600 0 "backoffLimit: 3"
until_equal "patient running" "1" k get job patient -o jsonpath='{.status.ready}'
first=$(k get pods -l job-name=patient -o jsonpath='{.items[0].metadata.name}')
k delete pod "$first" --wait=false >/dev/null
until_equal "the deleted pod is counted" "1" k get job patient -o jsonpath='{.status.failed}'
until_equal "the deleted pod goes" "" bash -c "kubectl get pods -l job-name=patient -o name | grep $first || true"
until_equal "a replacement" "1" k get job patient -o jsonpath='{.status.active}'
expect "patient still running" "Running 0/1" "$(cells patient)"
k delete job patient >/dev/null

# Orphaned pods (delete --cascade=orphan) lose the tracking finalizer and can be deleted.
job orphaned Never 600 0
until_equal "orphaned running" "1" k get job orphaned -o jsonpath='{.status.active}'
orphan=$(k get pods -l job-name=orphaned -o jsonpath='{.items[0].metadata.name}')
k delete job orphaned --cascade=orphan >/dev/null
until_equal "orphan unowned" "" k get pod "$orphan" -o jsonpath='{.metadata.ownerReferences}'
until_equal "orphan's tracking finalizer gone" "0" bash -c \
  "kubectl get pod $orphan -o jsonpath='{.metadata.finalizers}' | grep -c job-tracking || true"
k delete pod "$orphan" --timeout=30s >/dev/null || fail "orphan deleted"

# Indexed: each pod has its index (annotation, label, hostname, JOB_COMPLETION_INDEX).
job indexed Never 1 0 "completionMode: Indexed" "completions: 3" "parallelism: 3"
until_equal "indexed complete" "Complete 3/3" cells indexed
expect "indexed status" "0-2/3/SuccessCriteriaMet,Complete" \
  "$(k get job indexed -o jsonpath='{.status.completedIndexes}/{.status.succeeded}/{.status.conditions[0].type},{.status.conditions[1].type}')"
env="JOB_COMPLETION_INDEX=metadata.annotations['batch.kubernetes.io/job-completion-index']"
expect "indexed pods" "indexed-0-xxxxx 0 0 indexed-0 $env
indexed-1-xxxxx 1 1 indexed-1 $env
indexed-2-xxxxx 2 2 indexed-2 $env" "$(k get pods -l job-name=indexed -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.metadata.labels.batch\.kubernetes\.io/job-completion-index} {.spec.hostname} {.spec.containers[0].env[0].name}={.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath}{"\n"}{end}' | sed -E 's/^(indexed-[0-9]-)[a-z0-9]{5} /\1xxxxx /' | sort)"
until_equal "indexed events" "Normal Completed Job completed
Normal SuccessfulCreate 3" bash -c \
  "kubectl get events --field-selector involvedObject.name=indexed -o jsonpath='{range .items[*]}{.type} {.reason} {.message}{\"\\n\"}{end}' | sed -E 's/Created pod: indexed-[0-2]-[a-z0-9]{5}/x/' | sort | uniq -c | awk '{print \$2, \$3, (\$4 == \"x\" ? \$1 : \$4 \" \" \$5)}'"

# Suspended: no pods; resumed: pods and the clock starts; suspended again: pods deleted, not
# counted as failed.
job paused Never 600 0 "suspend: true"
until_equal "paused suspended" "Suspended/True/JobSuspended/Job suspended;" conditions paused
expect "paused columns" "Suspended 0/1" "$(cells paused)"
expect "paused has no pods and no start" "/" \
  "$(k get pods -l job-name=paused -o name)/$(k get job paused -o jsonpath='{.status.startTime}')"
k patch job paused --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
until_equal "resumed" "Suspended/False/JobResumed/Job resumed;" conditions paused
until_equal "resumed pod" "1" k get job paused -o jsonpath='{.status.active}'
[[ -n $(k get job paused -o jsonpath='{.status.startTime}') ]] || fail "resumed: startTime"
expect "resumed columns" "Running 0/1" "$(cells paused)"
k patch job paused --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
until_equal "suspended again" "Suspended/True/JobSuspended/Job suspended;" conditions paused
until_equal "suspended pod gone" "" k get pods -l job-name=paused -o name
expect "suspended: nothing failed" "//0" \
  "$(k get job paused -o jsonpath='{.status.failed}/{.status.active}/{.status.terminating}')"
until_equal "paused events" "Normal Resumed Job resumed 1
Normal Suspended Job suspended 2" bash -c \
  "kubectl get events --field-selector involvedObject.name=paused -o jsonpath='{range .items[*]}{.type} {.reason} {.message} {.count}{\"\\n\"}{end}' | grep -E 'Suspended|Resumed' | sort"
echo "jobs: ok"
