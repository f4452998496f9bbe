// How a model step's text becomes task_llm_stream events: chunks the loop reads in one turn of
// the event loop (one burst from the model's connection) go out as one event; chunks that come
// apart stay apart, unless they follow the last text event within the text window, where they
// wait for it and go out together; the text so far goes out before a failure; the step's final
// chunk is last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { AgentEvent } from '../../src/agent/handler.js';
import type { ChatTurn, LanguageModel, ModelEvent } from '../../src/llm/language-model.js';
import { runModelLoop, type ModelLoopObserver } from '../../src/llm/model-loop.js';

/**
 * A model whose step yields `pieces`; a `null` piece waits for the next turn of the event loop,
 * a number waits that many milliseconds.
 */
function scriptedModel(pieces: ReadonlyArray<string | number | null>, failAtEnd = false): LanguageModel {
  return {
    name: 'scripted',
    complete: async () => pieces.join(''),
    async *step(): AsyncGenerator<ModelEvent> {
      for (const piece of pieces) {
        if (piece === null) await nextTurn();
        else if (typeof piece === 'number') await sleep(piece);
        else yield { type: 'text', delta: piece };
      }
      if (failAtEnd) throw new Error('the connection dropped');
      yield { type: 'end', finishReason: 'stop', usage: null };
    },
  };
}

function recorder(): ModelLoopObserver & { events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  return { events, emit: (event) => events.push(event), message: () => ({ id: 'm', role: 'agent', parts: [] }) };
}

const turns: ChatTurn[] = [{ role: 'user', content: 'hi' }];

function texts(events: readonly AgentEvent[]): Array<string | 'final'> {
  return events.map((event) => (event.type === 'task_llm_stream' ? (event.final ? 'final' : event.delta) : event.type));
}

test('chunks of one burst are one event; chunks apart stay apart; the final chunk is last', async () => {
  const observer = recorder();
  const model = scriptedModel(['a', 'b', 'c', null, 'd', null, 'e', 'f']);
  const result = await runModelLoop({ model, turns, observer, textWindowMs: 0 });
  assert.equal(result.text, 'abcdef');
  assert.deepEqual(texts(observer.events), ['abc', 'd', 'ef', 'final']);
});

test('chunks that follow the last text event within the window wait for it and go out as one', async () => {
  const observer = recorder();
  // 'a' leaves at the end of its turn; 'b' and 'c' come turns later but inside the 200 ms
  // window, so they leave together when it closes; 'd' comes after a quiet spell longer than
  // the window and leaves on its own turn.
  const model = scriptedModel(['a', null, 'b', null, 'c', 500, 'd']);
  const result = await runModelLoop({ model, turns, observer, textWindowMs: 200 });
  assert.equal(result.text, 'abcd');
  assert.deepEqual(texts(observer.events), ['a', 'bc', 'd', 'final']);
});

test('by default the first chunk leaves at once and the rest follow whole; a negative window is refused', async () => {
  const observer = recorder();
  const result = await runModelLoop({ model: scriptedModel(['a', null, 'b', null, 'c']), turns, observer });
  assert.equal(result.text, 'abc');
  const sent = texts(observer.events);
  assert.equal(sent[0], 'a');
  assert.equal(sent.at(-1), 'final');
  assert.equal(sent.slice(0, -1).join(''), 'abc');
  await assert.rejects(runModelLoop({ model: scriptedModel(['a']), turns, textWindowMs: -1 }), /textWindowMs/);
});

test('the text read before a failure goes out before the failure does', async () => {
  const observer = recorder();
  await assert.rejects(runModelLoop({ model: scriptedModel(['par', 'tial'], true), turns, observer }), /the connection dropped/);
  assert.deepEqual(texts(observer.events), ['partial']);
  // Nothing arrives later from a pending flush.
  await nextTurn();
  assert.deepEqual(texts(observer.events), ['partial']);
});
