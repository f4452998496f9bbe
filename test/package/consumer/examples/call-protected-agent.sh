# The command line against the two agents of this section: the API key from a file (a key on
# the command line shows in `ps`; PARLEY_API_KEY works too) and the private CA; then mutual TLS
# with the client's certificate and key. Each prints the task's answer.
set -e
npx parley send "${AGENT_URL:-https://127.0.0.1:8443}" "hello from the CLI" --api-key-file api-key.txt --ca ca.pem
npx parley send "${MTLS_AGENT_URL:-https://127.0.0.1:8444}" "hello over mutual TLS" --ca ca.pem --cert client.pem --key client.key
