"""A test extension API server behind an APIService, over HTTPS (python3 stdlib only).

    extension_server.py CERT KEY FRONT_PROXY_CA PORT_FILE REQUESTS_FILE

Listens on 127.0.0.1 on a free port (written to PORT_FILE) and serves the group
wardle.example.com, version v1alpha1, with one namespaced resource, flunders (get, list): its
discovery (/apis, /apis/<g>, /apis/<g>/<v>), its OpenAPI v3 (/openapi/v3 and the group/version's
document) and two flunders in "default". As an extension server built on k8s.io/apiserver does,
it accepts a request only with a client certificate signed by FRONT_PROXY_CA whose common name is
front-proxy-client, and takes the user from X-Remote-User, X-Remote-Group and X-Remote-Extra-*;
it appends what it received, one JSON document a line, to REQUESTS_FILE.
"""
import json
import sys
import threading
import time

from extension_https import NOT_FOUND, UNAUTHORIZED, JsonHandler, serve

cert, key, front_proxy_ca, port_file, requests_file = sys.argv[1:6]
lock = threading.Lock()
GROUP, VERSION = "wardle.example.com", "v1alpha1"
GV = GROUP + "/" + VERSION

FLUNDERS = {
    "one": {"reference": "first", "size": 1},
    "two": {"reference": "second", "size": 2},
}


def flunder(name):
    return {"apiVersion": GV, "kind": "Flunder",
            "metadata": {"name": name, "namespace": "default",
                         "creationTimestamp": "2026-01-01T00:00:00Z", "resourceVersion": "1"},
            "spec": FLUNDERS[name]}


RESOURCES = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": GV,
             "resources": [{"name": "flunders", "singularName": "flunder", "namespaced": True,
                            "kind": "Flunder", "verbs": ["get", "list"],
                            "shortNames": ["fl"], "categories": ["wardle"]}]}
GROUP_DOC = {"kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
             "versions": [{"groupVersion": GV, "version": VERSION}],
             "preferredVersion": {"groupVersion": GV, "version": VERSION}}
OPENAPI_PATHS = {"paths": {"apis/" + GV: {
    "serverRelativeURL": "/openapi/v3/apis/" + GV + "?hash=0123456789ABCDEF"}}}
GVK = [{"group": GROUP, "version": VERSION, "kind": "Flunder"}]
OPENAPI_DOC = {
    "openapi": "3.0.0",
    "info": {"title": "Wardle", "version": VERSION},
    "paths": {
        "/apis/" + GV + "/namespaces/{namespace}/flunders/{name}": {"get": {
            "x-kubernetes-action": "get",
            "x-kubernetes-group-version-kind": GVK[0],
            "responses": {"200": {"description": "OK", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/com.example.wardle.v1alpha1.Flunder"}}}}},
        }},
    },
    "components": {"schemas": {
        "com.example.wardle.v1alpha1.Flunder": {
            "description": "A Flunder is served by the test extension API server.",
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string", "description": "The schema version."},
                "kind": {"type": "string", "description": "The kind."},
                "metadata": {"type": "object", "description": "Standard object metadata."},
                "spec": {"description": "What the flunder refers to.",
                         "allOf": [{"$ref": "#/components/schemas/com.example.wardle.v1alpha1.FlunderSpec"}]},
            },
            "x-kubernetes-group-version-kind": GVK,
        },
        "com.example.wardle.v1alpha1.FlunderSpec": {
            "description": "What the flunder refers to.",
            "type": "object",
            "properties": {
                "reference": {"type": "string", "description": "The name of another flunder."},
                "size": {"type": "integer", "format": "int32", "description": "How big it is."},
            },
        },
    }},
}

# The same kind in Swagger 2.0, as /openapi/v2 serves it (definitions without "components").
OPENAPI_V2 = {
    "swagger": "2.0",
    "info": {"title": "Wardle", "version": VERSION},
    "paths": {
        "/apis/" + GV + "/namespaces/{namespace}/flunders/{name}": {"get": {
            "operationId": "readWardleV1alpha1NamespacedFlunder",
            "x-kubernetes-action": "get",
            "x-kubernetes-group-version-kind": GVK[0],
            "responses": {"200": {"description": "OK", "schema": {
                "$ref": "#/definitions/com.example.wardle.v1alpha1.Flunder"}}}}},
        "/apis/other.example.com/v1/things": {"get": {
            "responses": {"200": {"description": "not this APIService's"}}}},
    },
    "definitions": {
        "com.example.wardle.v1alpha1.Flunder": {
            "description": "A Flunder is served by the test extension API server.",
            "type": "object",
            "properties": {"spec": {"$ref": "#/definitions/com.example.wardle.v1alpha1.FlunderSpec"}},
            "x-kubernetes-group-version-kind": GVK,
        },
        "com.example.wardle.v1alpha1.FlunderSpec": {
            "type": "object",
            "properties": {"reference": {"type": "string"}},
        },
    },
}


def not_found(name):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'flunders.wardle.example.com "%s" not found' % name,
            "reason": "NotFound", "details": {"name": name, "group": GROUP, "kind": "flunders"},
            "code": 404}


class Handler(JsonHandler):
    def record(self):
        cn = self.client_cn()
        extra = {k[len("X-Remote-Extra-"):].lower(): self.headers.get_all(k)
                 for k in self.headers.keys() if k.lower().startswith("x-remote-extra-")}
        entry = {"method": self.command, "path": self.path, "client_cn": cn,
                 "user": self.headers.get("X-Remote-User"),
                 "groups": self.headers.get_all("X-Remote-Group") or [],
                 "extra": extra,
                 "authorization": self.headers.get("Authorization"),
                 "impersonate": self.headers.get("Impersonate-User")}
        with lock, open(requests_file, "a") as f:
            f.write(json.dumps(entry) + "\n")
        return cn

    def stream_events(self):
        # One event now, then nothing for 20 s (the client leaves first), then the end.
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            event = json.dumps({"type": "ADDED", "object": flunder("one")}).encode() + b"\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
            time.sleep(20)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass

    def do_GET(self):
        cn = self.record()
        if cn != ["front-proxy-client"] or not self.headers.get("X-Remote-User"):
            return self.send(UNAUTHORIZED, 401)
        if self.send_discovery(GROUP_DOC, RESOURCES):
            return
        path, base = self.route(), "/apis/" + GV
        if path == "/openapi/v2":
            return self.send(OPENAPI_V2)
        if path == "/openapi/v3":
            return self.send(OPENAPI_PATHS)
        if path == "/openapi/v3/apis/" + GV:
            return self.send(OPENAPI_DOC)
        watch = "watch=true" in self.path or "watch=1" in self.path
        if watch and path in (base + "/flunders", base + "/namespaces/default/flunders"):
            return self.stream_events()
        if path in (base + "/flunders", base + "/namespaces/default/flunders"):
            return self.send({"apiVersion": GV, "kind": "FlunderList",
                              "metadata": {"resourceVersion": "1"},
                              "items": [flunder(n) for n in sorted(FLUNDERS)]})
        prefix = base + "/namespaces/default/flunders/"
        if path.startswith(prefix):
            name = path[len(prefix):]
            if name in FLUNDERS:
                return self.send(flunder(name))
            return self.send(not_found(name), 404)
        self.send(NOT_FOUND, 404)


serve(Handler, cert, key, front_proxy_ca, port_file)
