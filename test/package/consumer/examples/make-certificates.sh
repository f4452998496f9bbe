# Everything a protected agent needs to try one on your machine, in the current folder: a
# private CA (ca.pem), a server certificate for 127.0.0.1 and localhost signed by it
# (server.pem, server.key), a client certificate for mutual TLS (client.pem, client.key) and an
# API key (api-key.txt). In production the certificates come from your own CA; a caller needs
# only ca.pem, the key, and for mutual TLS its own certificate.
set -e
ec='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
openssl req -x509 $ec -days 30 -subj '/CN=private test CA' -keyout ca.key -out ca.pem \
  -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign'
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > server.ext
printf 'extendedKeyUsage=clientAuth\n' > client.ext
for name in server client; do
  openssl req -new $ec -subj "/CN=$name" -keyout "$name.key" -out "$name.csr"
  openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
    -extfile "$name.ext" -out "$name.pem"
done
openssl rand -hex 24 > api-key.txt
