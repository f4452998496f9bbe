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
// artifacts one, two and three; `flood <n> <kib> ...` waits for its gate, then yields n
// model-text chunks of <kib> KiB each, never more than FLOOD_AHEAD_BYTES ahead of what its feed
// in Redis holds (so the feed's byte bound drops none). `artifacts <n> <kib> ...` pushes its task
// id to the list parley-test:task:<input>, waits for its gate, then attaches n artifacts of <kib>
// KiB each at once (a task sent with SendMessage publishes them all in one turn when it ends).
// Input `flaky ...` waits for its gate and throws on its first start, and runs as `steps` on the
// next (a rerunnable handler's retry). Input `ask ...` ends its turn input-required with an artifact `draft`, so the task's next turn
// (a follow-up message, `gate ...` say) runs holding an artifact in the index.
// Asked `feed-counts` over its IPC channel, it answers what its task feed's reader holds for its
// followers (FeedReaderCounts).
// PARLEY_TEST_SHUTDOWN_TIMEOUT (seconds) sets the transport's shutdown_timeout, the drain window
// its queued tasks get at a stop; PARLEY_TEST_PUSH=1 turns on push notifications to loopback http
// webhooks (the destination policy's own switches, off by default). On SIGTERM it prints
// `stopping` before it stops.
import { AgentServer } from '../../../src/agent/agent-server.js';
import type { AgentHandler } from '../../../src/agent/handler.js';
import type { RedisAgentState } from '../../../src/stores/redis/redis-agent-state.js';
import { testRedis } from '../../support/redis-client.js';

const [store, name = 'replica'] = process.argv.slice(2);
const connect = () => testRedis(store!, { maxRetriesPerRequest: 0 });
const counter = connect();

/** Waits until the test pushes to the gate list named after the input. */
async function gate(input: string): Promise<void> {
  const waiter = connect();
  try {
    await waiter.blpop(`parley-test:gate:${input}`, 0);
  } finally {
    waiter.disconnect();
  }
}

async function* steps(input: string, artifact: (input: { name: string; text: string }) => unknown) {
  // The runner first, as in `plain`: a rerun elsewhere names its replica.
  await counter.set(`parley-test:runner:${input}`, name);
  await counter.incr(`parley-test:runs:${input}`);
  await gate(input);
  for (const name of ['one', 'two', 'three']) artifact({ name, text: `${name} of ${input}` });
  yield* [];
  return `${name}: ${input}`;
}

/** Bytes a flood may stream ahead of what its task's feed in Redis holds: well under the feed's 8 MiB bound. */
const FLOOD_AHEAD_BYTES = 1 << 20;

async function* flood(input: string, taskId: string) {
  await counter.incr(`parley-test:runs:${input}`);
  await gate(input);
  const [, count, kib] = input.split(' ').map(Number);
  const chunk = 'x'.repeat(kib! * 1024);
  // Past the feed's byte bound the replica would drop events and mark the loss, and the test
  // wants the subscriber dropped for reading slowly, not for a loss. So the flood streams only
  // a bounded amount past what the task's feed (watched by now) holds.
  const ahead = Math.max(2, Math.floor(FLOOD_AHEAD_BYTES / chunk.length));
  const feed = `parley:feed:${taskId}`;
  for (let i = 0; i < count; i++) {
    yield { type: 'task_llm_stream' as const, delta: chunk, message_id: 'flood', step: 0 };
    while (i >= ahead && (await counter.xlen(feed)) < i - ahead) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return `${name}: ${input}`;
}

async function artifacts(input: string, taskId: string, artifact: (input: { name: string; text: string }) => unknown) {
  await counter.rpush(`parley-test:task:${input}`, taskId);
  await gate(input);
  const [, count, kib] = input.split(' ').map(Number);
  const text = 'x'.repeat(kib! * 1024);
  for (let i = 0; i < count!; i++) artifact({ name: `part ${i}`, text });
  return `${name}: ${input}`;
}

/** Each start waits for its gate; the first then throws, a later one attaches one, two and three. */
async function* flaky(input: string, artifact: (input: { name: string; text: string }) => unknown) {
  await counter.set(`parley-test:runner:${input}`, name);
  const start = await counter.incr(`parley-test:runs:${input}`);
  await gate(input);
  if (start === 1) throw new Error(`${name} fails the first start of ${input}`);
  for (const name of ['one', 'two', 'three']) artifact({ name, text: `${name} of ${input}` });
  yield* [];
  return `${name}: ${input}`;
}

const handler: AgentHandler = (context) => {
  if (context.input.startsWith('flaky')) return flaky(context.input, context.artifact);
  // A first turn that asks for more, holding a draft: the task's follow-up runs with it.
  if (context.input.startsWith('ask')) {
    return { state: 'input-required', reason: 'which one?', artifacts: [{ name: 'draft', text: `draft of ${context.input}` }] };
  }
  if (context.input.startsWith('steps')) return steps(context.input, context.artifact);
  if (context.input.startsWith('artifacts')) return artifacts(context.input, context.task.id, context.artifact);
  if (context.input.startsWith('flood')) return flood(context.input, context.task.id);
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
    const waiter = connect();
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
// The server keeps its shared state to itself; the test reads the reader's counts through it.
const shared = () => (agent as unknown as { shared: RedisAgentState | null }).shared;
process.on('message', (ask) => {
  if (ask === 'feed-counts') process.send?.({ feedCounts: shared()?.taskFeed.readerCounts() ?? null });
});
process.channel?.unref();
console.log(`ready ${agent.url}`);
const stop = async () => {
  console.log('stopping');
  await agent.stop();
  counter.disconnect();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
