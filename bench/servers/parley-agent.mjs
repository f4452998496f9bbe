// The parley side of the benchmarks: the echo agent, compiled (npm run build), on the
// transport and URL given in argv; a third argument `log-each-line` logs at info with one
// synchronous write per line to stdout (what `parley serve` did before its lines were batched).
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { serveAgent } from './serve-agent.mjs';

const [transport = 'http', url = 'http://127.0.0.1:0', logging] = process.argv.slice(2);
const agent = new AgentServer({
  name: 'echo',
  transport,
  url,
  ...(logging === 'log-each-line' && { logger: { level: 'info', pretty: false } }),
});
await serveAgent(agent);
