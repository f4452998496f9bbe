// Every outbound call's deadline is a shared timeout: it must fire no earlier than asked, never
// once cancelled, count again from a restart, and hold the process open only while pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sharedTimeout } from '../../src/core/shared-timers.js';

const run = promisify(execFile);

/**
 * Lets `ms` pass without giving the event loop a turn: no timer can fire meanwhile, so a test
 * can set, cancel and restart timeouts apart in time and still act before any of them is due,
 * however slow the machine (an awaited sleep of 10 ms can last longer than a 40 ms timeout).
 */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

function firedAt(ms: number): { readonly fired: Promise<number>; readonly timeout: ReturnType<typeof sharedTimeout> } {
  const started = performance.now();
  let timeout!: ReturnType<typeof sharedTimeout>;
  const fired = new Promise<number>((resolve) => {
    timeout = sharedTimeout(ms, () => resolve(performance.now() - started));
  });
  return { fired, timeout };
}

test('sharedTimeout: fires once, no earlier than its duration', async () => {
  let calls = 0;
  const elapsed = await new Promise<number>((resolve) => {
    const started = performance.now();
    sharedTimeout(30, () => {
      calls++;
      resolve(performance.now() - started);
    });
  });
  assert.ok(elapsed >= 30, `fired after ${elapsed} ms`);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(calls, 1);
});

test('sharedTimeout: a cancelled timeout never fires; the others of its duration still do, on time', async () => {
  let cancelledFired = false;
  const cancelled = sharedTimeout(40, () => {
    cancelledFired = true;
  });
  spin(10);
  const later = firedAt(40);
  cancelled.cancel();
  const elapsed = await later.fired;
  assert.ok(elapsed >= 40, `fired after ${elapsed} ms`);
  assert.equal(cancelledFired, false);
});

test('sharedTimeout: timeouts of one duration fire in the order they were set, each after its own duration', async () => {
  const order: number[] = [];
  const all = [0, 1, 2].map(
    (index) =>
      new Promise<void>((resolve) => {
        setTimeout(() => {
          const set = performance.now();
          sharedTimeout(25, () => {
            assert.ok(performance.now() - set >= 25);
            order.push(index);
            resolve();
          });
        }, index * 15);
      }),
  );
  await Promise.all(all);
  assert.deepEqual(order, [0, 1, 2]);
});

test('sharedTimeout: a restart counts the whole duration again', async () => {
  let timeout!: ReturnType<typeof sharedTimeout>;
  const fired = new Promise<number>((resolve) => {
    timeout = sharedTimeout(40, () => resolve(performance.now()));
  });
  spin(25);
  // Taken before the restart, so the restarted deadline is at least 40 ms after it.
  const restartedAt = performance.now();
  timeout.restart();
  const firedAt = await fired;
  assert.ok(firedAt - restartedAt >= 40, `fired ${firedAt - restartedAt} ms after the restart`);
});

test('sharedTimeout: restarting the earlier of two moves it behind the later one', async () => {
  const order: string[] = [];
  const first = firedAt(40);
  spin(10);
  const second = firedAt(40);
  spin(10);
  first.timeout.restart();
  void first.fired.then(() => order.push('first'));
  void second.fired.then(() => order.push('second'));
  await Promise.all([first.fired, second.fired]);
  assert.deepEqual(order, ['second', 'first']);
});

test('sharedTimeout: cancel and restart after firing do nothing', async () => {
  const { fired, timeout } = firedAt(5);
  await fired;
  timeout.cancel();
  timeout.restart();
  // A new timeout of the same duration still works after the lane emptied.
  assert.ok((await firedAt(5).fired) >= 5);
});

/** Runs a script in a child process with the module loaded, returning its output and time. */
async function child(body: string): Promise<{ stdout: string; stderr: string; code: number; ms: number }> {
  const script = `import { sharedTimeout } from ${JSON.stringify(new URL('../../src/core/shared-timers.ts', import.meta.url).href)};\n${body}`;
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      // Far above a loaded machine's start-up of a tsx child, and below the 60 s timer below.
      timeout: 50_000,
    });
    return { stdout, stderr, code: 0, ms: performance.now() - started };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code, ms: performance.now() - started };
  }
}

test('sharedTimeout: a pending timeout holds the process open; a cancelled one does not', async () => {
  const pending = await child(`sharedTimeout(300, () => console.log('fired'));`);
  assert.equal(pending.stdout.trim(), 'fired');
  // Cancelled, its lane's timer stays armed for 60 s but must not keep the process alive.
  const cancelled = await child(`sharedTimeout(60_000, () => console.log('fired')).cancel(); console.log('done');`);
  assert.equal(cancelled.stdout.trim(), 'done');
  assert.ok(cancelled.ms < 50_000, `exited after ${cancelled.ms} ms`);
});

test('sharedTimeout: one that throws is reported as uncaught, and the others still fire', async () => {
  const result = await child(`
    sharedTimeout(20, () => { throw new Error('boom'); });
    sharedTimeout(20, () => console.log('second fired'));
    // Both are past due when the shared timer fires: one call of it expires both.
    const until = performance.now() + 60;
    while (performance.now() < until);
  `);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /boom/);
  assert.match(result.stdout, /second fired/);
});
