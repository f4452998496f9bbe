// How a model step's text becomes task_llm_stream events: chunks the loop reads in one turn of
// the event loop (one burst from the model's connection) go out as one event; chunks that come
// apart stay apart; the text so far goes out before a failure; the step's final chunk is last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentEvent } from '../../src/agent/handler.js';
import type { ChatTurn, LanguageModel, ModelEvent } from '../../src/llm/language-model.js';
import { runModelLoop, type ModelLoopObserver } from '../../src/llm/model-loop.js';

/** A model whose step yields `pieces`; a `null` piece waits for the next turn of the event loop. */
function scriptedModel(pieces: ReadonlyArray<string | null>, failAtEnd = false): LanguageModel {
  return {
    name: 'scripted',
    complete: async () => pieces.join(''),
    async *step(): AsyncGenerator<ModelEvent> {
      for (const piece of pieces) {
        if (piece === null) await nextTurn();
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
  const result = await runModelLoop({ model: scriptedModel(['a', 'b', 'c', null, 'd', null, 'e', 'f']), turns, observer });
  assert.equal(result.text, 'abcdef');
  assert.deepEqual(texts(observer.events), ['abc', 'd', 'ef', 'final']);
});

test('the text read before a failure goes out before the failure does', async () => {
  const observer = recorder();
  await assert.rejects(runModelLoop({ model: scriptedModel(['par', 'tial'], true), turns, observer }), /the connection dropped/);
  assert.deepEqual(texts(observer.events), ['partial']);
  // Nothing arrives later from a pending flush.
  await nextTurn();
  assert.deepEqual(texts(observer.events), ['partial']);
});
