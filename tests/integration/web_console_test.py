#!/usr/bin/python3
"""The web console's listener as a browser and as a hostile page would meet it: the login token
exchanged for cookies, the API through the console as the admin, the loopback protections (no
cookie, a foreign Host or Origin, a write without the CSRF token: refused, nothing stored), a
service account's token signed in as that user (RBAC applies, sign-out ends it), a watch
streamed through it; then Debian's Chromium, headless, signs in with the printed URL and
renders the page, and a deep link opened cold in the same profile shows a ConfigMap created with
kubectl.

Usage: web_console_test.py KUBECONFIG   (KS_READY_FILE names serve's ready file)
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse


def kubectl(*args, check=True):
    done = subprocess.run(["kubectl", *args], capture_output=True, text=True, timeout=60)
    if check and done.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)}: {done.stderr}")
    return done


class Console:
    def __init__(self, url, token):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.token = token
        self.cookies = {}

    def request(self, method, path, body=None, headers=None, host=None, keep=False):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"Host": host or f"127.0.0.1:{self.port}"}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        sent.update(headers or {})
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        if keep:
            return conn, response
        data = response.read()
        conn.close()
        return response, data

    def login(self):
        response, _ = self.request("GET", f"/login?token={self.token}")
        assert response.status == 303, response.status
        assert response.getheader("Location") == "/"
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, rest = value.split("=", 1)
                self.cookies[name] = rest.split(";", 1)[0]
        assert set(self.cookies) == {f"ks_session_{self.port}", f"ks_csrf_{self.port}"}, self.cookies

    def csrf(self):
        return self.cookies[f"ks_csrf_{self.port}"]


def expect_status(response, data, code, reason):
    assert response.status == code, f"want {code}, got {response.status}: {data[:300]}"
    doc = json.loads(data)
    assert doc["kind"] == "Status" and doc["code"] == code and doc.get("reason", "") == reason, doc
    return doc


def configmap_body(name):
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name}, "data": {"from": "browser"}})


def protections(console):
    r, d = console.request("GET", "/api")
    expect_status(r, d, 401, "Unauthorized")
    # The page holds no secret (without a session it offers the sign-in); the API stays closed.
    r, d = console.request("GET", "/")
    assert r.status == 200 and b"app.js" in d, d[:200]
    r, d = console.request("GET", "/login?token=" + "0" * len(console.token))
    expect_status(r, d, 401, "Unauthorized")

    console.login()
    r, d = console.request("GET", "/api")
    assert r.status == 200 and json.loads(d)["kind"] == "APIVersions", d
    r, d = console.request("GET", "/")
    assert r.status == 200 and b"app.js" in d, d[:200]
    assert "script-src 'self'" in r.getheader("Content-Security-Policy")
    assert r.getheader("Access-Control-Allow-Origin") is None

    # DNS rebinding: a page of evil.example whose name now points at 127.0.0.1.
    r, d = console.request("GET", "/api/v1/namespaces", host=f"evil.example:{console.port}")
    expect_status(r, d, 403, "Forbidden")
    # Another site's page calling the console with the user's cookies.
    r, d = console.request("GET", "/api/v1/namespaces", headers={"Origin": "http://evil.example"})
    expect_status(r, d, 403, "Forbidden")
    r, d = console.request("GET", "/api/v1/namespaces", headers={"Sec-Fetch-Site": "cross-site"})
    expect_status(r, d, 403, "Forbidden")

    # A write without the CSRF token (a form posted from elsewhere) changes nothing.
    path = "/api/v1/namespaces/default/configmaps"
    json_type = {"Content-Type": "application/json"}
    r, d = console.request("POST", path, configmap_body("forged"), json_type)
    expect_status(r, d, 403, "Forbidden")
    assert kubectl("get", "configmap", "forged", check=False).returncode != 0
    r, d = console.request("POST", path, configmap_body("forged"),
                           {**json_type, "X-CSRF-Token": "wrong"})
    expect_status(r, d, 403, "Forbidden")

    # The page's own write, as the admin: the API's answers come through unchanged.
    r, d = console.request("POST", path, configmap_body("from-browser"),
                           {**json_type, "X-CSRF-Token": console.csrf()})
    assert r.status == 201, d
    assert kubectl("get", "configmap", "from-browser", "-o", "jsonpath={.data.from}").stdout == "browser"
    r, d = console.request("POST", path, configmap_body("from-browser"),
                           {**json_type, "X-CSRF-Token": console.csrf()})
    expect_status(r, d, 409, "AlreadyExists")
    r, d = console.request("GET", "/api/v1/namespaces/default/configmaps/nothing")
    expect_status(r, d, 404, "NotFound")


def sign_in(console, token):
    response, data = console.request(
        "POST", "/login", json.dumps({"token": token}),
        {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{console.port}"})
    if response.status == 200:
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, rest = value.split("=", 1)
                console.cookies[name] = rest.split(";", 1)[0]
    return response, data


def other_user(ready, token, console):
    """A user signed in by a service account's token: authorization applies as for them."""
    kubectl("create", "serviceaccount", "web-reader")
    user = "system:serviceaccount:default:web-reader"
    reader = Console(ready["web"], token)
    r, d = sign_in(reader, "not-a-token")
    expect_status(r, d, 401, "Unauthorized")
    assert not reader.cookies
    r, d = sign_in(reader, kubectl("create", "token", "web-reader").stdout.strip())
    doc = expect_status(r, d, 200, "")
    assert doc["message"] == f'signed in as "{user}"', doc
    path = "/api/v1/namespaces/default/configmaps"
    r, d = reader.request("GET", path)
    doc = expect_status(r, d, 403, "Forbidden")
    assert doc["message"] == (f'configmaps is forbidden: User "{user}" cannot list resource '
                              '"configmaps" in API group "" in the namespace "default"'), doc
    kubectl("create", "rolebinding", "web-reader-view", "--clusterrole=view",
            "--serviceaccount=default:web-reader")
    r, d = reader.request("GET", path)
    assert r.status == 200 and json.loads(d)["kind"] == "ConfigMapList", d[:300]
    # view does not write; the admin's CSRF value is not this session's.
    json_type = {"Content-Type": "application/json"}
    r, d = reader.request("POST", path, configmap_body("by-reader"),
                          {**json_type, "X-CSRF-Token": console.csrf()})
    expect_status(r, d, 403, "Forbidden")
    r, d = reader.request("POST", path, configmap_body("by-reader"),
                          {**json_type, "X-CSRF-Token": reader.csrf()})
    doc = expect_status(r, d, 403, "Forbidden")
    assert doc["message"].startswith(f'configmaps is forbidden: User "{user}" cannot create'), doc
    assert kubectl("get", "configmap", "by-reader", check=False).returncode != 0
    # Signing out ends the session; the admin's goes on.
    r, d = reader.request("POST", "/logout", headers={"X-CSRF-Token": reader.csrf()})
    assert r.status == 200, d
    r, d = reader.request("GET", path)
    expect_status(r, d, 401, "Unauthorized")
    r, d = console.request("GET", path)
    assert r.status == 200, d[:300]


