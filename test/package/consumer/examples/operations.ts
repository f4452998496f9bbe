// The operation tables: every endpoint of an agent (and of a registry) with its method, path,
// request and response schema names, and whether it is idempotent, streaming or public. Useful
// to generate routes, docs or proxies, and to call one operation on any transport.
import { createTransport } from 'parley-agents';
import { agentOperations, type OperationSpec } from 'parley-agents/operations';

const publicRoutes = Object.values(agentOperations as Record<string, OperationSpec>)
  .filter((operation) => operation.public)
  .map((operation) => `${operation.method} ${operation.path}`);
console.log(`public: ${publicRoutes.join(', ')}`);

// One operation by its table entry, on whichever transport the agent speaks.
const transport = await createTransport('http', process.env.AGENT_URL ?? 'http://127.0.0.1:8080');
try {
  const card = (await transport.unary(agentOperations.getCard, undefined)) as { name: string };
  console.log(`card: ${card.name}`);
} finally {
  await transport.stop();
}
