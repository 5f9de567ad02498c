"""The fixtures/rbac lesson: every `kubectl auth can-i` row of fixtures/rbac/README.md gives the
answer the page says, and the matching real request (a dry run, so nothing changes) is refused
exactly when can-i says no. Run through with_sandbox.sh with `--fixtures fixtures/rbac`.
    rbac_lesson_test.py README KUBECONFIG"""
import re
import shlex
import subprocess
import sys

ROW = re.compile(r"^\| `(kubectl auth can-i [^`]+)` \| (yes|no) \|$")
# Where each resource the table names is served.
PREFIX = {"deployments": "/apis/apps/v1", "rolebindings": "/apis/rbac.authorization.k8s.io/v1",
          "pods": "/api/v1", "secrets": "/api/v1", "resourcequotas": "/api/v1", "nodes": "/api/v1"}


def answer_of(args):
    """can-i's answer (stdout; warnings go to stderr)."""
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


def request_for(words):
    """The kubectl command making the request the can-i row asks about."""
    verb, resource = words[3], words[4]
    namespace, subresource, identity = None, None, []
    i = 5
    while i < len(words):
        if words[i] == "-n":
            namespace = words[i + 1]
            i += 2
        elif words[i].startswith("--subresource="):
            subresource = words[i].split("=", 1)[1]
            i += 1
        elif words[i] in ("--as", "--as-group"):
            identity += words[i:i + 2]
            i += 2
        else:
            raise ValueError("unexpected word " + words[i])
    path = PREFIX[resource] + (f"/namespaces/{namespace}" if namespace else "") + "/" + resource
    item = path + "/lesson-probe" + (f"/{subresource}" if subresource else "")
    kubectl = ["kubectl"] + identity
    if verb == "list":
        return kubectl + ["get", "--raw", path]
    if verb == "get":
        return kubectl + ["get", "--raw", item]
    if verb == "create":
        return kubectl + ["create", "--raw", path + "?dryRun=All", "-f", "/dev/stdin"]
    if verb in ("update", "patch"):
        # kubectl has no raw patch; an update of a missing object is refused or not found alike.
        return kubectl + ["replace", "--raw", item + "?dryRun=All", "-f", "/dev/stdin"]
    if verb == "delete":
        return kubectl + ["delete", "--raw", item + "?dryRun=All"]
    raise ValueError("no request for verb " + verb)


def main():
    readme = sys.argv[1]
    rows = [m.groups() for m in map(ROW.match, open(readme).read().splitlines()) if m]
    assert len(rows) >= 15, f"the lesson's table has {len(rows)} rows"
    failures = []
    for command, expected in rows:
        words = shlex.split(command)
        answer = answer_of(words)
        if answer != expected:
            failures.append(f"{command}: can-i says {answer!r}, the page {expected}")
            continue
        args = request_for(words)
        done = subprocess.run(args, input="{}", capture_output=True, text=True, timeout=60)
        refused = "is forbidden: User" in done.stderr
        if refused != (expected == "no"):
            failures.append(f"{command}: the request {' '.join(args)} answered {done.stderr.strip()!r}")
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))
    print(f"rbac lesson: {len(rows)} rows ok")


main()
