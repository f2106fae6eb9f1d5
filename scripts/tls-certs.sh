#!/usr/bin/env bash
# Throwaway TLS material for the test servers (providers/postgres/server.sh and
# providers/mysql/server.sh), made fresh at each server start so that no key is ever committed:
#
#   tls-certs.sh DIR   -> DIR/ca.crt         the test CA
#                         DIR/server.{crt,key} signed by it for localhost and 127.0.0.1
#                         DIR/client.{crt,key} signed by it, CN=shedlock_cert (the user that the
#                                              servers admit by client certificate only)
#                         DIR/other-ca.crt   a second CA that signed nothing: the "wrong CA"
# EC P-256 keys (fast to make), mode 600; ten days of validity.
set -euo pipefail
dir="${1:?usage: tls-certs.sh DIR}"
command -v openssl >/dev/null || { echo "tls-certs.sh: openssl not found; run scripts/install-deps.sh" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
umask 077

new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# name subject: a self-signed CA certificate.
make_ca() {
  new_key "$1.key"
  openssl req -new -x509 -key "$1.key" -out "$1.crt" -days 10 -subj "$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

# name subject extensions: a certificate signed by ca.
make_signed() {
  new_key "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
  printf '%s\n' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 10 \
    -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

make_ca ca "/CN=shedlock test CA"
make_ca other-ca "/CN=shedlock unrelated CA"
# DNS:127.0.0.1 besides IP:127.0.0.1: MariaDB Connector/C 3.3 matches the host by name
# (X509_check_host), libpq by address.
make_signed server "/CN=127.0.0.1" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,DNS:127.0.0.1,IP:127.0.0.1"
make_signed client "/CN=shedlock_cert" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"
rm -f ca.key other-ca.key ca.srl  # nothing more will be signed
chmod 644 ./*.crt
