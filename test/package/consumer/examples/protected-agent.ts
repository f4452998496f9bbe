// AgentClient against the two agents of this section, over https with their private CA: with
// an API key, with a bearer token from a function, and with a client certificate (mutual TLS).
// The client sends what it is given and needs nothing of the server's set-up (no
// authenticator); a missing or wrong credential comes back as the server's 401.
import { readFileSync } from 'node:fs';
import { AgentClient, TransportRemoteError } from 'parley-agents';
import type { Task } from 'parley-agents/types';

const url = process.env.AGENT_URL ?? 'https://127.0.0.1:8443';
const mutualUrl = process.env.MTLS_AGENT_URL ?? 'https://127.0.0.1:8444';
const ca = readFileSync('ca.pem'); // the CA that signed the agents' certificates
const apiKey = readFileSync('api-key.txt', 'utf8').trim();

function answer(task: Task): string {
  const part = task.artifacts?.[0]?.parts[0];
  return `${task.state}, ${part?.type === 'text' ? part.content : '(no text)'}`;
}

// An API key, sent as X-API-Key.
const withKey = new AgentClient(url, { auth: { apiKey }, tls: { ca } });
console.log(`api key: ${answer(await withKey.sendTask('hello with a key'))}`);

// A bearer token from a function, asked before every call (it may return a Promise): return a
// cached token and refresh it shortly before it expires. An agent started with --api-key also
// takes its key as an opaque bearer token; one started with --jwt-secret takes a JWT.
const withToken = new AgentClient(url, { auth: { bearer: async () => apiKey }, tls: { ca } });
console.log(`bearer: ${answer(await withToken.sendTask('hello with a token'))}`);

// Mutual TLS: the client's certificate and key (PEM, in memory; certfile/keyfile take paths).
const mutual = new AgentClient(mutualUrl, {
  tls: { ca, cert: readFileSync('client.pem'), key: readFileSync('client.key') },
});
console.log(`mutual tls: ${answer(await mutual.sendTask('hello with a certificate'))}`);

// Without the key: refused, not retried.
const anonymous = new AgentClient(url, { tls: { ca } });
try {
  await anonymous.sendTask('hello without a key');
} catch (error) {
  if (!(error instanceof TransportRemoteError)) throw error;
  console.log(`no key: refused with ${error.statusCode}`);
}

await Promise.all([withKey, withToken, mutual, anonymous].map((client) => client.close()));
