#!/usr/bin/env python3
"""A throw-away Kubernetes API for one test run, from Python (python3-kubernetes).

Starts `kube-sandbox serve` in harness mode, waits for its ready file, talks to it with the
official client, and stops it by closing its stdin. Set KS_BINARY to the kube-sandbox binary
(default: kube-sandbox on PATH)."""
import json
import os
import subprocess
import tempfile
import time

from kubernetes import client, config


def start_sandbox(workdir, fixtures=None):
    ready = os.path.join(workdir, "ready.json")
    args = [os.environ.get("KS_BINARY", "kube-sandbox"), "serve", "--ephemeral",
            "--secure-port", "0", "--ready-file", ready, "--headless", "--exit-with-parent"]
    if fixtures:
        args += ["--fixtures", ",".join(fixtures)]
    # stdin stays a pipe we hold: closing it (or this process dying) stops the sandbox.
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not os.path.exists(ready):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("kube-sandbox did not become ready")
        time.sleep(0.01)
    with open(ready) as f:
        return proc, json.load(f)


with tempfile.TemporaryDirectory() as workdir:
    proc, info = start_sandbox(workdir)
    try:
        api = client.CoreV1Api(config.new_client_from_config(config_file=info["kubeconfig"]))
        api.create_namespaced_config_map(
            "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings"),
                                          data={"mode": "test"}))
        got = api.read_namespaced_config_map("settings", "default")
        assert got.data == {"mode": "test"}, got.data
        print("python example: ok, served at", info["url"])
    finally:
        proc.stdin.close()  # the sandbox shuts down gracefully
        proc.wait(timeout=10)
