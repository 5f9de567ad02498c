"""A test admission webhook server over HTTPS (python3 stdlib only).

    webhook_server.py CERT KEY PORT_FILE REVIEWS_FILE

Listens on 127.0.0.1 on a free port (written to PORT_FILE), answers AdmissionReviews by path and
appends every review it receives, one JSON document a line, to REVIEWS_FILE:
  /allow      allowed, with a warning and an audit annotation
  /deny       refused with code 403 and a message
  /deny-bare  refused without a status
  /mutate     allowed with a JSONPatch that adds the label mutated=yes, and a warning
  /hang       answers after 60 s
  /huge       an answer of 8 MiB
  /garbage    an answer that is not JSON
  /wrong-uid  an answer for another request
  /close      no answer: the connection is closed
"""
import base64
import http.server
import json
import ssl
import sys
import threading
import time

cert, key, port_file, reviews_file = sys.argv[1:5]
lock = threading.Lock()


def answer(review, **response):
    body = {"apiVersion": review.get("apiVersion", "admission.k8s.io/v1"),
            "kind": "AdmissionReview",
            "response": dict({"uid": review["request"]["uid"]}, **response)}
    return json.dumps(body).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, body, status=200):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        review = json.loads(self.rfile.read(length))
        path = self.path.split("?")[0]
        with lock, open(reviews_file, "a") as f:
            f.write(json.dumps({"path": self.path, "review": review}) + "\n")
        if path == "/allow":
            self.send(answer(review, allowed=True, warnings=["allowed by the test webhook"],
                             auditAnnotations={"checked": "yes"}))
        elif path == "/deny":
            self.send(answer(review, allowed=False, status={"code": 403, "message": "no thanks"}))
        elif path == "/deny-bare":
            self.send(answer(review, allowed=False))
        elif path == "/mutate":
            labels = (review["request"]["object"].get("metadata") or {}).get("labels")
            ops = [] if labels else [{"op": "add", "path": "/metadata/labels", "value": {}}]
            ops.append({"op": "add", "path": "/metadata/labels/mutated", "value": "yes"})
            patch = base64.b64encode(json.dumps(ops).encode()).decode()
            self.send(answer(review, allowed=True, patchType="JSONPatch", patch=patch,
                             warnings=["mutated by the test webhook"]))
        elif path == "/hang":
            time.sleep(60)
            self.send(answer(review, allowed=True))
        elif path == "/huge":
            self.send(b'{"padding":"' + b"x" * (8 << 20) + b'"}')
        elif path == "/garbage":
            self.send(b"this is not json")
        elif path == "/close":
            self.close_connection = True
            self.connection.shutdown(2)
        elif path == "/wrong-uid":
            review["request"]["uid"] = "not-the-one"
            self.send(answer(review, allowed=True))
        else:
            self.send(b"{}", 404)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
