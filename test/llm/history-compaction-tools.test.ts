// History compaction over conversations with tool turns, and with a real tokenizer: a tool
// turn never stays without the assistant turn that asked for it, tool calls count toward the
// tokens, and the counter given is the one used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactHistory, countTokens } from '../../src/llm/history-compaction.js';
import type { ChatTurn } from '../../src/llm/language-model.js';

const call = { call_id: 'c1', name: 'lookup', arguments: { query: 'x'.repeat(200) } };
const turns: ChatTurn[] = [
  { role: 'system', content: 'rules' },
  { role: 'user', content: 'a'.repeat(200) },
  { role: 'assistant', content: '', toolCalls: [call] },
  { role: 'tool', callId: 'c1', content: 'r'.repeat(40) },
  { role: 'tool', callId: 'c2', content: 'r'.repeat(40) },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'next?' },
];

test('a tool turn is dropped with the assistant turn that called it, never kept alone', async () => {
  // Budget for the last three turns only: the cut falls between the call and its results.
  const result = await compactHistory(turns, { strategy: 'tokens', max_tokens: 2 + 10 + 10 + 2 + 2, preserve_recent: 1 }, null);
  assert.deepEqual(
    result.turns.map((turn) => turn.role),
    ['system', 'assistant', 'user'],
  );
  assert.equal(result.removed, 4);
  const messages = await compactHistory(turns, { strategy: 'messages', preserve_recent: 4 }, null);
  assert.deepEqual(
    messages.turns.map((turn) => turn.role),
    ['system', 'assistant', 'user'],
  );
});

test('tool calls count toward the tokens, with the counter given', async () => {
  const withCall = countTokens([turns[2]!]);
  assert.ok(withCall > 50, `the call's arguments are counted (${withCall})`);
  const perTurn = () => 1;
  assert.equal(countTokens(turns, perTurn), turns.length);
  const result = await compactHistory(turns, { strategy: 'tokens', max_tokens: 3, preserve_recent: 1 }, null, undefined, perTurn);
  assert.deepEqual(
    result.turns.map((turn) => turn.content),
    ['rules', 'done', 'next?'],
  );
});
