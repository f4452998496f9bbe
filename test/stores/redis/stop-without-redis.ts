// A child process for redis-stop.test.ts: an A2A agent on a Redis store (so its task queue,
// task feed and cancel bus are open) stops after the Redis server is gone, then lets the event
// loop run out. It prints `stopped`; the process must then exit by itself.
import { AgentServer } from '../../../src/agent/agent-server.js';
import { startRedis } from '../../support/redis-server.js';

const redis = await startRedis();
const agent = new AgentServer({ name: 'stopping', a2a: true, store: redis.url });
await agent.start();
await redis.dispose();
await agent.stop();
console.log('stopped');
