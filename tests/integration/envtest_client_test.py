"""An operator's envtest suite in miniature, with Debian's python3-kubernetes, against the control
plane envtest starts (run by with_envtest.sh): install a CRD and wait until it is served, then
create, patch, watch and finalize custom objects as a controller's tests do, with nothing else
acting on them.

Usage: envtest_client_test.py KUBECONFIG
"""
import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "example.com", "v1", "gadgets"


def eventually(check, what, seconds=10):
    deadline = time.monotonic() + seconds
    while True:
        try:
            if check():
                return
        except ApiException as e:
            if e.status != 404:
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.05)


def expect_status(fn, code):
    try:
        fn()
    except ApiException as e:
        assert e.status == code, f"want {code}, got {e.status}: {e.body}"
        return e
    raise AssertionError(f"want HTTP {code}, the call succeeded")


def install_crd(ext):
    ext.create_custom_resource_definition({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PLURAL}.{GROUP}"},
        "spec": {
            "group": GROUP, "scope": "Namespaced",
            "names": {"kind": "Gadget", "listKind": "GadgetList", "plural": PLURAL,
                      "singular": "gadget"},
            "versions": [{
                "name": VERSION, "served": True, "storage": True,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"color": {"type": "string"}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
                }}},
            }],
        },
    })

    def established():
        crd = ext.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
        conditions = (crd.status.conditions if crd.status else None) or []
        return any(c.type == "Established" and c.status == "True" for c in conditions)
    eventually(established, "the CRD is Established")


def main():
    config.load_kube_config(config_file=sys.argv[1])
    core = client.CoreV1Api()
    ext = client.ApiextensionsV1Api()
    custom = client.CustomObjectsApi()

    core.read_namespace("default")  # envtest's waitForDefaultNamespace
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="suite")))
    install_crd(ext)
    eventually(lambda: custom.list_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL)
               is not None, "the custom resource is served")

    events = []
    started = threading.Event()

    def follow():
        w = watch.Watch()
        for event in w.stream(custom.list_namespaced_custom_object, GROUP, VERSION, "suite",
                              PLURAL, timeout_seconds=10):
            started.set()
            events.append((event["type"], event["object"]["metadata"]["name"]))
            if event["type"] == "DELETED":
                w.stop()

    custom.create_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL, {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "Gadget",
        "metadata": {"name": "seed"}, "spec": {"color": "grey"}})
    follower = threading.Thread(target=follow)
    follower.start()
    assert started.wait(5), "the watch did not start"

    made = custom.create_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL, {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "Gadget",
        "metadata": {"name": "g1", "labels": {"tier": "gold"}, "finalizers": ["example.com/cleanup"]},
        "spec": {"color": "red"}})
    assert made["metadata"]["generation"] == 1, made["metadata"]

    # the status subresource: status changes leave the generation, spec changes move it
    status = custom.patch_namespaced_custom_object_status(
        GROUP, VERSION, "suite", PLURAL, "g1", {"status": {"phase": "Ready"}})
    assert status["status"]["phase"] == "Ready" and status["metadata"]["generation"] == 1, status
    spec = custom.patch_namespaced_custom_object(
        GROUP, VERSION, "suite", PLURAL, "g1", {"spec": {"color": "blue"}, "status": {"phase": "x"}})
    assert spec["metadata"]["generation"] == 2 and spec["status"]["phase"] == "Ready", spec

    # optimistic concurrency
    stale = dict(made)
    stale["spec"] = {"color": "green"}
    e = expect_status(lambda: custom.replace_namespaced_custom_object(
        GROUP, VERSION, "suite", PLURAL, "g1", stale), 409)
    assert "the object has been modified" in e.body, e.body

    gold = custom.list_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL,
                                                label_selector="tier=gold")
    assert [g["metadata"]["name"] for g in gold["items"]] == ["g1"], gold["items"]

    # a finalizer holds the deletion until the test's "controller" removes it
    custom.delete_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL, "g1")
    held = custom.get_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL, "g1")
    assert held["metadata"].get("deletionTimestamp"), held["metadata"]
    custom.patch_namespaced_custom_object(GROUP, VERSION, "suite", PLURAL, "g1",
                                          {"metadata": {"finalizers": None}})
    expect_status(lambda: custom.get_namespaced_custom_object(
        GROUP, VERSION, "suite", PLURAL, "g1"), 404)
    follower.join(10)
    names = [n for _, n in events]
    assert ("ADDED", "g1") in events and ("DELETED", "g1") in events, events
    assert names.count("g1") >= 4, events  # added, status, spec, finalizer removal, deleted

    # nothing else runs: no default ServiceAccount, no scheduler
    assert not core.list_namespaced_service_account("suite").items
    core.create_namespaced_pod("suite", client.V1Pod(
        metadata=client.V1ObjectMeta(name="p"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")])))
    time.sleep(1)
    pod = core.read_namespaced_pod("p", "suite")
    assert pod.spec.node_name is None and pod.status.phase == "Pending", pod.status
    print("envtest python client: ok")


if __name__ == "__main__":
    main()
