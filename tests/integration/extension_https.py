"""What the test extension API servers share (python3 stdlib only): a request handler that answers
JSON, their discovery documents, and the HTTPS listener that, as a server built on k8s.io/apiserver, requires a client
certificate signed by the front proxy's CA and writes the port it got to a file."""
import http.server
import json
import os
import ssl

NOT_FOUND = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
             "code": 404, "message": "the server could not find the requested resource"}
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                "reason": "Unauthorized", "code": 401, "message": "Unauthorized"}


class JsonHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, doc, status=200):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route(self):
        """The request's path, without the query and a trailing slash."""
        return self.path.split("?")[0].rstrip("/")

    def send_discovery(self, group_doc, resources):
        """Answers /apis, /apis/<group> and /apis/<group>/<version> for a server of one group
        version; whether the request was one of them."""
        path = self.route()
        documents = {"/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [group_doc]},
                     "/apis/" + group_doc["name"]: group_doc,
                     "/apis/" + resources["groupVersion"]: resources}
        if path not in documents:
            return False
        self.send(documents[path])
        return True

    def client_cn(self):
        """The common names of the client certificate's subject."""
        subject = self.connection.getpeercert().get("subject", ())
        return [v for rdn in subject for (k, v) in rdn if k == "commonName"]


def serve(handler, cert, key, front_proxy_ca, port_file):
    """Serves `handler` on 127.0.0.1 on a free port, written to port_file once listening."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.load_verify_locations(front_proxy_ca)
    context.verify_mode = ssl.CERT_REQUIRED
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(port_file + ".part", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".part", port_file)
    server.serve_forever()
