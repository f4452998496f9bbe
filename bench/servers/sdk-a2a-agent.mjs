// The baseline of bench/a2a: an A2A 1.0 echo agent made with the official SDK (@a2a-js/sdk),
// set up as its documentation shows (an AgentExecutor, DefaultRequestHandler with the in-memory
// task store, and the express JSON-RPC and card handlers: test/interop/sdk-a2a-peer.mjs, which
// the interop tests' SDK agents share). It answers each message
// with a completed task holding the text back as a message and an artifact, like parley's echo.
// `sdk-a2a-agent.mjs <events>`: instead, the events parley's streaming echo sends for the same
// message (bench/servers/parley-a2a-agent.mjs): the task, the text as `events` chunks of
// one artifact (append after the first), then completed, for SendStreamingMessage.
import { agentMessage, startSdkPeer, TASK_STATE } from '../../test/interop/sdk-a2a-peer.mjs';
import { reportMemoryOnSignal } from './report-memory.mjs';

const { SUBMITTED, COMPLETED } = TASK_STATE;
const EVENTS = Number(process.argv[2] ?? 0);

const echoExecutor = {
  async execute(context, bus) {
    const parts = context.userMessage.parts;
    const reply = agentMessage(context.taskId, context.contextId, parts);
    bus.publish({
      kind: 'task',
      data: {
        id: context.taskId,
        contextId: context.contextId,
        status: { state: COMPLETED, message: reply, timestamp: new Date().toISOString() },
        artifacts: [
          { artifactId: `art-${context.taskId}`, name: 'result', description: '', parts, metadata: undefined, extensions: [] },
        ],
        history: [context.userMessage, reply],
        metadata: undefined,
      },
    });
    bus.finished();
  },
  async cancelTask() {},
};

const streamingExecutor = {
  async execute(context, bus) {
    const { taskId, contextId } = context;
    const now = () => new Date().toISOString();
    bus.publish({
      kind: 'task',
      data: {
        id: taskId,
        contextId,
        status: { state: SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      },
    });
    const status = (state) => ({
      kind: 'statusUpdate',
      data: { taskId, contextId, status: { state, message: undefined, timestamp: now() }, metadata: undefined },
    });
    const parts = context.userMessage.parts;
    for (let i = 0; i < EVENTS; i++) {
      bus.publish({
        kind: 'artifactUpdate',
        data: {
          taskId,
          contextId,
          artifact: {
            artifactId: 'model-text-0',
            name: 'model text',
            description: '',
            parts,
            metadata: undefined,
            extensions: [],
          },
          append: i > 0,
          lastChunk: false,
          metadata: undefined,
        },
      });
    }
    bus.publish(status(COMPLETED));
    bus.finished();
  },
  async cancelTask() {},
};
const executor = EVENTS > 0 ? streamingExecutor : echoExecutor;

const peer = await startSdkPeer(executor, {
  name: 'sdk-echo',
  description: 'echo',
  streaming: true,
  interfaces: ({ base }) => [{ binding: 'JSONRPC', url: `${base}/` }],
});
reportMemoryOnSignal();
console.log(`ready ${peer.url}`);
process.on('SIGTERM', () => peer.close().then(() => process.exit(0)));
