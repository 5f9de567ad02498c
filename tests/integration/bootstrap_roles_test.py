#!/usr/bin/python3
"""A table of what each bootstrap role allows, checked twice per row: `kubectl auth can-i` with
the user's token, and the request itself (allowed: anything but 403; refused: 403 with
kube-apiserver's Forbidden message). Requests that are allowed do no harm: they name objects
that do not exist or send empty bodies that fail validation after authorization.

Expected values come from upstream, not from this server:
  - the RBAC documentation's user-facing roles (kubernetes.io, access-authn-authz/rbac):
    cluster-admin does anything; admin in a RoleBinding reads and writes most of the namespace,
    roles and role bindings included, but not resource quotas or the namespace itself; edit
    reads and writes most objects but not roles or role bindings; view reads most objects but
    not secrets, roles or role bindings; since v1.22 none of admin/edit/view writes Endpoints
    or EndpointSlices;
  - the discovery roles every authenticated user holds through system:authenticated:
    system:basic-user (self subject access/rules reviews), system:discovery (/api, /apis,
    /version, /healthz...), system:public-info-viewer (/version, /healthz, /livez, /readyz; also
    for unauthenticated callers, who get no discovery);
  - the controller roles of bootstrappolicy/testdata/controller-roles.yaml (v1.32):
    replicaset-controller may get/list/watch/update replicasets and create/delete/list/patch/
    watch pods (not get them); job-controller may get/list/watch/update/patch jobs and
    create/delete/list/patch/watch pods; namespace-controller may get/list/watch/delete
    namespaces and get/list/delete/deletecollection everything.

Usage: bootstrap_roles_test.py URL CA_FILE (run by bootstrap_roles_test.sh)
"""
import json
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

