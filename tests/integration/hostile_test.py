#!/usr/bin/python3
"""Sends hostile requests to a running kube-sandbox (issue 14: nothing a client sends can stop the
server). Each case is one request; after each the test checks that

  - the answer has kube-apiserver v1.32's status code (and its Status reason and message where
    upstream's exact text is known: each expectation names the upstream source it comes from);
  - the server still answers /readyz with 200;
  - the ConfigMap, Secret and Deployment written at the start read back byte for byte the same.

Python's standard library only: every request has a socket timeout, so a server that hangs fails
the case instead of the test hanging. Prints one line per case and exits 1 if any check failed.

Upstream sources named below are paths in k8s.io/apiserver (apiserver/...), k8s.io/apimachinery
(apimachinery/...), sigs.k8s.io/json (sigs-json/...) at v0.32.0, kubernetes/kubernetes v1.32
(kubernetes/...) and their dependencies.

Usage: hostile_test.py KUBECONFIG   (with_sandbox.sh passes it)
  HOSTILE_ONLY=TEXT runs only the cases whose name contains TEXT; HOSTILE_LIST=1 lists the names.
"""
import atexit
import base64
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import sys
import tempfile
import time
from urllib.parse import quote, urlparse

TIMEOUT = 20.0  # seconds per socket operation
NS = "default"
CM_PATH = f"/api/v1/namespaces/{NS}/configmaps"
DEPLOY_PATH = f"/apis/apps/v1/namespaces/{NS}/deployments"


class Contains:
    """An expected message known only in part: the answer's message must contain `text`."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"Contains({self.text!r})"


class BodyContains:
    """An answer that is not a Status: its body must contain `text`."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"BodyContains({self.text!r})"


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def status_doc(self):
        try:
            doc = json.loads(self.body)
        except ValueError:
            return None
        return doc if isinstance(doc, dict) and doc.get("kind") == "Status" else None


class Sandbox:
    """Where the sandbox listens and how to reach it, from its kubeconfig."""

    def __init__(self, kubeconfig):
        text = open(kubeconfig).read()
        fields = {}
        for key in ("server", "certificate-authority-data", "client-certificate-data",
                    "client-key-data", "token"):
            m = re.search(r"^\s*" + re.escape(key) + r":\s*\"?([^\"\s]+)\"?\s*$", text, re.M)
            if m:
                fields[key] = m.group(1)
        url = urlparse(fields["server"])
        self.host, self.port = url.hostname, url.port or 443
        self.tmp = tempfile.mkdtemp()
        atexit.register(shutil.rmtree, self.tmp, True)
        ca = os.path.join(self.tmp, "ca.crt")
        cert = os.path.join(self.tmp, "client.crt")
        key = os.path.join(self.tmp, "client.key")
        for path, field in ((ca, "certificate-authority-data"), (cert, "client-certificate-data"),
                            (key, "client-key-data")):
            with open(path, "wb") as f:
                f.write(base64.b64decode(fields[field]))
        self.anonymous = ssl.create_default_context(cafile=ca)
        self.anonymous.check_hostname = False
        self.admin = ssl.create_default_context(cafile=ca)
        self.admin.check_hostname = False
        self.admin.load_cert_chain(cert, key)

    def request(self, method, path, body=None, headers=None, auth=True, timeout=TIMEOUT):
        """One request on a fresh connection; the whole body is read (bounded by `timeout`)."""
        conn = http.client.HTTPSConnection(self.host, self.port, timeout=timeout,
                                           context=self.admin if auth else self.anonymous)
        try:
            hdrs = {"Accept": "application/json"}
            if body is not None:
                hdrs["Content-Type"] = "application/json"
            hdrs.update(headers or {})
            if isinstance(body, str):
                body = body.encode()
            deadline = time.monotonic() + timeout
            conn.request(method, path, body=body, headers=hdrs)
            response = conn.getresponse()
            data = b""
            # Chunk by chunk, so that a stream that never ends (a watch) cannot outlast the
            # deadline.
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                data += chunk
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the answer did not end within {timeout:.0f} s")
            return Answer(response.status, dict(response.getheaders()), data)
        finally:
            conn.close()

    def raw(self, head, body_part=b"", auth=True, timeout=TIMEOUT):
        """Sends `head` (and `body_part`, possibly less than Content-Length says) on a TLS socket and
        returns the answer's status line code, or raises on timeout. Used where http.client would
        refuse to send or wait for the rest of the body."""
        context = self.admin if auth else self.anonymous
        with socket.create_connection((self.host, self.port), timeout=timeout) as plain:
            with context.wrap_socket(plain, server_hostname=self.host) as tls:
                try:
                    tls.sendall(head + body_part)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass  # the server may answer and close before taking everything
                data = b""
                deadline = time.monotonic() + timeout
                while b"\r\n\r\n" not in data and time.monotonic() < deadline:
                    try:
                        chunk = tls.recv(65536)
                    except (ConnectionResetError, ssl.SSLError):
                        break
                    if not chunk:
                        break
                    data += chunk
                if not data.startswith(b"HTTP/1.1 "):
                    raise ConnectionError(f"no HTTP answer (got {data[:80]!r})")
                head_text, _, rest = data.partition(b"\r\n\r\n")
                status = int(head_text.split(b" ")[1])
                headers = {}
                for line in head_text.split(b"\r\n")[1:]:
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip()] = value.strip()
                length = int(headers.get("Content-Length", "0") or 0)
                while len(rest) < length and time.monotonic() < deadline:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    rest += chunk
                return Answer(status, headers, rest)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def configmap(name, data=None):
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    if data is not None:
        doc["data"] = data
    return doc


