#!/usr/bin/python3
"""The controllers as a python3-kubernetes user sees them: a watch on pods sees the ReplicaSet
controller create them, the scheduler bind them and the kubelet run them; after a snapshot restore
(every watch ends with 410 Expired) the controllers list again and keep working.

Usage: controllers_client_test.py KUBECONFIG (KS_BINARY names kube-sandbox, for the snapshot)
"""
import os
import subprocess
import sys
import time

from kubernetes import client, config, watch


def replica_set(name, replicas):
    labels = {"app": name}
    return client.V1ReplicaSet(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1ReplicaSetSpec(
            replicas=replicas,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]))))


def running_pods(core, selector, want, timeout=30):
    """Follows a watch on the selector's pods until `want` of them are Running with an IP."""
    seen = {}
    w = watch.Watch()
    deadline = time.monotonic() + timeout
    for event in w.stream(core.list_namespaced_pod, "default", label_selector=selector,
                          timeout_seconds=timeout):
        pod = event["object"]
        seen[pod.metadata.name] = (event["type"], pod.spec.node_name, pod.status.phase,
                                   pod.status.pod_ip)
        running = [n for n, (t, node, phase, ip) in seen.items()
                   if t != "DELETED" and phase == "Running" and node and ip]
        if len(running) >= want:
            w.stop()
            return seen
        if time.monotonic() > deadline:
            break
    raise AssertionError(f"want {want} running pods, saw {seen}")


def main():
    kubeconfig = sys.argv[1]
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    apps = client.AppsV1Api()

    apps.create_namespaced_replica_set("default", replica_set("web", 2))
    seen = running_pods(core, "app=web", 2)
    assert all(name.startswith("web-") for name in seen), seen

    # Restore a snapshot taken now: every watch (the controllers' too) ends with 410 Expired.
    env = dict(os.environ, KUBECONFIG=kubeconfig)
    binary = os.environ["KS_BINARY"]
    subprocess.run([binary, "snapshot", "save", "now"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    subprocess.run([binary, "snapshot", "restore", "now"], check=True, env=env,
                   stdout=subprocess.DEVNULL)

    # The controllers listed again: scaling up still makes pods, and they still run.
    apps.patch_namespaced_replica_set_scale("web", "default", {"spec": {"replicas": 4}})
    running_pods(core, "app=web", 4)
    rs = None
    for _ in range(150):
        rs = apps.read_namespaced_replica_set("web", "default")
        if rs.status.ready_replicas == 4:
            break
        time.sleep(0.2)
    assert rs.status.ready_replicas == 4, rs.status
    print("controllers client: ok")


if __name__ == "__main__":
    main()
