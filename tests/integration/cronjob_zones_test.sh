#!/usr/bin/env bash
# CronJob time zones with kubectl 1.32: a CronJob in an IANA zone fires at that zone's times
# (here under serve --cron-clock-speed=600, an hour every six seconds), its Job carries the
# scheduled time in that zone, and kube-apiserver's validation refuses unknown zones, "Local",
# an empty zone and TZ/CRON_TZ prefixes in the schedule with its exact messages.
# Run through with_sandbox.sh (KUBECONFIG set).
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
cronjob() {  # cronjob NAME SCHEDULE [ZONE-LINE]
  kubectl apply -f - <<YAML
apiVersion: batch/v1
kind: CronJob
metadata: {name: $1}
spec:
  schedule: "$2"
  ${3:-}
  jobTemplate:
    spec:
      template:
        metadata: {annotations: {kube-sandbox.io/run-seconds: "1"}}
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
YAML
}

# Kathmandu is 5 h 45 min ahead of UTC: "at minute 0 of every hour" there is minute 15 in UTC.
expect "created" "cronjob.batch/hourly created" "$(cronjob hourly '0 * * * *' 'timeZone: Asia/Kathmandu')"
# (ACTIVE and LAST SCHEDULE are left out: the controller may already have made the Job.)
expect "get cronjob" "hourly 0 * * * * Asia/Kathmandu False" \
  "$(k get cronjob hourly --no-headers | awk '{print $1, $2, $3, $4, $5, $6, $7, $8}')"
until_equal "a Job was made" "1" bash -c \
  "kubectl get jobs -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}{\"\\n\"}{end}' | grep -cx hourly || true"
job=$(k get jobs -o jsonpath='{.items[0].metadata.name}')
minutes=${job#hourly-}
[[ $minutes =~ ^[0-9]+$ ]] || fail "job name is hourly-<minutes since the epoch>: $job"
expect "scheduled at minute 15 UTC" "15" "$((minutes % 60))"
stamp=$(k get job "$job" -o jsonpath='{.metadata.annotations.batch\.kubernetes\.io/cronjob-scheduled-timestamp}')
[[ $stamp =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00\+05:45$ ]] || fail "scheduled timestamp in the zone: $stamp"
expect "scheduled timestamp is the job's minute" "$((minutes * 60))" "$(date -d "$stamp" +%s)"
until_equal "lastScheduleTime at minute 15" "yes" bash -c \
  "[[ \$(kubectl get cronjob hourly -o jsonpath='{.status.lastScheduleTime}') == *:15:00Z ]] && echo yes"
k patch cronjob hourly --type=merge -p '{"spec":{"suspend":true}}' >/dev/null

# Zones kube-apiserver refuses, and TZ in the schedule.
invalid() { echo "The CronJob \"$1\" is invalid: $2"; }
expect "unknown zone" \
  "$(invalid mars 'spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons')" \
  "$(out cronjob mars '0 * * * *' 'timeZone: Mars/Olympus_Mons')"
expect "Local" \
  "$(invalid local 'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')" \
  "$(out cronjob local '0 * * * *' 'timeZone: Local')"
expect "empty zone" \
  "$(invalid empty 'spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string')" \
  "$(out cronjob empty '0 * * * *' 'timeZone: ""')"
expect "a zone name that climbs out" \
  "$(invalid climb 'spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd')" \
  "$(out cronjob climb '0 * * * *' 'timeZone: ../etc/passwd')"
expect "CRON_TZ in the schedule" \
  "$(invalid crontz 'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead')" \
  "$(out cronjob crontz 'CRON_TZ=UTC 0 * * * *')"
expect "TZ in the schedule, with kubectl create cronjob" \
  'error: failed to create cronjob: CronJob.batch "tz" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead' \
  "$(out k create cronjob tz --image=busybox --schedule='TZ=UTC 0 * * * *')"
expect "only the valid CronJob exists" "cronjob.batch/hourly" "$(k get cronjobs -o name)"
echo "cronjob zones: ok"
