// Runs in a project that installed the parley-agents tarball and nothing else (the core
// install). It type-checks against every public entry with skipLibCheck off, so a declaration
// that names an optional peer's types fails the compile here; then it checks the validators,
// that every schema `parley schemas` names resolves through the exports map, that the
// protobuf-es code is importable, and that each feature whose peer is absent fails with a
// MissingDependencyError naming the package to install. Prints one JSON report.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  AgentClient,
  AgentServer,
  AnthropicMessagesModel,
  JwtAuthenticator,
  MissingDependencyError,
  OpenAIChatModel,
  RedisRegistryStore,
  SqliteRegistryStore,
  type AgentServerOptions,
} from 'parley-agents';
import type { AgentOperationsClient, RegistryOperationsClient } from 'parley-agents/clients';
import type { AgentHandlers, RegistryHandlers } from 'parley-agents/handlers';
import { agentOperations, registryOperations } from 'parley-agents/operations';
import { InvokeRequestSchema, SvcTransport } from 'parley-agents/proto/svc/transport/v1/transport_pb';
import { A2AService } from 'parley-agents/proto/lf/a2a/v1/a2a_pb';
import type { Task } from 'parley-agents/types';
import { schemaNames, validateTask } from 'parley-agents/validators';

// Typed by the generated client: sendTask takes a Task and resolves to a Task.
export async function submit(client: AgentOperationsClient, task: Task): Promise<Task> {
  return client.sendTask(task);
}
export type Typed = [RegistryOperationsClient, AgentHandlers, RegistryHandlers];

// @ts-expect-error 'paused' is not a task state: the Task type must be precise, not any.
export const rejected: Task = { id: 'task-2', state: 'paused' };

const require = createRequire(import.meta.url);
const readJson = (specifier: string): { $id?: string; name?: string } =>
  JSON.parse(readFileSync(require.resolve(specifier), 'utf8'));

/** Where the exports map puts the file of each name `parley schemas` lists. */
function schemaSpecifier(name: string): string {
  return name.startsWith('a2a:')
    ? `parley-agents/schemas/a2a/${name.slice(4)}.schema.json`
    : `parley-agents/schemas/native/${name}.schema.json`;
}
const unresolved: string[] = [];
for (const name of schemaNames) {
  try {
    if (!readJson(schemaSpecifier(name)).$id) unresolved.push(`${name}: no $id`);
  } catch (error) {
    unresolved.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** The package a feature asks for when it fails, or how it ended otherwise. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof MissingDependencyError) return `missing ${error.packageName}: ${error.message}`;
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}
const quiet = { name: 'core-check', url: 'http://127.0.0.1:0', logger: { level: 'silent' } } as const;
function serve(options: Partial<AgentServerOptions>): () => Promise<void> {
  return async () => {
    const server = new AgentServer({ ...quiet, ...options });
    try {
      await server.start();
    } finally {
      await server.stop();
    }
  };
}
async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events);
}
const turns = [{ role: 'user', content: 'hello' }] as const;

const features: Record<string, string> = {
  // Serving and calling over plain http needs no peer at all.
  http: await outcome(async () => {
    const server = new AgentServer(quiet);
    await server.start();
    try {
      const task = await new AgentClient(server.url).sendTask('hello');
      if (task.state !== 'completed') throw new Error(`task ${task.state}`);
    } finally {
      await server.stop();
    }
  }),
  grpc: await outcome(serve({ transport: 'grpc', url: 'grpc://127.0.0.1:0' })),
  websocket: await outcome(serve({ transport: 'websocket', url: 'ws://127.0.0.1:0' })),
  logging: await outcome(serve({ logger: { level: 'info' } })),
  metrics: await outcome(serve({ metrics: true })),
  tracing: await outcome(serve({ tracing: true })),
  redis: await outcome(() => new RedisRegistryStore('redis://127.0.0.1:1').open()),
  sqlite: await outcome(async () => {
    const store = new SqliteRegistryStore(':memory:');
    await store.open();
    store.close();
  }),
  jwt: await outcome(() => new JwtAuthenticator({ secret: 'a-secret-of-at-least-32-bytes-long' }).authenticate('a.b.c')),
  openai: await outcome(() =>
    drain(new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'unused', baseUrl: 'http://127.0.0.1:9/v1' }).stream(turns)),
  ),
  anthropic: await outcome(() =>
    drain(new AnthropicMessagesModel({ model: 'claude-x', apiKey: 'unused', baseUrl: 'http://127.0.0.1:9' }).stream(turns)),
  ),
};

const invalid = validateTask({ id: 'task-2', state: 'paused' });
console.log(
  JSON.stringify({
    goodValid: validateTask({ id: 'task-1', state: 'working' }).valid,
    badPointers: invalid.valid ? [] : invalid.errors.map((issue) => issue.pointer),
    schemaCount: schemaNames.length,
    unresolved,
    configSchemaId: readJson('parley-agents/schemas/native/transport-config.schema.json').$id,
    name: readJson('parley-agents/package.json').name,
    services: [SvcTransport.typeName, A2AService.typeName],
    invokeRequest: InvokeRequestSchema.typeName,
    // The .proto sources, for clients generated in other languages or loaded by @grpc/proto-loader.
    protoFile: readFileSync(require.resolve('parley-agents/proto/svc/transport/v1/transport.proto'), 'utf8').includes(
      'service SvcTransport',
    ),
    operations: [agentOperations.sendTask.path, registryOperations.discover.path],
    features,
  }),
);