def deployment(name, strategy=None):
    spec = {"replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
    if strategy is not None:
        spec["strategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": spec}


def nested_configmap(depth):
    """A ConfigMap create body whose JSON nests `depth` deep (the outer object counts as 1)."""
    head = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"x":'
    arrays = depth - 2
    return head + "[" * arrays + "]" * arrays + "}}"


def nested_merge_patch(depth):
    arrays = depth - 2
    return '{"data":{"x":' + "[" * arrays + "]" * arrays + "}}"


def object_summary(body):
    """kube-apiserver's summary of a body it could not decode (handlers/rest.go summarizeData)."""
    data = body.encode() if isinstance(body, str) else body
    if data[:1] == b"{":
        return data[:30].decode() + " ..." if len(data) > 30 else data.decode()
    return data[:30].hex() + " ..." if len(data) > 30 else data.hex()


BILLION_LAUGHS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: laughs
data:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""

LONG_NAME = "a" * 500_000
NOT_JSON = "{nope}"
DEEP_CREATE = nested_configmap(10_001)
DEEPER_CREATE = nested_configmap(100_000)
OTHER_KIND = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "other-kind"}}
CRONJOB = {
    "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hostile-cron"},
    "spec": {"schedule": "99999999999 * * * *",
             "jobTemplate": {"spec": {"template": {"spec": {
                 "restartPolicy": "OnFailure",
                 "containers": [{"name": "c", "image": "busybox"}]}}}}}}
SELECTOR_KEY = "a" * 100_000

# Shared messages.
# apiserver/pkg/endpoints/handlers/negotiation/errors.go (errUnsupportedMediaType); the body
# serializers of built-in kinds (json, yaml, protobuf; CBOR is off by default in v1.32).
BODY_MEDIA_TYPES = ("the body of the request was in an unknown format - accepted media types "
                    "include: application/json, application/yaml, "
                    "application/vnd.kubernetes.protobuf")
# apiserver/pkg/storage/continue.go (ErrGenericInvalidKey and friends) wrapped by
# apiserver/pkg/storage/etcd3/store.go GetList ("invalid continue token: %v").
BAD_CONTINUE = "invalid continue token: continue key is not valid"


