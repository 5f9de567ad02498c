#!/usr/bin/env python3
"""kube-sandbox side by side with a stock kube-apiserver backed by etcd: one machine, one run,
one load generator driving both, the same workload in the same order.

    KAS_BIN=<kube-apiserver> KBENCH=<load generator> tests/bench/reference_compare.py [ROUNDS]

KAS_BIN is a kube-apiserver binary (docs/benchmarks.md says how the published figures' was built),
run against Debian's etcd (package etcd-server). KBENCH is a load generator with kbench's command
line: `-server URL -token T -op create|get|update|list|watchfan -n N -c C [-w W] -label L`, one
JSON line per run with ops_per_sec, p50_ms, p99_ms, errors. KUBE_SANDBOX overrides the sandbox
binary (default build/default/sandbox/kube-sandbox). KUBE_SANDBOX_BASELINE, when set, names
another kube-sandbox binary (an earlier build) measured in the same rounds, and a second table
compares it with KUBE_SANDBOX: the before and after of a change. KUBE_SANDBOX_FLAGS adds serve
flags to KUBE_SANDBOX only (e.g. `--nodes 0 --controllers=` for the API server alone, as the
reference runs without a controller manager, and as builds before the cluster existed ran).

Each round starts both servers fresh, in turns (the order alternates between rounds), and for
each one measures: exec to the first /readyz 200 (polled every 5 ms), resident memory after 2 s
idle (every process of the server: kube-apiserver and etcd for the reference), then each
operation with the CPU the server's processes used for it (utime + stime from /proc), which is
the steadier figure on a 2-core machine where the client takes a share of the CPU too.
Prints every run, then a markdown table: each server's median over the rounds with the range,
and how many times better kube-sandbox's median is (the reference's over kube-sandbox's for
times, memory and CPU; the other way round for ops/s). Exits 1 if a server fails to start or an operation reports errors.
"""
import json
import os
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

TOKEN = "benchtoken"
# (op, operations, concurrent clients): creates fill the namespace (256-byte ConfigMaps) that
# gets, updates and lists (of all 10,000) then use; watchfan writes N objects one at a time to W
# open watches. Server CPU is read in clock ticks (10 ms): the counts keep that under 5%.
WORKLOAD = [("create", 10000, 16), ("get", 10000, 16), ("update", 10000, 16), ("list", 40, 4),
            ("watchfan", 200, 1)]
WATCHERS = 200
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / CLK_TCK


def rss_mb(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def await_ready(url, started, deadline_s=120):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url + "/readyz", headers={"Authorization": "Bearer " + TOKEN})
    while time.monotonic() - started < deadline_s:
        try:
            with urllib.request.urlopen(request, context=context, timeout=2) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.005)
    raise RuntimeError(f"{url} not ready after {deadline_s} s")


class Sandbox:
    def __init__(self, work, binary, label="kube-sandbox", flags=()):
        self.work = work
        self.binary = binary
        self.label = label
        self.flags = list(flags)

    def start(self):
        binary = self.binary
        ready_file = os.path.join(self.work, "ready.json")
        if os.path.exists(ready_file):
            os.remove(ready_file)
        started = time.monotonic()
        self.procs = [subprocess.Popen(
            [binary, "serve", "--ephemeral", "--headless", "--secure-port", "0",
             "--token-auth-file", os.path.join(self.work, "tokens.csv"),
             "--ready-file", ready_file] + self.flags,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.work, "sandbox.log"), "w"))]
        while not os.path.exists(ready_file):
            if self.procs[0].poll() is not None or time.monotonic() - started > 60:
                raise RuntimeError("kube-sandbox did not start (see its log)")
            time.sleep(0.001)
        with open(ready_file) as f:
            self.url = json.load(f)["url"]
        return await_ready(self.url, started)


