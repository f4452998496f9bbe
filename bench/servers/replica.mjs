// A server of bench/replicas, compiled (npm run build): `agent` (the echo agent with the A2A
// boundary) or `registry`, on port 0, with the store given (`memory` or a redis:// URL).
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { RegistryServer } from '../../dist/src/registry/registry-server.js';

const [role, store] = process.argv.slice(2);
const server =
  role === 'registry'
    ? new RegistryServer({ url: 'http://127.0.0.1:0', store })
    : new AgentServer({ name: 'echo', url: 'http://127.0.0.1:0', a2a: true, store });
await server.start();
console.log(`ready ${server.url.replace(/\/$/, '')}`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