def cases(sb):
    """(name, send, code, reason, message): send() returns an Answer. reason/message None: not
    checked; reason "": kube-apiserver's StatusReasonUnknown (no reason field)."""
    post = lambda body, **kw: sb.request("POST", CM_PATH, json.dumps(body) if isinstance(body, dict)
                                         else body, **kw)
    patch = lambda body, kind, name="hostile-cm": sb.request(
        "PATCH", f"{CM_PATH}/{name}", body, {"Content-Type": kind})
    list_with = lambda query: sb.request("GET", f"{CM_PATH}?{query}")
    deep_patch = lambda depth: patch(nested_merge_patch(depth), "application/merge-patch+json")

    def cont(token_json):
        return list_with("limit=1&continue=" + quote(b64url(token_json)))

    return [
        # apiserver/pkg/endpoints/filters/request_deadline.go (parseTimeout, before authentication);
        # Go time.ParseDuration's `time: invalid duration "…"`.
        ("timeout of 400 digits without credentials",
         lambda: sb.request("GET", "/version?timeout=" + "9" * 400 + "s", auth=False),
         400, "BadRequest",
         'invalid timeout specified in the request URL - time: invalid duration "'
         + "9" * 400 + 's"'),

        # request_deadline.go: long-running requests (a watch) skip the timeout parameter.
        ("timeout of 400 digits on a watch",
         lambda: list_with("watch=true&timeoutSeconds=1&timeout=" + "9" * 400 + "s"),
         200, None, None),

        # Continue tokens that decode to JSON of other shapes (encoding/json's messages).
        ("continue token of an array", lambda: cont(b"[]"), 400, "BadRequest",
         BAD_CONTINUE + ": json: cannot unmarshal array into Go value of type "
         "storage.continueToken"),
        ("continue token of a string", lambda: cont(b'"x"'), 400, "BadRequest",
         BAD_CONTINUE + ": json: cannot unmarshal string into Go value of type "
         "storage.continueToken"),
        ("continue token with a number for its version", lambda: cont(b'{"v":5}'), 400,
         "BadRequest", BAD_CONTINUE + ": json: cannot unmarshal number into Go struct field "
         "continueToken.v of type string"),
        ("continue token with a string for its revision",
         lambda: cont(b'{"v":"meta.k8s.io/v1","rv":"1","start":"a"}'), 400, "BadRequest",
         BAD_CONTINUE + ": json: cannot unmarshal string into Go struct field continueToken.rv "
         "of type int64"),
        ("continue token with a revision of 1e99",
         lambda: cont(b'{"v":"meta.k8s.io/v1","rv":1e99,"start":"a"}'), 400, "BadRequest",
         BAD_CONTINUE + ": json: cannot unmarshal number 1e99 into Go struct field "
         "continueToken.rv of type int64"),
        ("continue token of an empty object", lambda: cont(b"{}"), 400, "BadRequest",
         BAD_CONTINUE + ": server does not recognize this encoded version "),
        ("continue token with revision 0",
         lambda: cont(b'{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'), 400, "BadRequest",
         BAD_CONTINUE + ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
        ("continue token that climbs out of its prefix",
         lambda: cont(b'{"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/default/x"}'), 400,
         "BadRequest", BAD_CONTINUE + ": ../secrets/default/x"),
        ("continue token that is not base64", lambda: list_with("limit=1&continue=%21%21%21"),
         400, "BadRequest", BAD_CONTINUE + ": illegal base64 data at input byte 0"),

        # apiserver/pkg/endpoints/handlers/delete.go: a DeleteOptions body that does not decode
        # is passed on as it is, so responsewriters/status.go ErrorToAPIStatus makes it a 500
        # with StatusReasonUnknown; the text is sigs-json's UnmarshalTypeError.
        ("DeleteOptions with a number for propagationPolicy",
         lambda: sb.request("DELETE", f"{CM_PATH}/hostile-delete",
                            json.dumps({"propagationPolicy": 5})),
         500, "", "json: cannot unmarshal number into Go struct field "
         "DeleteOptions.propagationPolicy of type v1.DeletionPropagation"),
        ("DeleteOptions with a string for gracePeriodSeconds",
         lambda: sb.request("DELETE", f"{CM_PATH}/hostile-delete",
                            json.dumps({"gracePeriodSeconds": "soon"})),
         500, "", "json: cannot unmarshal string into Go struct field "
         "DeleteOptions.gracePeriodSeconds of type int64"),
        ("DeleteOptions with a number for preconditions.uid",
         lambda: sb.request("DELETE", f"{CM_PATH}/hostile-delete",
                            json.dumps({"preconditions": {"uid": 5}})),
         500, "", "json: cannot unmarshal number into Go struct field "
         "Preconditions.preconditions.uid of type types.UID"),

        # apiserver/pkg/endpoints/handlers/create.go and update.go: transformDecodeError
        # (handlers/rest.go) around the decoder's message.
        ("TokenReview with a number for its token",
         lambda: sb.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews", json.dumps(
             {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
              "spec": {"token": 5}})),
         400, "BadRequest", 'TokenReview in version "v1" cannot be handled as a TokenReview: '
         "json: cannot unmarshal number into Go struct field TokenReviewSpec.spec.token of type "
         "string"),
        ("Scale with a number for its name",
         lambda: sb.request("PUT", f"{DEPLOY_PATH}/hostile-web/scale", json.dumps(
             {"apiVersion": "autoscaling/v1", "kind": "Scale",
              "metadata": {"name": 5, "namespace": NS}, "spec": {"replicas": 2}})),
         400, "BadRequest", 'Scale in version "v1" cannot be handled as a Scale: json: cannot '
         "unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
        ("Scale with a string for its replicas",
         lambda: sb.request("PUT", f"{DEPLOY_PATH}/hostile-web/scale", json.dumps(
             {"apiVersion": "autoscaling/v1", "kind": "Scale",
              "metadata": {"name": "hostile-web", "namespace": NS}, "spec": {"replicas": "2"}})),
         400, "BadRequest", 'Scale in version "v1" cannot be handled as a Scale: json: cannot '
         "unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32"),

        # sigs.k8s.io/yaml JSONToYAML quotes the string "[" ('['): served as any other value.
        ("YAML of a ConfigMap whose value is [",
         lambda: sb.request("GET", f"{CM_PATH}/hostile-cm", headers={"Accept": "application/yaml"}),
         200, None, BodyContains("k: '['\n")),

        # apimachinery/pkg/util/validation/validation.go IsDNS1123Subdomain (MaxLenError) as a
        # field.Invalid (util/validation/field/errors.go) in api/errors NewInvalid.
        ("name of 500,000 characters", lambda: post(configmap(LONG_NAME)), 422, "Invalid",
         f'ConfigMap "{LONG_NAME}" is invalid: metadata.name: Invalid value: "{LONG_NAME}": '
         "must be no more than 253 characters"),

        # encoding/json's scanner (apimachinery/pkg/runtime/serializer/json/meta.go reads the
        # kind first) stops at 10,000 levels: "exceeded max depth"; handlers/rest.go
        # transformDecodeError adds the summary of the body.
        ("create nested 10,001 deep", lambda: post(DEEP_CREATE), 400, "BadRequest",
         "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
         "version/kind; json parse error: invalid character '[' exceeded max depth ("
         + object_summary(DEEP_CREATE) + ")"),
        ("create nested 100,000 deep", lambda: post(DEEPER_CREATE), 400, "BadRequest",
         "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
         "version/kind; json parse error: invalid character '[' exceeded max depth ("
         + object_summary(DEEPER_CREATE) + ")"),
        # apiserver/pkg/endpoints/handlers/patch.go applyJSPatch: the patch is decoded strictly
        # first (fieldValidation defaults to Warn, handlers/rest.go fieldValidation);
        # sigs-json/internal/golang/encoding/json/scanner.go maxNestingDepth.
        ("merge patch nested 10,001 deep", lambda: deep_patch(10_001), 400, "BadRequest",
         "error decoding patch: invalid character '[' exceeded max depth"),
        ("merge patch nested 100,000 deep", lambda: deep_patch(100_000), 400, "BadRequest",
         "error decoding patch: invalid character '[' exceeded max depth"),

        # kubernetes/pkg/apis/apps/validation/validation.go ValidateRollingUpdateDeployment: a
        # percent of any size is valid for maxSurge (only maxUnavailable is held to 100%).
        ("Deployment with maxSurge 99999999999999999999%",
         lambda: sb.request("POST", DEPLOY_PATH, json.dumps(deployment("hostile-surge", {
             "type": "RollingUpdate",
             "rollingUpdate": {"maxSurge": "99999999999999999999%", "maxUnavailable": 1}}))),
         201, None, None),
        # kubernetes/pkg/apis/batch/validation/validation.go validateScheduleFormat with
        # github.com/robfig/cron/v3 parser.go getRange.
        ("CronJob schedule field of 11 digits",
         lambda: sb.request("POST", f"/apis/batch/v1/namespaces/{NS}/cronjobs", json.dumps(CRONJOB)),
         422, "Invalid", 'CronJob.batch "hostile-cron" is invalid: spec.schedule: Invalid value: '
         '"99999999999 * * * *": end of range (99999999999) above maximum (59): 99999999999'),

        # apimachinery/pkg/runtime/serializer/yaml/yaml_test.go: the YAML decoder refuses
        # excessive aliasing; create.go wraps it as a BadRequest.
        ("YAML billion laughs",
         lambda: post(BILLION_LAUGHS, headers={"Content-Type": "application/yaml"}),
         400, "BadRequest", Contains("excessive aliasing")),

        # go-yaml reads the escapes \N and \_ as U+0085 and U+00A0 (a fuzz finding: they once
        # became bytes that are not UTF-8, and the create a 500).
        ("YAML escapes \\N and \\_",
         lambda: post('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: yaml-escapes}\n'
                      'data: {n: "a\\Nb\\_c"}\n', headers={"Content-Type": "application/yaml"}),
         201, None, None),

        # apiserver/pkg/server/handler.go serviceErrorHandler: go-restful's 405 becomes
        # apimachinery/pkg/api/errors/errors.go NewGenericServerResponse(405).
        ("PUT on a collection",
         lambda: sb.request("PUT", CM_PATH, json.dumps(configmap("put-on-collection"))),
         405, "MethodNotAllowed", "the server does not allow this method on the requested "
         "resource"),

        # apimachinery/pkg/runtime/serializer/json/meta.go Interpret, handlers/rest.go
        # transformDecodeError.
        ("body that is not JSON", lambda: post(NOT_JSON), 400, "BadRequest",
         "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
         "version/kind; json parse error: invalid character 'n' looking for beginning of object "
         "key string (" + object_summary(NOT_JSON) + ")"),
        # apimachinery/pkg/runtime/scheme.go Convert (no conversion between kinds).
        ("body of another kind", lambda: post(OTHER_KIND), 400, "BadRequest",
         'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to '
         "(core.ConfigMap): unknown conversion"),

        # apiserver/pkg/server/secure_serving.go: MaxHeaderBytes 1 MiB; Go's net/http answers
        # 431 in plain text.
        ("header of 1.1 MiB",
         lambda: sb.raw(b"GET /readyz HTTP/1.1\r\nHost: x\r\nX-Hostile: " + b"a" * (1_100_000)
                        + b"\r\n\r\n"),
         431, None, None),

        # apiserver/pkg/endpoints/filters/authentication.go: a bearer token that authenticates
        # no one is refused before the handler reads anything. The declared 2 MB (under the 3 MiB
        # body limit) is never sent: the answer must come without it.
        ("body behind a bad token is not read",
         lambda: sb.raw(f"POST {CM_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nobody\r\n"
                        "Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n"
                        .encode(), b'{"apiVersion":', auth=False),
         401, "Unauthorized", "Unauthorized"),
        # apiserver/pkg/endpoints/handlers/responsewriters/errors.go ForbiddenStatusError: the
        # anonymous user may not create (authorization, before the body is read).
        ("body without credentials is not read",
         lambda: sb.raw(f"POST {CM_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Content-Length: 2000000\r\n\r\n".encode(), b'{"apiVersion":', auth=False),
         403, "Forbidden", 'configmaps is forbidden: User "system:anonymous" cannot create '
         'resource "configmaps" in API group "" in the namespace "default"'),

        # Query parameters: apimachinery/pkg/runtime/conversion.go Convert_Slice_string_To_int64
        # (strconv.ParseInt), made a BadRequest by handlers/get.go ListResource.
        ("limit=abc", lambda: list_with("limit=abc"), 400, "BadRequest",
         'strconv.ParseInt: parsing "abc": invalid syntax'),
        ("timeoutSeconds=1e99 on a watch", lambda: list_with("watch=true&timeoutSeconds=1e99"),
         400, "BadRequest", 'strconv.ParseInt: parsing "1e99": invalid syntax'),
        # handlers/get.go and handlers/watch.go: a negative timeout ends the watch at once.
        ("timeoutSeconds=-1 on a watch", lambda: list_with("watch=true&timeoutSeconds=-1"),
         200, None, None),
        # apiserver/pkg/storage/api_object_versioner.go ParseResourceVersion returns a storage
        # InvalidError, which the watch handler passes on (a 500 with StatusReasonUnknown).
        ("resourceVersion=x on a watch",
         lambda: list_with("watch=true&resourceVersion=x&timeoutSeconds=5"),
         500, "", 'resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid '
         "syntax"),

        ("Content-Type text/plain on a create",
         lambda: post(configmap("plain"), headers={"Content-Type": "text/plain"}),
         415, "UnsupportedMediaType", BODY_MEDIA_TYPES),
        # apiserver/pkg/endpoints/installer.go: PATCH consumes only the patch types, so
        # go-restful refuses the rest (handler.go serviceErrorHandler, NewGenericServerResponse).
        ("Content-Type application/json on a patch",
         lambda: patch('{"data":{"k":"v"}}', "application/json"),
         415, "UnsupportedMediaType", "415: Unsupported Media Type"),

        # apimachinery/pkg/labels/selector.go Parse and validateLabelKey
        # (util/validation/validation.go IsQualifiedName); parseKeyAndInferOperator validates the
        # key at the parser's path, which a plain Parse leaves nil, printed "<nil>".
        ("label selector of 100,000 characters", lambda: list_with("labelSelector=" + SELECTOR_KEY),
         400, "BadRequest", f'unable to parse requirement: <nil>: Invalid value: "{SELECTOR_KEY}": '
         "name part must be no more than 63 characters"),

        # Patches of every type with the wrong shape: apiserver/pkg/endpoints/handlers/patch.go
        # (applyJSPatch decodes JSON and merge patches strictly first; strategicPatchObject;
        # applyPatcher "error decoding YAML").
        ("JSON patch that is an object", lambda: patch("{}", "application/json-patch+json"),
         400, "BadRequest", "error decoding patch: json: cannot unmarshal object into Go value "
         "of type []handlers.jsonPatchOp"),
        ("JSON patch of a number", lambda: patch("[5]", "application/json-patch+json"),
         400, "BadRequest", "error decoding patch: json: cannot unmarshal number into Go value "
         "of type handlers.jsonPatchOp"),
        ("JSON patch with a number for a path",
         lambda: patch('[{"op":"add","path":5,"value":"x"}]', "application/json-patch+json"),
         400, "BadRequest", "error decoding patch: json: cannot unmarshal number into Go struct "
         "field jsonPatchOp.path of type string"),
        ("merge patch that is an array", lambda: patch("[]", "application/merge-patch+json"),
         400, "BadRequest", "error decoding patch: json: cannot unmarshal array into Go value of "
         "type map[string]interface {}"),
        ("merge patch that is not JSON", lambda: patch("{x", "application/merge-patch+json"),
         400, "BadRequest", "error decoding patch: invalid character 'x' looking for beginning "
         "of object key string"),
        # handlers/patch.go applyPatchToCurrentObject: the patched object does not decode.
        ("merge patch with a number for data",
         lambda: patch('{"data":5}', "application/merge-patch+json"), 422, "Invalid", None),
        ("strategic merge patch that is an array",
         lambda: patch("[]", "application/strategic-merge-patch+json"),
         400, "BadRequest", "json: cannot unmarshal array into Go value of type "
         "map[string]interface {}"),
        ("apply patch of a number",
         lambda: sb.request("PATCH", f"{CM_PATH}/hostile-cm?fieldManager=hostile", "5",
                            {"Content-Type": "application/apply-patch+yaml"}),
         400, "BadRequest", Contains("error decoding YAML: ")),
    ]


