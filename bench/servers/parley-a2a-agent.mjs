// The parley side of bench/a2a: an agent compiled (npm run build) with the A2A 1.0 boundary on,
// on the URL given in argv. `parley-a2a-agent.mjs <url>`: the echo agent (text back as a message
// and an artifact), for blocking SendMessage. `parley-a2a-agent.mjs <url> <events>`: an agent
// that echoes the text as `events` chunks of streamed model text, for SendStreamingMessage.
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { reportMemoryOnSignal } from './report-memory.mjs';
import { llmEvent } from './stream-handler.mjs';

const [url = 'http://127.0.0.1:0', events] = process.argv.slice(2);
const count = Number(events ?? 0);
const handler =
  count > 0
    ? async function* ({ input }) {
        for (let i = 0; i < count; i++) yield llmEvent(input);
      }
    : undefined;
const agent = new AgentServer({ name: 'echo', url, a2a: true, handler });
await agent.start();
reportMemoryOnSignal();
console.log(`ready ${agent.url}`);
process.on('SIGTERM', () => void agent.stop().then(() => process.exit(0)));
