# Small CAs and certificates for the integration scripts, as test harnesses make them: P-256 keys
# in PKCS#8, a week's validity. Source it and set `certs` (the folder they go in) first.
#   new_ca NAME [SUBJECT]                     NAME.key and a self-signed CA NAME.crt
#   new_cert CA NAME SUBJECT USAGE [SAN]      NAME.key and NAME.crt signed by CA (USAGE: serverAuth,
#                                             clientAuth or both, comma-separated)
new_ca() {
  openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null |
    openssl pkcs8 -topk8 -nocrypt -out "$certs/$1.key"
  openssl req -x509 -new -key "$certs/$1.key" -subj "${2:-/O=envtest/CN=envtest-environment}" -days 7 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,digitalSignature,keyEncipherment" \
    -out "$certs/$1.crt" 2>/dev/null
}
new_cert() {
  openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null |
    openssl pkcs8 -topk8 -nocrypt -out "$certs/$2.key"
  local ext="keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=$4${5:+
subjectAltName=$5}"
  openssl req -new -key "$certs/$2.key" -subj "$3" 2>/dev/null |
    openssl x509 -req -CA "$certs/$1.crt" -CAkey "$certs/$1.key" -CAcreateserial -days 7 \
      -extfile <(echo "$ext") -out "$certs/$2.crt" 2>/dev/null
}
