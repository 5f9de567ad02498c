"""A test CRD conversion webhook over HTTPS (python3 stdlib only).

    conversion_webhook.py CERT KEY PORT_FILE LOG_FILE

Listens on 127.0.0.1 on a free port (written to PORT_FILE) and appends every ConversionReview
it receives, one JSON document a line, to LOG_FILE. Gadgets of test.example.com keep their size
as a string in v1alpha1 (spec.size: "3") and as an integer in v1alpha2 (spec.replicas: 3); the
webhook converts between the two:
  /convert   converts every object to request.desiredAPIVersion
  /refuse    answers result Failure with a message
  /wrong-uid answers for another request
"""
import http.server
import json
import ssl
import sys
import threading

cert, key, port_file, log_file = sys.argv[1:5]
lock = threading.Lock()


def convert(obj, desired):
    out = json.loads(json.dumps(obj))
    spec = out.setdefault("spec", {})
    if desired.endswith("/v1alpha2") and "size" in spec:
        spec["replicas"] = int(spec.pop("size"))
    elif desired.endswith("/v1alpha1") and "replicas" in spec:
        spec["size"] = str(spec.pop("replicas"))
    out["apiVersion"] = desired
    out.setdefault("metadata", {}).setdefault("labels", {})["converted-by"] = "webhook"
    return out


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        review = json.loads(self.rfile.read(length))
        path = self.path.split("?")[0]
        with lock, open(log_file, "a") as f:
            f.write(json.dumps({"path": self.path, "review": review}) + "\n")
        request = review["request"]
        response = {"uid": request["uid"]}
        if path == "/convert":
            response["convertedObjects"] = [convert(o, request["desiredAPIVersion"])
                                            for o in request["objects"]]
            response["result"] = {"status": "Success"}
        elif path == "/refuse":
            response["result"] = {"status": "Failure", "message": "gadgets cannot go there"}
        else:
            response["uid"] = "someone-else"
            response["result"] = {"status": "Success"}
        body = json.dumps({"apiVersion": review["apiVersion"], "kind": "ConversionReview",
                           "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
