// How a model step's text becomes task_llm_stream events: chunks the loop reads in one turn of
// the event loop (one burst from the model's connection) go out as one event; chunks that come
// apart stay apart, unless they follow the last text event within the text window, where they
// wait for it and go out together; the text so far goes out before a failure; the step's final
// chunk is last. And how the loop reads: once it has caught up with the model, it leaves the
// chunks of a window in the connection until the window closes; a model that always has more
// is read on without a pause; a cancel ends the wait.
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

/**
 * A model whose chunks arrive on their own schedule, as on a connection: `send` puts one in
 * the connection's buffer whether or not the loop is reading; step() hands the buffered ones
 * over in order when asked. `backlogs` holds how many were waiting each time one was handed over.
 */
function connectionModel(): LanguageModel & { send(delta: string): void; end(): void; backlogs: number[]; sent: number } {
  const buffer: Array<string | null> = [];
  let wake: (() => void) | null = null;
  const model = {
    name: 'connection',
    backlogs: [] as number[],
    sent: 0,
    complete: async () => '',
    send(delta: string) {
      model.sent++;
      buffer.push(delta);
      wake?.();
    },
    end() {
      buffer.push(null);
      wake?.();
    },
    async *step(request: { signal?: AbortSignal }): AsyncGenerator<ModelEvent> {
      const signal = request.signal;
      const onAbort = () => wake?.();
      signal?.addEventListener('abort', onAbort);
      try {
        for (;;) {
          // As a provider's stream does, a read after the cancel fails.
          signal?.throwIfAborted();
          if (buffer.length === 0) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = null;
            continue;
          }
          const delta = buffer.shift()!;
          if (delta === null) break;
          model.backlogs.push(1 + buffer.filter((waiting) => waiting !== null).length);
          yield { type: 'text', delta };
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
      yield { type: 'end', finishReason: 'stop', usage: null };
    },
  };
  return model;
}

/** Sends `count` chunks `c0`, `c1`, ... one every `ms` milliseconds, then ends the answer. */
async function sendEvery(model: ReturnType<typeof connectionModel>, count: number, ms: number): Promise<string> {
  let text = '';
  for (let i = 0; i < count; i++) {
    await sleep(ms);
    model.send(`c${i} `);
    text += `c${i} `;
  }
  model.end();
  return text;
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
  // 'a' leaves at the end of its turn; 'b' and 'c' come turns later but inside the 500 ms
  // window (wide, so a loaded machine's slow turns stay inside it), so they leave together
  // when it closes; 'd' comes after a quiet spell longer than the window and leaves on its own turn.
  const model = scriptedModel(['a', null, 'b', null, 'c', 1_200, 'd']);
  const result = await runModelLoop({ model, turns, observer, textWindowMs: 500 });
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

test('once caught up with the model, the loop leaves the chunks of a window in the connection and reads them as it closes', async () => {
  const model = connectionModel();
  const observer = recorder();
  // What had arrived when each text event left.
  const sentAtEvent: number[] = [];
  const emit = observer.emit;
  observer.emit = (event) => {
    if (event.type === 'task_llm_stream' && !event.final) sentAtEvent.push(model.sent);
    emit(event);
  };
  const running = runModelLoop({ model, turns, observer, textWindowMs: 60 });
  const text = await sendEvery(model, 60, 4);
  const result = await running;
  assert.equal(result.text, text);
  const chunks = observer.events.filter((event) => event.type === 'task_llm_stream' && !event.final);
  assert.equal(chunks.map((event) => (event.type === 'task_llm_stream' ? event.delta : '')).join(''), text);
  // The chunks of a window waited in the connection: several at a time were there to read.
  assert.ok(Math.max(...model.backlogs) >= 3, `backlogs ${model.backlogs.join(',')}`);
  assert.ok(chunks.length < 60 / 3, `${chunks.length} text events`);
  // Nothing that had arrived when an event left was kept back for a later one.
  let delivered = 0;
  chunks.forEach((event, i) => {
    if (event.type === 'task_llm_stream') delivered += event.delta.split(' ').length - 1;
    assert.equal(delivered, sentAtEvent[i], `event ${i}`);
  });
});

test('with no text window the loop reads every chunk as it arrives', async () => {
  const model = connectionModel();
  const running = runModelLoop({ model, turns, observer: recorder(), textWindowMs: 0 });
  const text = await sendEvery(model, 30, 4);
  assert.equal((await running).text, text);
  assert.deepEqual(new Set(model.backlogs), new Set([1]));
});

test('a model that has more every turn is read on without a pause', async () => {
  const model = connectionModel();
  const observer = recorder();
  const running = runModelLoop({ model, turns, observer, textWindowMs: 50 });
  let text = '';
  // A chunk every turn for longer than a few windows: the loop never catches up.
  const until = performance.now() + 300;
  for (let i = 0; performance.now() < until; i++) {
    await nextTurn();
    model.send(`c${i} `);
    text += `c${i} `;
  }
  model.end();
  assert.equal((await running).text, text);
  // A 50 ms pause would leave hundreds waiting.
  assert.ok(Math.max(...model.backlogs) <= 5, `most waiting at once: ${Math.max(...model.backlogs)}`);
  assert.ok(observer.events.length > 3);
});

test('a cancel ends the wait for the window at once', async () => {
  const model = connectionModel();
  const controller = new AbortController();
  const observer = recorder();
  const running = runModelLoop({ model, turns, observer, textWindowMs: 30_000, signal: controller.signal });
  // The first chunk leaves at once; the loop catches up; the next ones wait for a 30 s window.
  model.send('a ');
  while (observer.events.length === 0) await nextTurn();
  await sleep(20);
  for (let i = 0; i < 5; i++) {
    model.send('b ');
    await sleep(5);
  }
  assert.equal(model.backlogs.length, 2, 'the loop stopped reading after the first chunk of the window');
  const started = performance.now();
  const reason = new Error('canceled by the test');
  controller.abort(reason);
  await assert.rejects(running, (error) => error === reason);
  // Far below the window, far above a loaded machine's slowest turn.
  assert.ok(performance.now() - started < 20_000);
  // What was read before the cancel went out before the failure did.
  assert.equal(texts(observer.events).join(''), 'a b ');
});