# resource as kubectl names it -> (API prefix, plural, namespaced)
RESOURCES = {
    "pods": ("/api/v1", "pods", True),
    "pods/log": ("/api/v1", "pods", True),
    "pods/exec": ("/api/v1", "pods", True),
    "secrets": ("/api/v1", "secrets", True),
    "configmaps": ("/api/v1", "configmaps", True),
    "resourcequotas": ("/api/v1", "resourcequotas", True),
    "serviceaccounts": ("/api/v1", "serviceaccounts", True),
    "endpoints": ("/api/v1", "endpoints", True),
    "namespaces": ("/api/v1", "namespaces", False),
    "nodes": ("/api/v1", "nodes", False),
    "deployments.apps": ("/apis/apps/v1", "deployments", True),
    "replicasets.apps": ("/apis/apps/v1", "replicasets", True),
    "jobs.batch": ("/apis/batch/v1", "jobs", True),
    "endpointslices.discovery.k8s.io": ("/apis/discovery.k8s.io/v1", "endpointslices", True),
    "roles.rbac.authorization.k8s.io": ("/apis/rbac.authorization.k8s.io/v1", "roles", True),
    "rolebindings.rbac.authorization.k8s.io":
        ("/apis/rbac.authorization.k8s.io/v1", "rolebindings", True),
    "clusterroles.rbac.authorization.k8s.io":
        ("/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
    "localsubjectaccessreviews.authorization.k8s.io":
        ("/apis/authorization.k8s.io/v1", "localsubjectaccessreviews", True),
    "selfsubjectaccessreviews.authorization.k8s.io":
        ("/apis/authorization.k8s.io/v1", "selfsubjectaccessreviews", False),
}

Y, N = True, False
# (user, verb, resource or non-resource path, namespace, allowed)
TABLE = [
    # cluster-admin (ClusterRoleBinding): everything, everywhere.
    ("root", "delete", "nodes", "", Y),
    ("root", "create", "clusterroles.rbac.authorization.k8s.io", "", Y),
    ("root", "get", "secrets", "kube-system", Y),
    ("root", "get", "/metrics", "", Y),
    # admin (RoleBinding in team).
    ("admin", "create", "rolebindings.rbac.authorization.k8s.io", "team", Y),
    ("admin", "create", "roles.rbac.authorization.k8s.io", "team", Y),
    ("admin", "get", "secrets", "team", Y),
    ("admin", "create", "localsubjectaccessreviews.authorization.k8s.io", "team", Y),
    ("admin", "get", "resourcequotas", "team", Y),
    ("admin", "update", "resourcequotas", "team", N),
    ("admin", "create", "resourcequotas", "team", N),
    ("admin", "delete", "namespaces", "team", N),
    ("admin", "create", "endpointslices.discovery.k8s.io", "team", N),
    ("admin", "create", "endpoints", "team", N),
    ("admin", "get", "pods", "default", N),
    ("admin", "create", "clusterroles.rbac.authorization.k8s.io", "", N),
    # edit (RoleBinding in team).
    ("edit", "create", "deployments.apps", "team", Y),
    ("edit", "get", "secrets", "team", Y),
    ("edit", "create", "serviceaccounts", "team", Y),
    ("edit", "create", "pods/exec", "team", Y),
    ("edit", "create", "roles.rbac.authorization.k8s.io", "team", N),
    ("edit", "create", "rolebindings.rbac.authorization.k8s.io", "team", N),
    ("edit", "list", "roles.rbac.authorization.k8s.io", "team", N),
    ("edit", "update", "resourcequotas", "team", N),
    ("edit", "create", "endpointslices.discovery.k8s.io", "team", N),
    ("edit", "list", "pods", "default", N),
    # view (RoleBinding in team).
    ("view", "get", "pods", "team", Y),
    ("view", "list", "deployments.apps", "team", Y),
    ("view", "get", "pods/log", "team", Y),
    ("view", "list", "resourcequotas", "team", Y),
    ("view", "list", "endpointslices.discovery.k8s.io", "team", Y),
    ("view", "get", "secrets", "team", N),
    ("view", "list", "secrets", "team", N),
    ("view", "list", "roles.rbac.authorization.k8s.io", "team", N),
    ("view", "create", "configmaps", "team", N),
    ("view", "delete", "pods", "team", N),
    ("view", "create", "pods/exec", "team", N),
    ("view", "list", "nodes", "", N),
    ("view", "get", "namespaces", "team", Y),  # a RoleBinding in team covers Namespace team
    ("view", "get", "namespaces", "default", N),
    ("view", "update", "namespaces", "team", N),
    # nobody: system:basic-user, system:discovery, system:public-info-viewer only.
    ("nobody", "create", "selfsubjectaccessreviews.authorization.k8s.io", "", Y),
    ("nobody", "get", "/api", "", Y),
    ("nobody", "get", "/apis/apps", "", Y),
    ("nobody", "get", "/version", "", Y),
    ("nobody", "get", "/healthz", "", Y),
    ("nobody", "get", "/livez", "", Y),
    ("nobody", "get", "/openapi/v2", "", Y),
    ("nobody", "get", "/metrics", "", N),
    ("nobody", "get", "/debug/pprof", "", N),
    ("nobody", "list", "pods", "team", N),
    ("nobody", "list", "namespaces", "", N),
    # system:controller:replicaset-controller (ClusterRoleBinding).
    ("rs-controller", "list", "replicasets.apps", "team", Y),
    ("rs-controller", "update", "replicasets.apps", "team", Y),
    ("rs-controller", "create", "pods", "team", Y),
    ("rs-controller", "delete", "pods", "team", Y),
    ("rs-controller", "get", "pods", "team", N),
    ("rs-controller", "create", "replicasets.apps", "team", N),
    ("rs-controller", "list", "deployments.apps", "team", N),
    ("rs-controller", "get", "secrets", "team", N),
    # system:controller:job-controller.
    ("job-controller", "patch", "jobs.batch", "team", Y),
    ("job-controller", "create", "pods", "team", Y),
    ("job-controller", "get", "pods", "team", N),
    ("job-controller", "create", "jobs.batch", "team", N),
    ("job-controller", "delete", "jobs.batch", "team", N),
    # system:controller:namespace-controller.
    ("ns-controller", "delete", "namespaces", "", Y),
    ("ns-controller", "delete", "secrets", "team", Y),
    ("ns-controller", "get", "secrets", "team", Y),
    ("ns-controller", "create", "namespaces", "", N),
    ("ns-controller", "create", "secrets", "team", N),
    ("ns-controller", "update", "secrets", "team", N),
]

METHODS = {"get": "GET", "list": "GET", "create": "POST", "update": "PUT", "patch": "PATCH",
           "delete": "DELETE"}


def can_i(url, ca, user, verb, what, namespace):
    args = ["kubectl", "--kubeconfig=/dev/null", "--server=" + url, "--certificate-authority=" + ca,
            "--token=token-" + user, "auth", "can-i", verb]
    if what.startswith("/"):
        args.append(what)
    else:
        resource, _, sub = what.partition("/")
        args.append(resource)
        if sub:
            args.append("--subresource=" + sub)
    if namespace:
        args += ["-n", namespace]
    result = subprocess.run(args, capture_output=True, text=True)
    answer = result.stdout.strip()
    assert answer in ("yes", "no"), (args, answer, result.stderr)
    return answer == "yes"


def request(url, context, user, verb, what, namespace):
    """The HTTP code and Status of the real request, and the message a refusal must carry."""
    if what.startswith("/"):
        path, qualified, name = what, None, ""
    else:
        prefix, plural, namespaced = RESOURCES[what]
        resource, _, sub = what.partition("/")
        group = resource.partition(".")[2]
        name = "" if verb in ("list", "create") and not sub else "ghost"
        if plural == "namespaces" and namespace:
            name = namespace
        path = prefix + (f"/namespaces/{namespace}" if namespaced and namespace else "")
        path += f"/{plural}" + (f"/{name}" if name else "") + (f"/{sub}" if sub else "")
        scope = (f'in the namespace "{namespace}"' if namespace
                 else "at the cluster scope")
        qualified = plural + ("." + group if group else "")
        subject = qualified + (f' "{name}"' if name else "")
        message = (f'{subject} is forbidden: User "{user}" cannot {verb} resource '
                   f'"{plural}{"/" + sub if sub else ""}" in API group "{group}" {scope}')
    method = METHODS[verb]
    body = b"{}" if method in ("POST", "PUT", "PATCH") else None
    headers = {"Authorization": "Bearer token-" + user, "Content-Type":
               "application/merge-patch+json" if method == "PATCH" else "application/json"}
    req = urllib.request.Request(url + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, context=context, timeout=30) as response:
            code, text = response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        code, text = e.code, e.read().decode()
    if qualified is None:
        message = f'forbidden: User "{user}" cannot get path "{what}"'
    return code, text, message


def main():
    url, ca = sys.argv[1], sys.argv[2]
    context = ssl.create_default_context(cafile=ca)
    failures = []
    for user, verb, what, namespace, allowed in TABLE:
        row = f"{user} {verb} {what} {namespace or '(cluster)'}: want {'yes' if allowed else 'no'}"
        if can_i(url, ca, user, verb, what, namespace) != allowed:
            failures.append(row + " from kubectl auth can-i")
        code, text, message = request(url, context, user, verb, what, namespace)
        if allowed and code == 403:
            failures.append(f"{row}, the request was refused: {text}")
        if not allowed:
            status = json.loads(text) if text.startswith("{") else {}
            if code != 403 or status.get("reason") != "Forbidden" or \
                    status.get("message") != message:
                failures.append(f"{row}, the request got {code} {text}; want 403 {message}")
    # Callers without credentials: system:public-info-viewer, and no discovery.
    for path, want in (("/version", 200), ("/healthz", 200), ("/livez", 200), ("/readyz", 200),
                       ("/api", 403), ("/apis", 403), ("/api/v1/namespaces", 403)):
        try:
            with urllib.request.urlopen(url + path, context=context, timeout=30) as r:
                code = r.status
        except urllib.error.HTTPError as e:
            code = e.code
        if code != want:
            failures.append(f"anonymous GET {path}: want {want} got {code}")
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"bootstrap roles: {len(TABLE)} rows ok")


if __name__ == "__main__":
    main()
