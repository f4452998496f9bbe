// The parley side of the stream benchmark: an agent whose handler yields `count`
// task_llm_stream events with a `bytes`-character delta, compiled (npm run build), on the
// transport and URL given in argv: parley-stream-agent.mjs <transport> <url> <count> <bytes>
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { streamHandler } from './stream-handler.mjs';

const [transport = 'websocket', url = 'ws://127.0.0.1:0', count = '20000', bytes = '1024'] = process.argv.slice(2);
const agent = new AgentServer({ name: 'stream', transport, url, handler: streamHandler(Number(count), Number(bytes)) });
await agent.start();
console.log(`ready ${agent.url}`);
process.on('SIGTERM', () => void agent.stop().then(() => process.exit(0)));
