#!/usr/bin/python3
"""The cluster's controllers at work: how long D Deployments of 3 replicas take to become
Available on a fresh sandbox (ReplicaSets, pods, scheduling, simulated kubelets), and the server's
CPU while nothing happens, before and after. Prints a markdown table.

  tests/bench/controllers_bench.py [--binary B] [--deployments 1000] [--nodes 30] [--idle 20]

The sandbox runs with its defaults except --nodes (110 pods fit on a node). Deployments are
created by 8 client threads through python3-kubernetes; "Available" means every Deployment's
status.availableReplicas is 3, read with one list per half second.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

from kubernetes import client, config

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def idle_cpu(pid, seconds):
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds * 100


def deployment(i):
    labels = {"app": f"d{i}"}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=f"d{i}"),
        spec=client.V1DeploymentSpec(
            replicas=3,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="build/default/sandbox/kube-sandbox")
    parser.add_argument("--deployments", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=30)
    parser.add_argument("--idle", type=float, default=20)
    args = parser.parse_args()
    work = tempfile.mkdtemp()
    ready = os.path.join(work, "ready.json")
    server = subprocess.Popen(
        [args.binary, "serve", "--ephemeral", "--headless", "--secure-port", "0", "--ready-file",
         ready, "--nodes", str(args.nodes)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(ready):
            if server.poll() is not None:
                sys.exit("the sandbox exited")
            time.sleep(0.01)
        with open(ready) as f:
            config.load_kube_config(config_file=json.load(f)["kubeconfig"])
        apps = client.AppsV1Api()
        time.sleep(2)  # the nodes register and heartbeat once
        idle_fresh = idle_cpu(server.pid, args.idle)

        cpu_before = cpu_seconds(server.pid)
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda i: apps.create_namespaced_deployment("default", deployment(i)),
                          range(args.deployments)))
        created = time.monotonic() - started
        while True:
            items = apps.list_namespaced_deployment("default").items
            available = sum(1 for d in items if (d.status.available_replicas or 0) == 3)
            if available == args.deployments:
                break
            if time.monotonic() - started > 1800:
                sys.exit(f"only {available} of {args.deployments} available after 30 min")
            time.sleep(0.5)
        elapsed = time.monotonic() - started
        busy_cpu = cpu_seconds(server.pid) - cpu_before
        time.sleep(2)
        idle_loaded = idle_cpu(server.pid, args.idle)

        print(f"| {args.deployments} Deployments × 3 replicas, {args.nodes} nodes | value |")
        print("|---|---:|")
        print(f"| all created (8 client threads) | {created:.1f} s |")
        print(f"| all Available | {elapsed:.1f} s |")
        print(f"| server CPU from first create to all Available | {busy_cpu:.1f} s |")
        print(f"| server CPU idle, fresh sandbox ({args.idle:.0f} s) | {idle_fresh:.2f} % |")
        print(f"| server CPU idle, with the {3 * args.deployments} pods ({args.idle:.0f} s) | "
              f"{idle_loaded:.2f} % |")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
