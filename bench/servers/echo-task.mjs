// What parley's echo agent answers, built by hand without parley: ids and timestamps filled
// in, the agent's message, a result artifact, the state history. The raw servers answer with
// it when asked for a parley-sized answer, to tell the answer's size apart from parley's own
// overhead.
import { randomUUID } from 'node:crypto';

export function echoTask(task) {
  const now = new Date().toISOString();
  const messages = task.messages.map((message) => ({
    ...message,
    id: message.id ?? randomUUID(),
    timestamp: message.timestamp ?? now,
  }));
  const text = messages
    .at(-1)
    .parts.map((part) => part.content)
    .join('\n');
  const parts = [{ type: 'text', content: text }];
  messages.push({ id: randomUUID(), role: 'agent', parts, timestamp: now });
  const artifact = { kind: 'result', metadata: {}, id: randomUUID(), parts, timestamp: now };
  const history = ['submitted', 'working', 'completed'].map((state) => ({ state, timestamp: now }));
  return { ...task, messages, state: 'completed', artifacts: [artifact], metadata: { state_history: history }, created_at: now };
}
