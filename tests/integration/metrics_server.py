"""A test resource metrics server (the part of metrics-server the HPA controller and kubectl top
read) behind an APIService, over HTTPS (python3 stdlib only).

    metrics_server.py CERT KEY FRONT_PROXY_CA PORT_FILE USAGE_FILE

Listens on 127.0.0.1 on a free port (written to PORT_FILE) and serves metrics.k8s.io/v1beta1: its
discovery and the PodMetrics of each namespace, read on every request from USAGE_FILE, a JSON
object {"NAMESPACE/POD": {"CONTAINER": {"cpu": "150m", "memory": "20Mi"}}} that the test writes
(the usage a real metrics-server would scrape from the kubelets). It serves the pods the file
names whatever the label selector, so the test names only the pods it means. As an extension
server built on k8s.io/apiserver does, it accepts a request only with a client certificate signed
by FRONT_PROXY_CA whose common name is front-proxy-client.
"""
import json
import sys
import time

from extension_https import NOT_FOUND, UNAUTHORIZED, JsonHandler, serve

cert, key, front_proxy_ca, port_file, usage_file = sys.argv[1:6]
GROUP, VERSION = "metrics.k8s.io", "v1beta1"
GV = GROUP + "/" + VERSION
GROUP_DOC = {"kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
             "versions": [{"groupVersion": GV, "version": VERSION}],
             "preferredVersion": {"groupVersion": GV, "version": VERSION}}
RESOURCES = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": GV, "resources": [
    {"name": "pods", "singularName": "", "namespaced": True, "kind": "PodMetrics",
     "verbs": ["get", "list"]},
    {"name": "nodes", "singularName": "", "namespaced": False, "kind": "NodeMetrics",
     "verbs": ["get", "list"]}]}


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def pod_metrics(namespace):
    try:
        with open(usage_file) as f:
            usage = json.load(f)
    except (OSError, ValueError):
        usage = {}
    items = []
    for key in sorted(usage):
        ns, name = key.split("/", 1)
        if ns != namespace:
            continue
        items.append({"metadata": {"name": name, "namespace": ns, "creationTimestamp": now()},
                      "timestamp": now(), "window": "15s",
                      "containers": [{"name": c, "usage": u} for c, u in usage[key].items()]})
    return {"kind": "PodMetricsList", "apiVersion": GV, "metadata": {}, "items": items}


class Handler(JsonHandler):
    def do_GET(self):
        if self.client_cn() != ["front-proxy-client"]:
            return self.send(UNAUTHORIZED, 401)
        if self.send_discovery(GROUP_DOC, RESOURCES):
            return
        path, base = self.route(), "/apis/" + GV
        parts = path[len(base) + 1:].split("/") if path.startswith(base + "/") else []
        if len(parts) == 3 and parts[0] == "namespaces" and parts[2] == "pods":
            return self.send(pod_metrics(parts[1]))
        if parts == ["nodes"]:
            return self.send({"kind": "NodeMetricsList", "apiVersion": GV, "metadata": {},
                              "items": []})
        self.send(NOT_FOUND, 404)


serve(Handler, cert, key, front_proxy_ca, port_file)
