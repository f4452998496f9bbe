// A worker thread of bench/soak: another client of the server under test, on its own event
// loop (so the load generator's own JSON work does not count against the server). It calls
// the health operation one call after another until told to stop, then posts the slowest
// call's latency (ms) and the number of calls.
import { parentPort, workerData } from 'node:worker_threads';
import { AgentClient } from '../../dist/src/client/agent-client.js';

const { url, transport } = workerData;
const client = new AgentClient(url, { transport });
let stopping = false;
parentPort.once('message', () => {
  stopping = true;
});
// One call first, so the connection is open before the parent starts the load.
await client.health();
parentPort.postMessage({ type: 'ready' });
let slowestMs = 0;
let calls = 0;
while (!stopping) {
  const started = performance.now();
  await client.health();
  slowestMs = Math.max(slowestMs, performance.now() - started);
  calls++;
  // A macrotask turn between calls, so the stop message is seen.
  await new Promise((resolve) => setImmediate(resolve));
}
await client.close();
parentPort.postMessage({ type: 'done', slowestMs, calls });
