#!/usr/bin/env bash
# serve opens the desktop console when there is a display. Under xvfb-run, serve without
# --headless shows a console window (found by xdotool) whose title names the server of the data
# directory's kubeconfig; kubectl works beside it; closing the window (Ctrl+Q, as the close
# button does) stops serve gracefully with exit code 0 and leaves console.ini in the data
# directory, which the next start reads back. With the console open, SIGINT still stops serve
# (exit 0) and takes the window with it. Without DISPLAY and WAYLAND_DISPLAY, or with a DISPLAY
# that is not there, serve says in one line that it runs headless (and why), and serves.
# Skips (77) when xvfb-run or xdotool is missing.
set -uo pipefail
source "$(dirname "$0")/serve_lib.sh"
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run is not installed"; exit 77; }
command -v xdotool >/dev/null || { echo "SKIP: xdotool is not installed"; exit 77; }
export LIBGL_ALWAYS_SOFTWARE=1

# --- no display: one line, then serving as usual; SIGINT stops it
out=$tmp/headless.out
env -u DISPLAY -u WAYLAND_DISPLAY "$bin" serve --ephemeral --secure-port 0 \
  --ready-file "$tmp/headless.json" >"$out" 2>&1 &
pids+=($!)
headless_pid=$!
wait_for "$tmp/headless.json"
grep -c "running headless" "$out" >"$tmp/count"
[[ $(cat "$tmp/count") == 1 ]] || fail "not one 'running headless' line"
grep -qxF "kube-sandbox: running headless: no display (DISPLAY and WAYLAND_DISPLAY are unset); kube-sandbox console opens the console where there is one" "$out" ||
  fail "headless line"
KUBECONFIG=$(json "$tmp/headless.json" '["kubeconfig"]') kubectl get namespace default \
  >/dev/null 2>&1 || fail "kubectl against the headless serve"
kill -INT "$headless_pid"
wait "$headless_pid"
status=$?
unset 'pids[-1]'
[[ $status -eq 0 ]] || fail "headless serve exited $status after SIGINT"
grep -q "interrupted, shutting down" "$out" || fail "headless serve did not shut down"

# --- a display named but not there: the same, with GLFW's reason
out=$tmp/nodisplay.out
DISPLAY=:987 "$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/nodisplay.json" \
  >"$out" 2>&1 &
pids+=($!)
nodisplay_pid=$!
wait_for "$tmp/nodisplay.json"
for _ in $(seq 1 100); do grep -q "running headless" "$out" && break; sleep 0.05; done
grep -q "^kube-sandbox: running headless: cannot open a window: .*:987" "$out" ||
  fail "headless line for a display that is not there"
KUBECONFIG=$(json "$tmp/nodisplay.json" '["kubeconfig"]') kubectl get namespace default \
  >/dev/null 2>&1 || fail "kubectl against serve with a display that is not there"
kill -TERM "$nodisplay_pid"
wait "$nodisplay_pid"
status=$?
unset 'pids[-1]'
[[ $status -eq 0 ]] || fail "serve exited $status after SIGTERM"

# --- a display: the console opens with serve; closing it stops serve (exit 0)
# run_with_display SCRIPT: runs SCRIPT (bash) under its own virtual display.
run_with_display() {
  # An auth file of ours: xvfb-run's own temporary directory, when it fails to remove it, makes
  # it exit 5 instead of with the script's status.
  timeout 120 xvfb-run -a -f "$(mktemp "$tmp/xauth.XXXXXX")" -s "-screen 0 1400x900x24" \
    bash "$1" >"$1.out" 2>&1
}
data=$tmp/data
cat >"$tmp/close.sh" <<EOF
set -u
"$bin" serve --data-dir "$data" --secure-port 0 --ready-file "$tmp/ready.json" \
  >"$tmp/serve.out" 2>&1 &
pid=\$!
wid=\$(timeout 60 xdotool search --sync --name "kube-sandbox console") ||
  { echo "no console window"; kill -INT \$pid; wait \$pid; exit 3; }
xdotool getwindowname "\$wid" >"$tmp/title"
for _ in \$(seq 1 200); do [[ -s "$tmp/ready.json" ]] && break; sleep 0.05; done
export KUBECONFIG=$data/kubeconfig
kubectl create configmap beside-the-console --from-literal=key=value >/dev/null ||
  { echo "kubectl create failed"; exit 4; }
