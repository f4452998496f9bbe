// The official A2A SDK's client against a parley agent started with `parley serve agent --a2a`:
// the SDK finds the agent through its public card and speaks A2A 1.0 JSON-RPC to it.
import { randomUUID } from 'node:crypto';
import { SendMessageRequest, taskStateToJSON } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';

const client = await new ClientFactory().createFromUrl(process.env.AGENT_URL ?? 'http://127.0.0.1:8080');

// The request in A2A's JSON form, turned into the SDK's message type.
const request = SendMessageRequest.fromJSON({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello over A2A' }] },
});
const result = await client.sendMessage(request);

if ('status' in result) {
  const texts = result.artifacts.flatMap((artifact) =>
    artifact.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])),
  );
  console.log(`a2a task ${taskStateToJSON(result.status!.state)}: ${texts.join(' ')}`);
} else {
  console.log('a2a: the agent answered with a message, not a task');
}
