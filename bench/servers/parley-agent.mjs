// The parley side of the benchmarks: the echo agent, compiled (npm run build), on the
// transport and URL given in argv.
import { AgentServer } from '../../dist/src/agent/agent-server.js';

const [transport = 'http', url = 'http://127.0.0.1:0'] = process.argv.slice(2);
const agent = new AgentServer({ name: 'echo', transport, url });
await agent.start();
console.log(`ready ${agent.url}`);
// Report the CPU this process used, so the benchmark can compare cost per request.
process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  console.log(`cpu ${user + system}`);
  void agent.stop().then(() => process.exit(0));
});
