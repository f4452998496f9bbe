// The baseline of bench/a2a: an A2A 1.0 echo agent made with the official SDK (@a2a-js/sdk),
// set up as its documentation shows: an AgentExecutor, DefaultRequestHandler with the
// in-memory task store, and the express JSON-RPC and card handlers. It answers each message
// with a completed task holding the text back as a message and an artifact, like parley's echo.
// `sdk-a2a-agent.mjs <events>`: instead, the events parley's streaming echo sends for the same
// message (bench/servers/parley-a2a-agent.mjs): the task, the text as `events` chunks of
// one artifact (append after the first), then completed, for SendStreamingMessage.
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { reportMemoryOnSignal } from './report-memory.mjs';

const SUBMITTED = 1;
const COMPLETED = 3;
const ROLE_AGENT = 2;
const EVENTS = Number(process.argv[2] ?? 0);

const echoExecutor = {
  async execute(context, bus) {
    const parts = context.userMessage.parts;
    const reply = {
      messageId: `reply-${context.taskId}`,
      contextId: context.contextId,
      taskId: context.taskId,
      role: ROLE_AGENT,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
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

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'sdk-echo',
    description: 'echo',
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'echo',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  reportMemoryOnSignal();
  console.log(`ready ${url}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