kubectl get configmap beside-the-console -o jsonpath='{.data.key}' >"$tmp/kubectl.txt"
kill -0 \$pid || { echo "serve exited while the console was open"; exit 5; }
xdotool key --window "\$wid" ctrl+q
wait \$pid
echo \$? >"$tmp/serve.rc"
EOF
run_with_display "$tmp/close.sh" || { cat "$tmp/close.sh.out" "$tmp/serve.out" >&2; fail "close run"; }
out=$tmp/serve.out
[[ $(cat "$tmp/serve.rc") == 0 ]] || fail "serve exited $(cat "$tmp/serve.rc") after the window closed"
grep -qxF "kube-sandbox: console closed, shutting down" "$out" || fail "no graceful shutdown line"
if grep -q "running headless" "$out"; then fail "serve ran headless with a display"; fi
url=$(json "$tmp/ready.json" '["url"]')
grep -qF "($url)" "$tmp/title" || fail "the window title does not name $url: $(cat "$tmp/title")"
[[ $(cat "$tmp/kubectl.txt") == value ]] || fail "kubectl beside the console"
ini=$data/console.ini
[[ -s $ini ]] || fail "no console.ini in the data directory"
grep -qx '\[kube-sandbox\]\[console\]' "$ini" || fail "console.ini: no console section"
grep -qx 'window-size=1440x900' "$ini" || fail "console.ini: window size: $(cat "$ini")"

# the next start reads console.ini back: a remembered size and theme are used, and kept
sed -i 's/^window-size=.*/window-size=1024x700/; s/^theme=.*/theme=light/' "$ini"
cat >"$tmp/reopen.sh" <<EOF
set -u
"$bin" serve --data-dir "$data" --secure-port 0 >"$tmp/serve2.out" 2>&1 &
pid=\$!
wid=\$(timeout 60 xdotool search --sync --name "kube-sandbox console") ||
  { echo "no console window"; kill -INT \$pid; wait \$pid; exit 3; }
xdotool getwindowgeometry "\$wid" >"$tmp/geometry"
xdotool key --window "\$wid" ctrl+q
wait \$pid
echo \$? >"$tmp/serve2.rc"
EOF
run_with_display "$tmp/reopen.sh" || { cat "$tmp/reopen.sh.out" >&2; fail "reopen run"; }
out=$tmp/serve2.out
[[ $(cat "$tmp/serve2.rc") == 0 ]] || fail "second serve exited $(cat "$tmp/serve2.rc")"
grep -q "Geometry: 1024x700" "$tmp/geometry" || fail "remembered size not used: $(cat "$tmp/geometry")"
grep -qx 'theme=light' "$ini" || fail "console.ini lost the theme: $(cat "$ini")"
grep -qx 'window-size=1024x700' "$ini" || fail "console.ini lost the size: $(cat "$ini")"

# --- SIGINT with the console open: both stop, exit 0 (harness mode flags as tests use them)
cat >"$tmp/sigint.sh" <<EOF
set -u
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready3.json" --exit-with-parent \
  >"$tmp/serve3.out" 2>&1 </dev/null &
pid=\$!
timeout 60 xdotool search --sync --name "kube-sandbox console" >/dev/null ||
  { echo "no console window"; kill -INT \$pid; wait \$pid; exit 3; }
for _ in \$(seq 1 200); do [[ -s "$tmp/ready3.json" ]] && break; sleep 0.05; done
kill -INT \$pid
wait \$pid
echo \$? >"$tmp/serve3.rc"
if xdotool search --name "kube-sandbox console" >/dev/null; then echo "window left open"; exit 6; fi
EOF
run_with_display "$tmp/sigint.sh" || { cat "$tmp/sigint.sh.out" >&2; fail "SIGINT run"; }
out=$tmp/serve3.out
[[ $(cat "$tmp/serve3.rc") == 0 ]] || fail "serve exited $(cat "$tmp/serve3.rc") after SIGINT"
grep -qxF "kube-sandbox: interrupted, shutting down" "$out" || fail "no interrupted line"
echo "serve console: ok"
