// The parley side of bench/llm: an agent whose model is the OpenAI provider reading the bench
// model server, compiled (npm run build), on the transport and URL given:
// llm-agent.mjs <transport> <url> <model base URL> [stream flush interval, seconds; default the
// transport's]. SIGUSR2 prints `cpu <µs>`, this process's
// CPU time so far, so the benchmark can take it before and after each stream.
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { OpenAIChatModel } from '../../dist/src/llm/providers/openai-chat.js';

const [transport, url, baseUrl, flushInterval] = process.argv.slice(2);
const llm = new OpenAIChatModel({ model: 'bench', apiKey: 'none', baseUrl });
const transportOptions = flushInterval === undefined ? {} : { streamFlushInterval: Number(flushInterval) };
const agent = new AgentServer({ name: 'llm-bench', transport, url, llm, transportOptions });
await agent.start();
process.on('SIGUSR2', () => {
  const usage = process.cpuUsage();
  console.log(`cpu ${usage.user + usage.system}`);
});
console.log(`ready ${agent.url}`);
process.on('SIGTERM', () => void agent.stop().then(() => process.exit(0)));
