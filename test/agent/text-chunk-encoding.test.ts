// A model's text chunks leave the engine with their JSON text already made (RunContext.text):
// that text must be exactly what JSON.stringify makes of the event, for any delta, or the
// wire would carry something other than the event the in-process reader sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inferenceHandler } from '../../src/agent/default-handlers.js';
import { SessionStore } from '../../src/agent/sessions.js';
import { TaskEngine } from '../../src/agent/task-engine.js';
import type { LanguageModel, ModelEvent } from '../../src/llm/language-model.js';
import { uniqueId, userTask } from '../support/agent-harness.js';

/** Deltas JSON has to escape, and text outside ASCII (bytes differ from characters). */
const DELTAS = [
  'plain',
  ' "quoted"',
  'back\\slash',
  'new\nline\ttab',
  '\u0001\u001f',
  'é ü 日本',
  '🙂',
  '\ud800 lone',
  '</script>',
];

/** A model whose step streams each delta in a turn of its own, so each is a chunk of its own. */
const scripted: LanguageModel = {
  name: 'scripted "model"',
  complete: async () => DELTAS.join(''),
  async *step(): AsyncGenerator<ModelEvent> {
    for (const delta of DELTAS) {
      await new Promise((resolve) => setImmediate(resolve));
      yield { type: 'text', delta };
    }
    yield { type: 'end', finishReason: 'stop', usage: null };
  },
};

test("a text chunk's pre-made JSON is JSON.stringify of its event, byte count included", async () => {
  const engine = new TaskEngine({
    handler: inferenceHandler,
    // One event a chunk (no text window), so each delta is seen as the model sent it.
    model: { model: scripted, tools: [], instructions: null, budget: undefined, textWindowMs: 0 },
    sessions: new SessionStore(),
  });
  const request = {
    requestId: 'r',
    idempotencyKey: null,
    params: {},
    security: null,
    signal: new AbortController().signal,
    transport: 'runtime',
    url: 'runtime://engine',
  } as const;
  const chunks: string[] = [];
  for await (const item of engine.stream(userTask(uniqueId(), 'go'), request)) {
    const event = item.result as { type: string; final?: boolean; delta?: string };
    if (event.type !== 'task_llm_stream' || event.final) continue;
    assert.ok(item.encoded, 'a text chunk comes with its JSON text');
    assert.equal(item.encoded.text, JSON.stringify(event));
    assert.equal(item.encoded.bytes, Buffer.byteLength(JSON.stringify(event)));
    assert.deepEqual(Object.keys(event), ['type', 'delta', 'final', 'message_id', 'model', 'step', 'task_id', 'timestamp']);
    chunks.push(event.delta!);
  }
  assert.deepEqual(chunks, DELTAS);
});
