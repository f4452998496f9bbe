// The parley side of the benchmarks: the echo agent, compiled (npm run build), on the
// transport and URL given in argv.
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { serveAgent } from './serve-agent.mjs';

const [transport = 'http', url = 'http://127.0.0.1:0'] = process.argv.slice(2);
const agent = new AgentServer({ name: 'echo', transport, url });
await serveAgent(agent);
