#!/usr/bin/python3
"""Drives a running kube-sandbox with Debian's python3-kubernetes client, as a user's script
would: componentstatuses, namespaces, ConfigMaps, Deployments, conflicts, lists with paging, a
watch, deletion.

Usage: python_client_test.py KUBECONFIG
"""
import sys
import threading

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def expect_status(fn, code, reason):
    try:
        fn()
    except ApiException as e:
        assert e.status == code, f"want {code}, got {e.status}: {e.body}"
        assert reason in e.body, f"want reason {reason} in {e.body}"
        return
    raise AssertionError(f"want HTTP {code}, the call succeeded")


def main():
    config.load_kube_config(config_file=sys.argv[1])
    core = client.CoreV1Api()
    apps = client.AppsV1Api()

    names = [ns.metadata.name for ns in core.list_namespace().items]
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= set(names), names

    # componentstatuses (deprecated, computed on each request) decode into the typed models.
    statuses = {cs.metadata.name: cs for cs in core.list_component_status().items}
    assert set(statuses) == {"scheduler", "controller-manager", "etcd-0"}, statuses
    for name, cs in statuses.items():
        conditions = [(c.type, c.status, c.message) for c in cs.conditions]
        assert conditions == [("Healthy", "True", "ok")], (name, conditions)
    assert core.read_component_status("etcd-0").metadata.name == "etcd-0"
    expect_status(lambda: core.read_component_status("kube-proxy"), 500,
                  "Component not found: kube-proxy")

    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
    expect_status(lambda: core.create_namespace(
        client.V1Namespace(metadata=client.V1ObjectMeta(name="py"))), 409, "AlreadyExists")

    # A watch started before the writes sees them in order.
    events = []
    started = threading.Event()

    def watch_configmaps():
        w = watch.Watch()
        for event in w.stream(core.list_namespaced_config_map, "py", timeout_seconds=5):
            started.set()
            events.append((event["type"], event["object"].metadata.name))
            if event["type"] == "DELETED":
                w.stop()

    # Seed one object so the watch's first event (ADDED from the initial state) proves it runs.
    core.create_namespaced_config_map("py", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="seed"), data={"a": "1"}))
    watcher = threading.Thread(target=watch_configmaps)
    watcher.start()
    assert started.wait(5), "the watch did not start"

    cm = core.create_namespaced_config_map("py", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="settings", labels={"tier": "web"}),
        data={"mode": "fast"}))
    assert cm.metadata.uid and cm.metadata.resource_version

    stale = core.read_namespaced_config_map("settings", "py")
    cm.data["mode"] = "safe"
    core.replace_namespaced_config_map("settings", "py", cm)
    stale.data["mode"] = "lost"
    expect_status(lambda: core.replace_namespaced_config_map("settings", "py", stale), 409,
                  "the object has been modified")

    for i in range(5):
        core.create_namespaced_config_map("py", client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=f"page-{i}")))
    first = core.list_namespaced_config_map("py", limit=3)
    assert len(first.items) == 3 and first.metadata._continue, first.metadata
    rest = core.list_namespaced_config_map("py", limit=100, _continue=first.metadata._continue)
    listed = [c.metadata.name for c in first.items + rest.items]
    # seed, settings, page-0..4, and the kube-root-ca.crt every namespace gets
    assert listed == sorted(listed) and len(listed) == 8, listed
    assert "kube-root-ca.crt" in listed, listed

    core.delete_namespaced_config_map("settings", "py")
    watcher.join(10)
    assert ("ADDED", "settings") in events and ("MODIFIED", "settings") in events, events
    assert events[-1] == ("DELETED", "settings"), events

    dep = apps.create_namespaced_deployment("py", {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
    assert dep.metadata.generation == 1

    expect_status(lambda: core.read_namespaced_config_map("nothere", "py"), 404,
                  'configmaps \\"nothere\\" not found')
    expect_status(lambda: core.create_namespaced_config_map("absent-ns", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="x"))), 404, 'namespaces \\"absent-ns\\" not found')

    core.delete_namespace("py")
    print("python client: ok")


if __name__ == "__main__":
    main()
