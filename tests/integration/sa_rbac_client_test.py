#!/usr/bin/python3
"""python3-kubernetes as a program with a service account's token (from `kubectl create token`)
whose Role allows reading pods and configmaps in its namespace: what the Role allows works, and
everything else raises ApiException 403 with kube-apiserver's Forbidden Status.

Usage: sa_rbac_client_test.py KUBECONFIG (run through with_sandbox.sh)
"""
import json
import subprocess
import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException

NS = "team"
USER = "system:serviceaccount:team:reader"


def kubectl(*args):
    return subprocess.run(["kubectl", *args], check=True, capture_output=True, text=True).stdout


def forbidden(call, message, details):
    try:
        call()
    except ApiException as e:
        assert e.status == 403, (e.status, e.body)
        assert e.reason == "Forbidden", e.reason
        status = json.loads(e.body)
        expected = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": message, "reason": "Forbidden", "details": details, "code": 403}
        assert status == expected, (status, expected)
        return
    raise AssertionError("allowed: " + message)


def main():
    kubeconfig = sys.argv[-1]
    kubectl("create", "namespace", NS)
    kubectl("create", "serviceaccount", "reader", "-n", NS)
    kubectl("create", "role", "reader", "-n", NS, "--verb=get,list,watch",
            "--resource=pods,configmaps")
    kubectl("create", "rolebinding", "reader", "-n", NS, "--role=reader",
            "--serviceaccount=team:reader")
    kubectl("create", "configmap", "settings", "-n", NS, "--from-literal=mode=fast")
    kubectl("create", "secret", "generic", "password", "-n", NS, "--from-literal=p=s")
    token = kubectl("create", "token", "reader", "-n", NS).strip()

    # The cluster's address and CA from the admin's kubeconfig; the credential is the token alone.
    admin = client.Configuration()
    config.load_kube_config(config_file=kubeconfig, client_configuration=admin)
    configuration = client.Configuration()
    configuration.host = admin.host
    configuration.ssl_ca_cert = admin.ssl_ca_cert
    configuration.api_key = {"authorization": "Bearer " + token}
    api = client.ApiClient(configuration)
    core = client.CoreV1Api(api)

    # Allowed by the Role.
    names = [cm.metadata.name for cm in core.list_namespaced_config_map(NS).items]
    assert "settings" in names and "kube-root-ca.crt" in names, names
    assert core.read_namespaced_config_map("settings", NS).data == {"mode": "fast"}
    assert core.list_namespaced_pod(NS).items == []
    authz = client.AuthorizationV1Api(api)

    def may(verb, resource):
        attributes = client.V1ResourceAttributes(namespace=NS, verb=verb, resource=resource)
        review = authz.create_self_subject_access_review(client.V1SelfSubjectAccessReview(
            spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=attributes)))
        return review.status.allowed

    assert may("list", "configmaps") and not may("create", "configmaps")

    # Everything else: 403 with upstream's words.
    def words(verb, resource, group="", scope='in the namespace "team"'):
        return (f'User "{USER}" cannot {verb} resource "{resource}" in API group "{group}" '
                f"{scope}")

    forbidden(lambda: core.create_namespaced_config_map(NS, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="new"))),
        "configmaps is forbidden: " + words("create", "configmaps"), {"kind": "configmaps"})
    forbidden(lambda: core.read_namespaced_secret("password", NS),
              'secrets "password" is forbidden: ' + words("get", "secrets"),
              {"name": "password", "kind": "secrets"})
    forbidden(lambda: core.delete_namespaced_config_map("settings", NS),
              'configmaps "settings" is forbidden: ' + words("delete", "configmaps"),
              {"name": "settings", "kind": "configmaps"})
    forbidden(lambda: core.list_namespaced_config_map("default"),
              "configmaps is forbidden: " + words("list", "configmaps",
                                                   scope='in the namespace "default"'),
              {"kind": "configmaps"})
    forbidden(lambda: core.list_node(),
              "nodes is forbidden: " + words("list", "nodes", scope="at the cluster scope"),
              {"kind": "nodes"})
    forbidden(lambda: client.AppsV1Api(api).list_namespaced_deployment(NS),
              "deployments.apps is forbidden: " + words("list", "deployments", "apps"),
              {"group": "apps", "kind": "deployments"})
    forbidden(lambda: core.read_namespaced_pod_log("web", NS),
              'pods "web" is forbidden: ' + words("get", "pods/log"),
              {"name": "web", "kind": "pods"})
    print("service-account client: ok")


if __name__ == "__main__":
    main()
