// The parley side of bench:auth: the echo agent, compiled (npm run build), on the http
// transport, guarded by the authenticator named in argv (`none`, `api-key` or `jwt`). The API
// key and the JWT secret come from BENCH_API_KEY and BENCH_JWT_SECRET; a secure URL takes the
// certificate and key paths after it.
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { serveAgent } from './serve-agent.mjs';
import { ApiKeyAuthenticator } from '../../dist/src/auth/api-key.js';
import { JwtAuthenticator } from '../../dist/src/auth/jwt.js';

const [auth = 'none', url = 'http://127.0.0.1:0', certfile, keyfile] = process.argv.slice(2);
const authenticators = {
  none: () => undefined,
  'api-key': () => new ApiKeyAuthenticator({ validKeys: { [process.env.BENCH_API_KEY]: [] } }),
  jwt: () => new JwtAuthenticator({ secret: process.env.BENCH_JWT_SECRET }),
};
const agent = new AgentServer({
  name: 'echo',
  transport: 'http',
  url,
  authenticator: authenticators[auth](),
  ...(certfile && { transportOptions: { tls: { certfile, keyfile } } }),
});
await serveAgent(agent);