class Reference:
    label = "kube-apiserver + etcd"

    def __init__(self, work):
        self.work = work

    def start(self):
        w = self.work
        key = os.path.join(w, "sa.key")
        if not os.path.exists(key):
            subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True,
                           capture_output=True)
            subprocess.run(["openssl", "rsa", "-in", key, "-pubout", "-out",
                            os.path.join(w, "sa.pub")], check=True, capture_output=True)
        etcd_dir = tempfile.mkdtemp(dir=w, prefix="etcd-")
        port, etcd_port = 16443, 23791
        self.url = f"https://127.0.0.1:{port}"
        started = time.monotonic()
        etcd = subprocess.Popen(
            ["etcd", "--data-dir", etcd_dir,
             "--listen-client-urls", f"http://127.0.0.1:{etcd_port}",
             "--advertise-client-urls", f"http://127.0.0.1:{etcd_port}",
             "--listen-peer-urls", f"http://127.0.0.1:{etcd_port + 10}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(w, "etcd.log"), "w"))
        kas = subprocess.Popen(
            [os.environ["KAS_BIN"], f"--etcd-servers=http://127.0.0.1:{etcd_port}",
             f"--secure-port={port}", "--bind-address=127.0.0.1",
             "--token-auth-file=" + os.path.join(w, "tokens.csv"), "--authorization-mode=RBAC",
             "--cert-dir=" + os.path.join(w, "certs"),
             "--service-account-key-file=" + os.path.join(w, "sa.pub"),
             "--service-account-signing-key-file=" + key,
             "--service-account-issuer=https://kubernetes.default.svc",
             "--service-cluster-ip-range=10.0.0.0/24"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(w, "kas.log"), "w"))
        self.procs = [etcd, kas]
        return await_ready(self.url, started)


def stop(server):
    for proc in reversed(server.procs):
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def kbench(server, op, n, c):
    command = [os.environ["KBENCH"], "-server", server.url, "-token", TOKEN, "-op", op,
               "-n", str(n), "-c", str(c), "-label", server.label]
    if op == "watchfan":
        command += ["-w", str(WATCHERS)]
    pids = [p.pid for p in server.procs]
    before = cpu_seconds(pids)
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    used = cpu_seconds(pids) - before
    result = json.loads(out.strip().splitlines()[-1])
    if result.get("errors"):
        raise RuntimeError(f"{server.label} {op}: {result['errors']} errors ({result})")
    result["cpu_ms_per_1000"] = used * 1000 / n * 1000
    return result


def measure(server):
    figures = {"ready_ms": server.start() * 1000}
    try:
        time.sleep(2)
        figures["rss_mb"] = rss_mb([p.pid for p in server.procs])
        for op, n, c in WORKLOAD:
            figures[op] = kbench(server, op, n, c)
    finally:
        stop(server)
    return figures


def spread(values, fmt):
    values = sorted(values)
    med = statistics.median(values)
    text = fmt.format(med)
    if len(values) > 1:
        text += " (" + fmt.format(values[0]) + "–" + fmt.format(values[-1]) + ")"
    return med, text


def table(runs, base, other):
    """The markdown table of `other` against `base`: each one's median over the rounds with the
    range, and how many times better `other` is (above 1: better; below: worse)."""
    lines = [f"| figure | {base} | {other} | {other}: times better |", "|---|---:|---:|---:|"]

    def row(name, pick, fmt, lower_is_better):
        b, b_text = spread([pick(x) for x in runs[base]], fmt)
        o, o_text = spread([pick(x) for x in runs[other]], fmt)
        better = (b / o if o else float("inf")) if lower_is_better else (o / b if b else 0.0)
        lines.append(f"| {name} | {b_text} | {o_text} | {better:.2f} |")

    row("exec → /readyz 200, ms", lambda x: x["ready_ms"], "{:,.0f}", True)
    row("RSS after 2 s idle, MB", lambda x: x["rss_mb"], "{:,.1f}", True)
    for op, n, c in WORKLOAD:
        if op == "watchfan":
            row(f"{n} creates, one at a time, to {WATCHERS} watchers: all delivered, p99 ms",
                lambda x: x["watchfan"]["p99_ms"], "{:,.1f}", True)
            continue
        name = f"{op} ({n:,}, {c} client{'s' if c > 1 else ''})"
        if op == "list":
            name = f"list of all {WORKLOAD[0][1]:,} ({n} lists, {c} clients)"
        row(f"{name}: ops/s", lambda x, op=op: x[op]["ops_per_sec"], "{:,.0f}", False)
        row(f"{name}: server CPU ms per 1,000", lambda x, op=op: x[op]["cpu_ms_per_1000"],
            "{:,.1f}", True)
        row(f"{name}: p99 ms", lambda x, op=op: x[op]["p99_ms"], "{:,.1f}", True)
    return "\n".join(lines)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for variable in ("KAS_BIN", "KBENCH"):
        if not os.environ.get(variable):
            sys.exit(f"reference_compare: set {variable} (see the docstring)")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    baseline = os.environ.get("KUBE_SANDBOX_BASELINE")
    with tempfile.TemporaryDirectory(prefix="ks-compare-") as work:
        with open(os.path.join(work, "tokens.csv"), "w") as f:
            f.write(f'{TOKEN},admin,admin-uid,"system:masters"\n')
        kinds = [lambda: Reference(work),
                 lambda: Sandbox(work, os.environ.get("KUBE_SANDBOX",
                                                      "build/default/sandbox/kube-sandbox"),
                                 flags=os.environ.get("KUBE_SANDBOX_FLAGS", "").split())]
        if baseline:
            kinds.insert(1, lambda: Sandbox(work, baseline, "kube-sandbox (baseline)"))
        labels = [make().label for make in kinds]
        runs = {label: [] for label in labels}
        for round_ in range(rounds):
            servers = [make() for make in kinds]
            if round_ % 2:
                servers.reverse()
            for server in servers:
                figures = measure(server)
                runs[server.label].append(figures)
                print(f"round {round_ + 1} {server.label}: " + json.dumps(figures), flush=True)
    print()
    print(table(runs, labels[0], labels[-1]))
    if baseline:
        print()
        print(table(runs, labels[1], labels[2]))


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, subprocess.CalledProcessError) as error:
        sys.exit(f"reference_compare: {error}")