def check_answer(answer, code, reason, message):
    problems = []
    if answer.status != code:
        doc = answer.status_doc()
        said = (doc or {}).get("message", answer.body[:200])
        problems.append(f"code {answer.status}, want {code} ({str(said)[:300]})")
        return problems
    if isinstance(message, BodyContains):
        if message.text.encode() not in answer.body:
            problems.append(f"the body {answer.body[:200]!r} lacks {message.text!r}")
        return problems
    if reason is None and message is None:
        return problems
    doc = answer.status_doc()
    if doc is None:
        return [f"the answer is not a Status: {answer.body[:200]!r}"]
    if reason is not None and doc.get("reason", "") != reason:
        problems.append(f"reason {doc.get('reason', '')!r}, want {reason!r}")
    got = doc.get("message", "")
    if isinstance(message, Contains):
        if message.text not in got:
            problems.append(f"message {got[:300]!r} lacks {message.text!r}")
    elif message is not None and got != message:
        problems.append(f"message {shorten(got)!r}, want {shorten(message)!r}")
    return problems


def shorten(text, keep=300):
    return text if len(text) <= keep else f"{text[:keep]}...({len(text)} characters)"


class Fixtures:
    """The objects written at the start; each must read back byte for byte the same."""

    PATHS = [f"{CM_PATH}/hostile-cm", f"/api/v1/namespaces/{NS}/secrets/hostile-secret",
             f"{DEPLOY_PATH}/hostile-web"]

    def __init__(self, sb):
        self.sb = sb
        writes = [
            (CM_PATH, configmap("hostile-cm", {"k": "[", "other": "value"})),
            (f"/api/v1/namespaces/{NS}/secrets",
             {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hostile-secret"},
              "data": {"password": base64.b64encode(b"s3cr3t").decode()}}),
            (DEPLOY_PATH, deployment("hostile-web")),
            (CM_PATH, configmap("hostile-delete")),
        ]
        for path, body in writes:
            answer = sb.request("POST", path, json.dumps(body))
            if answer.status != 201:
                raise SystemExit(f"FAIL setup: POST {path}: {answer.status} {answer.body[:300]!r}")
        # Settle: anything a controller adds at once (a status) is part of the baseline.
        self.baseline = self.read()
        for _ in range(50):
            time.sleep(0.1)
            again = self.read()
            if again == self.baseline:
                break
            self.baseline = again

    def read(self):
        return [self.sb.request("GET", p).body for p in self.PATHS]

    def problems(self):
        try:
            now = self.read()
        except (OSError, http.client.HTTPException) as e:
            return [f"the objects cannot be read back: {e}"]
        return [f"{path} changed" for path, before, after in zip(self.PATHS, self.baseline, now)
                if before != after]


