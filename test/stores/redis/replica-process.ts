// One agent replica for the replica tests, run in a child process (so a crash cannot take the
// test runner with it): an AgentServer on http://127.0.0.1:0 with the A2A boundary, sharing its
// state through the Redis URL given as the first argument, printing `ready <url>`. Its handler
// records every execution in Redis (INCR parley-test:runs:<input>), so a test counts executions
// across all replicas; input `hold ...` waits until the task is canceled, and input `gate ...`
// waits until the test pushes to the Redis list parley-test:gate:<input>; input `throw ...`
// always throws. Each run also records the replica's name in parley-test:runner:<input>.
// PARLEY_TEST_QUEUE (JSON) sets `taskQueue` (the queue tests shorten the lock to a second, so
// a killed replica is noticed soon) and PARLEY_TEST_RERUNNABLE=1 `rerunnable`. Two inputs stream
// events (for subscribers on other replicas): `steps ...` waits for its gate, then attaches the
// artifacts one, two and three; `flood <n> ...` waits for its gate, then yields n model-text
// chunks of 16 KiB each. PARLEY_TEST_SHUTDOWN_TIMEOUT (seconds) sets the transport's
// shutdown_timeout, the drain window its queued tasks get at a stop; PARLEY_TEST_PUSH=1 turns on
// push notifications to loopback http webhooks (the destination policy's own switches, off by
// default). On SIGTERM it prints `stopping` before it stops.
import { Redis } from 'ioredis';
import { AgentServer } from '../../../src/agent/agent-server.js';
import type { AgentHandler } from '../../../src/agent/handler.js';

const [store, name = 'replica'] = process.argv.slice(2);
const counter = new Redis(store!, { maxRetriesPerRequest: 0 });
counter.on('error', () => undefined);

/** Waits until the test pushes to the gate list named after the input. */
async function gate(input: string): Promise<void> {
  const waiter = counter.duplicate();
  try {
    await waiter.blpop(`parley-test:gate:${input}`, 0);
  } finally {
    waiter.disconnect();
  }
}

async function* steps(input: string, artifact: (input: { name: string; text: string }) => unknown) {
  await counter.incr(`parley-test:runs:${input}`);
  await gate(input);
  for (const name of ['one', 'two', 'three']) artifact({ name, text: `${name} of ${input}` });
  yield* [];
  return `${name}: ${input}`;
}

async function* flood(input: string) {
  await counter.incr(`parley-test:runs:${input}`);
  await gate(input);
  const count = Number(input.split(' ')[1]);
  const chunk = 'x'.repeat(16 * 1024);
  for (let i = 0; i < count; i++) yield { type: 'task_llm_stream' as const, delta: chunk, message_id: 'flood', step: 0 };
  return `${name}: ${input}`;
}

const handler: AgentHandler = (context) => {
  if (context.input.startsWith('steps')) return steps(context.input, context.artifact);
  if (context.input.startsWith('flood')) return flood(context.input);
  return plain(context);
};

const plain: AgentHandler = async ({ input, signal }) => {
  // The runner first: a test that sees the count may read it at once.
  await counter.set(`parley-test:runner:${input}`, name);
  await counter.incr(`parley-test:runs:${input}`);
  if (input.startsWith('throw')) throw new Error(`${name} cannot do ${input}`);
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

const taskQueue = process.env.PARLEY_TEST_QUEUE ? JSON.parse(process.env.PARLEY_TEST_QUEUE) : undefined;
const rerunnable = process.env.PARLEY_TEST_RERUNNABLE === '1';
const shutdownTimeout = process.env.PARLEY_TEST_SHUTDOWN_TIMEOUT ? Number(process.env.PARLEY_TEST_SHUTDOWN_TIMEOUT) : undefined;
const a2aPush = process.env.PARLEY_TEST_PUSH === '1' ? { allowPrivate: true, allowHttp: true } : undefined;
const agent = new AgentServer({
  name: 'replicated',
  description: 'a replica',
  a2a: true,
  handler,
  store,
  taskQueue,
  rerunnable,
  a2aPush,
  transportOptions: shutdownTimeout === undefined ? undefined : { shutdownTimeout },
});
try {
  await agent.start();
} catch (error) {
  console.error(`could not start: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`ready ${agent.url}`);
const stop = async () => {
  console.log('stopping');
  await agent.stop();
  counter.disconnect();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
