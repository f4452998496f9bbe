// Sessions are bounded in bytes (issue 28, defect 6), not only in number: all of them together
// by `totalSessionBytes` (the least recently used dropped first), one by `maxSessionBytes` (its
// oldest turns dropped to fit, a value too large for it refused), through chat and tasks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentServer } from '../../src/agent/agent-server.js';
import { ConfigError } from '../../src/core/errors.js';
import { EchoModel, TRANSPORTS, startAgent, uniqueId, userTask } from '../support/agent-harness.js';

/** A chat message of about 600 bytes, marked so the test can tell where it went. */
const message = (mark: string) => `${mark} ${'x'.repeat(600)}`;

for (const kind of TRANSPORTS) {
  describe(`session bytes over ${kind}`, () => {
    test('all sessions together stay within totalSessionBytes, the least recently used dropped first', async (t) => {
      const h = await startAgent(kind, { llm: new EchoModel(), totalSessionBytes: 8_192, maxSessionBytes: 2_048 });
      t.after(() => h.close());
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await h.client.chat({ message: message(`m${i}`) })).session_id);
      // An exchange is about 1.3 KB of JSON: six fit in 8 KiB.
      const kept = (await h.client.describeState({})).state.session_ids as string[];
      assert.ok(kept.length > 0 && kept.length < 10, `${kept.length} sessions kept`);
      assert.deepEqual(kept, ids.slice(-kept.length), 'the newest are kept');
    });

    test('one session keeps its newest turns within maxSessionBytes', async (t) => {
      const model = new EchoModel();
      const h = await startAgent(kind, { llm: model, maxSessionBytes: 2_048 });
      t.after(() => h.close());
      let id: string | undefined;
      for (let i = 0; i < 4; i++)
        id = (await h.client.chat({ message: message(`m${i}`), ...(id ? { session_id: id } : {}) })).session_id;
      const history = model.calls.at(-1)!.slice(0, -1);
      assert.ok(Buffer.byteLength(JSON.stringify(history)) <= 2_048, 'the history sent with the last message fits');
      assert.ok(history.length > 0, 'and is not empty');
      assert.ok(!history.some((turn) => turn.content.startsWith('m0 ')), 'the first exchange was dropped');
      const described = await h.client.describeState({ session_id: id! });
      assert.ok((described.state.turns as number) < 8);
    });

    test('a value too large for one session fails its task with session_too_large; the session keeps the rest', async (t) => {
      const h = await startAgent(kind, {
        maxSessionBytes: 1_024,
        handler: ({ input, session }) => {
          session.set(input.length > 100 ? 'big' : 'small', input);
          return 'stored';
        },
      });
      t.after(() => h.close());
      const sessionId = uniqueId('session');
      const small = await h.client.sendTask(userTask(uniqueId(), 'fits', { metadata: { session_id: sessionId } }));
      assert.equal(small.state, 'completed');
      const big = await h.client.sendTask(userTask(uniqueId(), 'y'.repeat(2_000), { metadata: { session_id: sessionId } }));
      assert.equal(big.state, 'failed');
      assert.equal((big.metadata!.error as { code?: string }).code, 'session_too_large');
      const described = await h.client.describeState({ session_id: sessionId });
      assert.deepEqual(described.state.values, { small: 'fits' });
    });
  });
}

test('the byte bounds must be whole numbers of bytes, at least 1', () => {
  for (const [field, value] of [
    ['totalSessionBytes', 0],
    ['maxSessionBytes', 1.5],
    ['maxSessionBytes', -1],
  ] as const) {
    assert.throws(
      () => new AgentServer({ name: 'bounds', transport: 'runtime', url: 'runtime://bounds', [field]: value }),
      (error: unknown) => error instanceof ConfigError && error.field === field,
      `${field} = ${value}`,
    );
  }
});