def readyz_problems(sb):
    try:
        answer = sb.request("GET", "/readyz", timeout=10)
    except (OSError, http.client.HTTPException) as e:
        return [f"/readyz: {type(e).__name__}: {e}"]
    return [] if answer.status == 200 else [f"/readyz answered {answer.status}"]


def main():
    sb = Sandbox(sys.argv[-1])
    fixtures = Fixtures(sb)
    table = [c for c in cases(sb) if os.environ.get("HOSTILE_ONLY", "") in c[0]]
    if os.environ.get("HOSTILE_LIST"):
        print("\n".join(c[0] for c in table))
        return 0
    failed = []
    for name, send, code, reason, message in table:
        started = time.monotonic()
        try:
            problems = check_answer(send(), code, reason, message)
        except (OSError, http.client.HTTPException, ValueError) as e:
            problems = [f"no answer: {type(e).__name__}: {e}"]
        elapsed = time.monotonic() - started
        down = readyz_problems(sb)
        if down:
            print(f"FAIL {name} ({elapsed:.1f} s): {'; '.join(problems + down)}")
            print("FAIL the server stopped answering: the remaining cases cannot run")
            return 1
        problems += fixtures.problems()
        if problems:
            failed.append(name)
            print(f"FAIL {name} ({elapsed:.1f} s): {'; '.join(problems)}")
        else:
            print(f"ok   {name} ({elapsed:.1f} s)")
    # The DELETE cases above carried bad options: upstream refuses them before deleting.
    left = sb.request("GET", f"{CM_PATH}/hostile-delete").status
    if left != 200:
        failed.append("delete with bad options")
        print(f"FAIL a delete with bad options deleted its object (GET answers {left})")
    print(f"hostile requests: {len(failed)} failed of {len(table) + 1} checks" if failed else
          f"hostile requests: all {len(table) + 1} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
