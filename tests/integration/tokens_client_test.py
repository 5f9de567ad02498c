#!/usr/bin/python3
"""python3-kubernetes with nothing but a service-account token (of an account that may edit its
namespace), as a program in a pod would run it; then the token's signature verified from the issuer's discovery documents alone, with the
cryptography module when it is there, else with the openssl command.

Usage: tokens_client_test.py URL CA_FILE TOKEN
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import ssl

from kubernetes import client
from kubernetes.client.rest import ApiException


def b64url(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def der_length(n):
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def der(tag, body):
    return bytes([tag]) + der_length(len(body)) + body


def der_integer(raw):
    if raw[0] & 0x80:
        raw = b"\0" + raw
    return der(0x02, raw)


def rsa_public_key_pem(n, e):
    """A SubjectPublicKeyInfo PEM for the RSA key (n, e), built by hand for the openssl command."""
    rsa_oid = der(0x06, bytes.fromhex("2a864886f70d010101"))
    algorithm = der(0x30, rsa_oid + der(0x05, b""))
    key = der(0x30, der_integer(n) + der_integer(e))
    spki = der(0x30, algorithm + der(0x03, b"\0" + key))
    text = base64.encodebytes(spki).decode()
    return "-----BEGIN PUBLIC KEY-----\n" + text + "-----END PUBLIC KEY-----\n"


def verify_rs256(jwk, signing_input, signature):
    n, e = b64url(jwk["n"]), b64url(jwk["e"])
    try:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding, rsa
    except ImportError:
        with tempfile.TemporaryDirectory() as d:
            paths = {name: os.path.join(d, name) for name in ("key.pem", "data", "sig")}
            with open(paths["key.pem"], "w") as f:
                f.write(rsa_public_key_pem(n, e))
            with open(paths["data"], "wb") as f:
                f.write(signing_input)
            with open(paths["sig"], "wb") as f:
                f.write(signature)
            result = subprocess.run(
                ["openssl", "dgst", "-sha256", "-verify", paths["key.pem"], "-signature",
                 paths["sig"], paths["data"]], capture_output=True)
            return result.returncode == 0
    public = rsa.RSAPublicNumbers(int.from_bytes(e, "big"), int.from_bytes(n, "big")).public_key()
    try:
        public.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        return True
    except Exception:  # InvalidSignature
        return False


def main():
    url, ca, token = sys.argv[1], sys.argv[2], sys.argv[3]
    configuration = client.Configuration()
    configuration.host = url
    configuration.ssl_ca_cert = ca
    configuration.api_key = {"authorization": "Bearer " + token}
    api = client.ApiClient(configuration)
    core = client.CoreV1Api(api)

    names = [cm.metadata.name for cm in core.list_namespaced_config_map("default").items]
    assert "kube-root-ca.crt" in names, names
    client.CoreV1Api(api).create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="written-with-a-token"), data={"a": "1"}))

    # A wrong token: 401 Unauthorized.
    forged = client.Configuration()
    forged.host, forged.ssl_ca_cert = url, ca
    forged.api_key = {"authorization": "Bearer " + token[:-4] + "AAAA"}
    try:
        client.CoreV1Api(client.ApiClient(forged)).list_namespaced_config_map("default")
        raise AssertionError("a forged token was accepted")
    except ApiException as e:
        assert e.status == 401, e

    # The discovery documents, read with the token; the token verified with the keys they give.
    context = ssl.create_default_context(cafile=ca)

    def get(path):
        request = urllib.request.Request(url + path,
                                         headers={"Authorization": "Bearer " + token})
        with urllib.request.urlopen(request, context=context) as response:
            return response.headers.get("Content-Type"), json.load(response)

    kind, config = get("/.well-known/openid-configuration")
    assert kind == "application/json", kind
    assert config["issuer"] == json.loads(b64url(token.split(".")[1]))["iss"], config
    assert config["id_token_signing_alg_values_supported"] == ["RS256"], config
    assert config["jwks_uri"].endswith("/openid/v1/jwks"), config
    kind, jwks = get("/openid/v1/jwks")
    assert kind == "application/jwk-set+json", kind
    header = json.loads(b64url(token.split(".")[0]))
    keys = [k for k in jwks["keys"] if k["kid"] == header["kid"]]
    assert len(keys) == 1 and keys[0]["alg"] == "RS256" and keys[0]["use"] == "sig", jwks
    head, payload, signature = token.split(".")
    signing_input = (head + "." + payload).encode()
    assert verify_rs256(keys[0], signing_input, b64url(signature)), "the signature does not verify"
    assert not verify_rs256(keys[0], signing_input + b"x", b64url(signature)), \
        "a changed token verifies"
    print("tokens client: ok")


if __name__ == "__main__":
    main()
