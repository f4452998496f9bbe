// One agent replica for the replica tests, run in a child process (so a crash cannot take the
// test runner with it): an AgentServer on http://127.0.0.1:0 with the A2A boundary, sharing its
// state through the Redis URL given as the first argument, printing `ready <url>`. Its handler
// records every execution in Redis (INCR parley-test:runs:<input>), so a test counts executions
// across all replicas; input `hold ...` waits until the task is canceled, and input `gate ...`
// waits until the test pushes to the Redis list parley-test:gate:<input>.
import { Redis } from 'ioredis';
import { AgentServer } from '../../../src/agent/agent-server.js';
import type { AgentHandler } from '../../../src/agent/handler.js';

const [store, name = 'replica'] = process.argv.slice(2);
const counter = new Redis(store!, { maxRetriesPerRequest: 0 });
counter.on('error', () => undefined);

const handler: AgentHandler = async ({ input, signal }) => {
  await counter.incr(`parley-test:runs:${input}`);
  if (input.startsWith('hold')) {
    await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  }
  if (input.startsWith('gate')) {
    const waiter = counter.duplicate();
    try {
      await waiter.blpop(`parley-test:gate:${input}`, 0);
    } finally {
      waiter.disconnect();
    }
  }
  return `${name}: ${input}`;
};

const agent = new AgentServer({ name: 'replicated', description: 'a replica', a2a: true, handler, store });
try {
  await agent.start();
} catch (error) {
  console.error(`could not start: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`ready ${agent.url}`);
const stop = async () => {
  await agent.stop();
  counter.disconnect();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