def watch_through(console):
    r, d = console.request("GET", "/api/v1/namespaces/default/configmaps")
    rv = json.loads(d)["metadata"]["resourceVersion"]
    conn, response = console.request(
        "GET", f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}", keep=True)
    assert response.status == 200, response.status
    seen = {}

    def read():
        seen["line"] = response.readline()

    reader = threading.Thread(target=read)
    reader.start()
    kubectl("create", "configmap", "watched", "--from-literal=a=1")
    reader.join(20)
    conn.close()
    event = json.loads(seen["line"])
    assert event["type"] == "ADDED" and event["object"]["metadata"]["name"] == "watched", event


def chromium(profile, url, *extra):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--window-size=1400,900",
             "--virtual-time-budget=8000", *extra, url]
    done = subprocess.run(["chromium", *flags], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def in_browser(console, shots):
    profile = tempfile.mkdtemp(prefix="ks-web-profile-")
    try:
        base = f"http://127.0.0.1:{console.port}"
        # Signing in with the printed URL: the redirect keeps the fragment, the cookie sticks.
        dom = chromium(profile, f"{base}/login?token={console.token}#/r/core/v1/namespaces",
                       "--dump-dom")
        assert "kube-system" in dom and "Watch events" in dom, dom[-2000:]
        # A deep link opened cold, in the same profile: the object kubectl wrote is listed.
        deep = f"{base}/#/r/core/v1/configmaps?ns=default"
        dom = chromium(profile, deep, "--dump-dom")
        assert "from-browser" in dom and "watched" in dom, dom[-2000:]
        if shots:
            chromium(profile, deep, f"--screenshot={shots}/web-console-configmaps.png")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def main():
    ready = json.load(open(os.environ["KS_READY_FILE"]))
    token_file = os.path.join(os.path.dirname(ready["caFile"]), "web-console.token")
    token = open(token_file).read().strip()
    assert oct(os.stat(token_file).st_mode & 0o777) == "0o600"
    console = Console(ready["web"], token)
    protections(console)
    other_user(ready, token, console)
    watch_through(console)
    assert shutil.which("chromium"), "chromium is not installed (packaging/install-deps.sh --test)"
    in_browser(console, os.environ.get("KS_SCREENSHOT_DIR"))
    print("web console: ok")


if __name__ == "__main__":
    main()
