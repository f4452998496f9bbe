// The parley side of bench/a2a: the echo agent, compiled (npm run build), with the A2A 1.0
// boundary on, on the URL given in argv.
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { reportMemoryOnSignal } from './report-memory.mjs';

const [url = 'http://127.0.0.1:0'] = process.argv.slice(2);
const agent = new AgentServer({ name: 'echo', url, a2a: true });
await agent.start();
reportMemoryOnSignal();
console.log(`ready ${agent.url}`);
process.on('SIGTERM', () => void agent.stop().then(() => process.exit(0)));
