// The server side of bench/soak: the echo agent, compiled (npm run build), on the transport
// and URL given in argv, started with --expose-gc and an IPC channel. It watches its own
// event loop (monitorEventLoopDelay) and memory, and answers the parent's `measure` message
// with the figures (see soak-monitor.mjs). With `brief` after the URL it answers with a short
// text instead of the echo, so a task near max_request_bytes has an answer (the task, which
// carries its input, plus that text) under max_response_bytes.
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { SoakMonitor } from './soak-monitor.mjs';

const [transport = 'http', url = 'http://127.0.0.1:0', answer = 'echo'] = process.argv.slice(2);
const brief = ({ input }) => ({ text: `${input.length} characters read` });
const agent = new AgentServer({ name: 'soak', transport, url, handler: answer === 'brief' ? brief : undefined });
await agent.start();
const monitor = new SoakMonitor();
process.on('message', (message) => {
  if (message?.type === 'measure') process.send?.({ type: 'measured', figures: monitor.measure() });
  if (message?.type === 'settle') void monitor.settle().then(() => process.send?.({ type: 'settled' }));
});
console.log(`ready ${agent.url}`);
process.on('SIGTERM', () => void agent.stop().then(() => process.exit(0)));
