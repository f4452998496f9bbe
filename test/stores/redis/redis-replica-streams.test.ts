// Streams from any replica (issue 33, item 3): two agent replicas, each its own process, on one
// real redis-server. A task runs on replica A; a subscriber on replica B gets its events in
// order (the official SDK's resubscribeTask, and raw SSE), resumes after a disconnect from the
// last event id it saw, is dropped with a clear error when it reads too slowly (B holding no
// more than the bound of its events meanwhile), ends with `events_lost` when A's feed drops
// events past its byte bound (while A still saves the task's final state), gets a clear end
// when A dies mid-task, and a cancel sent to B stops the task on A. A task whose runner died and
// that a CancelTask settled before B noticed ends B's subscriber as the index has it: the task's
// artifacts, then its status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Redis } from 'ioredis';
import { call, userMessage } from '../../a2a/support.js';
import { testRedis } from '../../support/redis-client.js';
import { redisInstalled, startRedis, type RedisServer } from '../../support/redis-server.js';
import { eventually, startReplica, type Replica } from './replicas.js';

const skip = redisInstalled ? false : 'redis-server is not installed';
/** Task states as the SDK client reads them (numbers) and as they are on the wire (names). */
const STATE = { COMPLETED: 3, CANCELED: 5 } as const;
const WIRE = { COMPLETED: 'TASK_STATE_COMPLETED', CANCELED: 'TASK_STATE_CANCELED' } as const;

function message(text: string): any {
  return { messageId: `m-${randomUUID()}`, role: 1, parts: [{ content: { $case: 'text', value: text } }] };
}

interface SseEvent {
  readonly id: string | undefined;
  readonly data: any;
}

function parseFrames(text: string): { events: SseEvent[]; rest: string } {
  const frames = text.split('\n\n');
  const rest = frames.pop()!;
  const events: SseEvent[] = [];
  for (const frame of frames) {
    let id: string | undefined;
    let data: string | undefined;
    for (const line of frame.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (data !== undefined) events.push({ id, data: JSON.parse(data) });
  }
  return { events, rest };
}

/** A raw SubscribeToTask on `url` whose answer is left unread (paused) until the test resumes it. */
async function pausedSubscription(url: string, taskId: string): Promise<IncomingMessage> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    });
    req.on('response', resolve).on('error', reject);
    req.end(body);
  });
  response.pause();
  return response;
}

/** Resumes a paused answer and reads it to its end. */
async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => (text += chunk));
  response.resume();
  await new Promise((resolve) => response.on('end', resolve));
  return text;
}

/** A JSON-RPC streaming call read event by event; `close()` leaves it early. */
async function openStream(url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: controller.signal,
  });
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/, await peek(response));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const ready: SseEvent[] = [];
  const next = async (): Promise<SseEvent | undefined> => {
    while (ready.length === 0) {
      const step = await reader.read();
      if (step.done) return undefined;
      const parsed = parseFrames(buffered + decoder.decode(step.value, { stream: true }));
      buffered = parsed.rest;
      ready.push(...parsed.events);
    }
    return ready.shift();
  };
  const rest = async (): Promise<SseEvent[]> => {
    const all: SseEvent[] = [];
    for (let event = await next(); event; event = await next()) all.push(event);
    return all;
  };
  return { next, rest, close: () => controller.abort() };
}

async function peek(response: Response): Promise<string> {
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return '';
  return response.clone().text();
}

/** Events one subscriber may have unread on its replica (redis-feed-reader.ts). */
const MAX_UNREAD = 256;
/** Entries a task's feed keeps (redis-feed-publisher.ts): a flood must stay below it, or trimming may end the subscriber with events_lost. */
const FEED_MAX_LENGTH = 1000;

/**
 * A flood that cannot fit between a paused reader and B: more bytes than the kernel's socket
 * buffers of both ends can ever hold (their ceilings, read from /proc where Linux has them),
 * then the bound's worth of events, then some for the frames in flight inside node. Chunks grow
 * with the buffers so the count stays under what the feed keeps.
 */
function floodSize(): { count: number; kib: number } {
  const ceiling = (file: string, fallback: number) => {
    try {
      return Math.max(...readFileSync(file, 'utf8').trim().split(/\s+/).map(Number));
    } catch {
      return fallback;
    }
  };
  // A socket's buffer is the larger of the TCP autotuning ceiling and twice a SO_*BUF ceiling.
  const received = Math.max(ceiling('/proc/sys/net/ipv4/tcp_rmem', 64 << 20), 2 * ceiling('/proc/sys/net/core/rmem_max', 0));
  const sent = Math.max(ceiling('/proc/sys/net/ipv4/tcp_wmem', 64 << 20), 2 * ceiling('/proc/sys/net/core/wmem_max', 0));
  const buffered = received + sent + (1 << 20);
  const kib = Math.max(64, Math.ceil(buffered / 512 / 1024));
  const count = Math.ceil(buffered / (kib * 1024)) + MAX_UNREAD + 64;
  assert.ok(count < FEED_MAX_LENGTH, `a flood of ${count} events fits the feed`);
  return { count, kib };
}

const payloadCase = (data: any) => Object.keys(data.result ?? {})[0];
const artifactName = (data: any) => data.result?.artifactUpdate?.artifact?.name;
const stateOf = (data: any) => data.result?.statusUpdate?.status?.state;

describe('streams from any replica (Redis)', { skip, timeout: 120_000 }, () => {
  let redis: RedisServer;
  let client: Redis;
  let a: Replica;
  let b: Replica;

  before(async () => {
    // No append-only file: nothing here restarts Redis, and the slow-subscriber flood (tens of
    // MiB) need not be fsynced write by write on a machine other tests load too.
    redis = await startRedis(['--appendonly', 'no']);
    client = testRedis(redis.url, { maxRetriesPerRequest: 0 });
    [a, b] = await Promise.all([startReplica(redis.url, 'a'), startReplica(redis.url, 'b')]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    client?.disconnect();
    await redis?.dispose();
  });

  const open = (input: string) => client.rpush(`parley-test:gate:${input}`, 'go');

  test('the SDK client on B follows a task streamed on A: the same events in order, ending completed', async () => {
    const input = `steps ${randomUUID()}`;
    const onA = (await new ClientFactory().createFromUrl(a.url)).sendMessageStream({ message: message(input) } as any);
    const first: any = (await onA.next()).value;
    assert.equal(first.payload.$case, 'task');
    const taskId = first.payload.value.id;
    const aEvents: any[] = [first];
    const aDone = (async () => {
      for await (const event of onA) aEvents.push(event);
    })();
    const onB: any[] = [];
    for await (const event of (await new ClientFactory().createFromUrl(b.url)).resubscribeTask({ id: taskId } as any)) {
      onB.push(event);
      // B has the task as it is now: the task may go on.
      if (onB.length === 1) await open(input);
    }
    await aDone;
    assert.equal(onB[0].payload.$case, 'task');
    assert.equal(onB[0].payload.value.id, taskId);
    // After its snapshot, B saw exactly what A's own caller saw after the task began.
    assert.deepEqual(onB.slice(1), aEvents.slice(1));
    const names = onB
      .filter((event) => event.payload.$case === 'artifactUpdate')
      .map((event) => event.payload.value.artifact.name);
    assert.deepEqual(names.slice(0, 3), ['one', 'two', 'three']);
    const last = onB.at(-1).payload;
    assert.equal(last.$case, 'statusUpdate');
    assert.equal(last.value.status.state, STATE.COMPLETED);
  });

  test('a subscriber that disconnects resumes from the last event id it saw, on either replica, missing and repeating nothing', async () => {
    const input = `steps ${randomUUID()}`;
    const onA = await openStream(a.url, 'SendStreamingMessage', { message: { ...message(input), parts: [{ text: input }] } });
    const started = await onA.next();
    const taskId = started!.data.result.task.id;
    // B's snapshot, then the subscriber leaves before anything else happens.
    const first = await openStream(b.url, 'SubscribeToTask', { id: taskId });
    const snapshot = (await first.next())!;
    assert.equal(payloadCase(snapshot.data), 'task');
    assert.ok(snapshot.id, 'the snapshot carries an event id');
    first.close();
    await open(input);
    const aEvents = [started!, ...(await onA.rest())];
    assert.equal(stateOf(aEvents.at(-1)!.data), WIRE.COMPLETED);
    // Resumed on B: two events, then gone again.
    const second = await openStream(b.url, 'SubscribeToTask', { id: taskId }, { 'last-event-id': snapshot.id! });
    const seen = [(await second.next())!, (await second.next())!];
    second.close();
    // Resumed on A from the last of those: the rest, to the end.
    const third = await openStream(a.url, 'SubscribeToTask', { id: taskId }, { 'last-event-id': seen[1]!.id! });
    const remaining = await third.rest();
    const resumed = [...seen, ...remaining].map((event) => event.data.result);
    assert.deepEqual(
      resumed,
      aEvents.slice(1).map((event) => event.data.result),
    );
    assert.deepEqual(
      resumed.slice(0, 3).map((result) => result.artifactUpdate?.artifact?.name),
      ['one', 'two', 'three'],
    );
    assert.equal(resumed.at(-1).statusUpdate.status.state, WIRE.COMPLETED);
  });

  test('a Last-Event-ID that is not an event id is refused as invalid params', async () => {
    const response = await fetch(`${b.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'last-event-id': 'yesterday' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: 'any' } }),
    });
    const body: any = await response.json();
    assert.equal(body.error.code, -32602);
    assert.match(body.error.message, /Last-Event-ID/);
  });

  test('a subscriber on B that stops reading is dropped with a clear last event, B never holding more than 256 of its events, and B goes on', async () => {
    const { count, kib } = floodSize();
    const before = await b.feedCounts();
    const input = `flood ${count} ${kib} ${randomUUID()}`;
    const onA = await openStream(a.url, 'SendStreamingMessage', { message: { ...message(input), parts: [{ text: input }] } });
    const taskId = (await onA.next())!.data.result.task.id;
    // A raw request on B whose answer is not read until B has dropped it.
    const slow = await pausedSubscription(b.url, taskId);
    await open(input);
    const aEvents = await onA.rest();
    assert.equal(
      stateOf(aEvents.at(-1)!.data),
      WIRE.COMPLETED,
      `${JSON.stringify(aEvents.at(-1)!.data).slice(0, 300)}\n${a.output()}`,
    );
    // The flood is more than the socket buffers and the bound together, so B's reader drops the
    // subscriber whatever the machine's load; ask B until it has (no clock decides anything).
    let counts = await b.feedCounts();
    while (counts.droppedTooSlow === before.droppedTooSlow) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      counts = await b.feedCounts();
    }
    assert.equal(counts.droppedTooSlow, before.droppedTooSlow + 1);
    // Bounded memory: B held at most 256 of the subscriber's events, and filled the bound before dropping it.
    assert.equal(counts.mostUnread, 256);
    assert.equal(counts.followers, 0);
    const events = parseFrames(await readAll(slow)).events;
    const last = events.at(-1)!.data;
    assert.equal(last.error?.code, -32603, JSON.stringify(last).slice(0, 300));
    assert.equal(last.error.data?.[0]?.metadata?.reason ?? last.error.data?.reason, 'subscriber_too_slow');
    assert.ok(events.length < count, `dropped before the end (${events.length} of ${count} events)`);
    // B still serves.
    const card = await fetch(`${b.url}/.well-known/agent-card.json`);
    assert.equal(card.status, 200);
  });

  test("a watched task ending with more MiB of artifacts than the feed's byte bound: its final state is saved, and the subscriber on B ends with events_lost", async () => {
    // 20 artifacts of 512 KiB: 10 MiB published in one turn, past the 8 MiB bound (and far
    // below the 10,000 events one). Before the feed had its own connection and a byte bound,
    // all of it went out on the replica's command connection, ahead of the task's final save.
    const [count, kib] = [20, 512];
    const input = `artifacts ${count} ${kib} ${randomUUID()}`;
    const rpc = (url: string, method: string, params: unknown) =>
      fetch(`${url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((response) => response.json() as Promise<any>);
    // Blocking: A answers once the task is settled and saved.
    const sending = rpc(a.url, 'SendMessage', { message: { ...message(input), parts: [{ text: input }] } });
    const [, taskId] = (await client.blpop(`parley-test:task:${input}`, 0))!;
    // A subscriber on B that reads nothing until the task is over.
    const slow = await pausedSubscription(b.url, taskId);
    await open(input);
    const sent = await sending;
    assert.equal(sent.result?.task?.status?.state, WIRE.COMPLETED, `${JSON.stringify(sent).slice(0, 300)}\n${a.output()}`);
    // The final state is in the shared index: B reads it.
    const got = await rpc(b.url, 'GetTask', { id: taskId, historyLength: 0 });
    assert.equal(got.result?.status?.state, WIRE.COMPLETED, JSON.stringify(got).slice(0, 300));
    assert.equal(got.result.artifacts.length, count + 1);
    const events = parseFrames(await readAll(slow)).events;
    assert.equal(payloadCase(events[0]!.data), 'task');
    const last = events.at(-1)!.data;
    assert.equal(last.error?.code, -32603, JSON.stringify(last).slice(0, 300));
    assert.equal(last.error.data?.[0]?.metadata?.reason ?? last.error.data?.reason, 'events_lost');
    // What fit under the bound came first, in order; then the loss.
    const names = events.slice(1, -1).map((event) => artifactName(event.data));
    assert.ok(names.length > 0 && names.length < count, `${names.length} artifacts before the loss`);
    assert.deepEqual(
      names,
      names.map((_, i) => `part ${i}`),
    );
  });

  test('CancelTask sent to B stops the task streaming on A; both streams end canceled', async () => {
    const input = `steps ${randomUUID()}`;
    const onA = await openStream(a.url, 'SendStreamingMessage', { message: { ...message(input), parts: [{ text: input }] } });
    const taskId = (await onA.next())!.data.result.task.id;
    const onB = await openStream(b.url, 'SubscribeToTask', { id: taskId });
    assert.equal(payloadCase((await onB.next())!.data), 'task');
    const canceled = await (await new ClientFactory().createFromUrl(b.url)).cancelTask({ id: taskId } as any);
    assert.equal((canceled as any).status.state, STATE.CANCELED);
    const bEvents = await onB.rest();
    assert.equal(stateOf(bEvents.at(-1)!.data), WIRE.CANCELED);
    const aEvents = await onA.rest();
    assert.equal(stateOf(aEvents.at(-1)!.data), WIRE.CANCELED);
    // The gate is never opened: the handler was stopped where it waited.
    assert.equal(bEvents.filter((event) => artifactName(event.data)).length, 0);
  });

  test('the replica running the task dies mid-stream: the subscriber on B gets a clear end, not a hang', async () => {
    const doomed = await startReplica(redis.url, 'doomed');
    try {
      const input = `steps ${randomUUID()}`;
      const onDoomed = await openStream(doomed.url, 'SendStreamingMessage', {
        message: { ...message(input), parts: [{ text: input }] },
      });
      const taskId = (await onDoomed.next())!.data.result.task.id;
      const onB = await openStream(b.url, 'SubscribeToTask', { id: taskId });
      assert.equal(payloadCase((await onB.next())!.data), 'task');
      doomed.child.kill('SIGKILL');
      const rest = await onB.rest();
      const last = rest.at(-1)!.data;
      assert.equal(last.error?.code, -32603);
      assert.match(last.error.message, /stopped before the task ended/);
      onDoomed.close();
    } finally {
      await doomed.stop();
    }
  });

  test("the task's runner dies and a CancelTask settles it before B notices: the subscriber on B gets the artifacts the index holds, then CANCELED", async () => {
    const doomed = await startReplica(redis.url, 'doomed-cancel');
    const turn = `gate ${randomUUID()}`;
    try {
      // The first turn asks for input and holds a draft; the follow-up runs on `doomed`, waiting.
      const first = `ask ${randomUUID()}`;
      const asked = await call(doomed.url, 'SendMessage', { message: userMessage(first) });
      assert.equal(asked.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(asked));
      const id: string = asked.result.task.id;
      // Blocking: the answer never comes (its replica dies), so the call's failure is ignored.
      const following = call(doomed.url, 'SendMessage', { message: userMessage(turn, { taskId: id }) }).catch(() => undefined);
      const runs = () => client.get(`parley-test:runs:${turn}`);
      assert.equal(await eventually(runs, (count) => count === '1'), '1');
      const events: any[] = [];
      for await (const event of (await new ClientFactory().createFromUrl(b.url)).resubscribeTask({ id } as any)) {
        events.push(event);
        if (events.length > 1) continue;
        // B follows the run on `doomed`, which now dies with no time to say anything.
        const exited = new Promise((resolve) => doomed.child.once('exit', resolve));
        doomed.child.kill('SIGKILL');
        await exited;
        // Once Redis has dropped its connections, a cancel finds no replica to ask and settles the
        // index at once: seconds before B's reader finds the dead replica's heartbeat gone, with
        // nothing written to the task's feed.
        const listeners = async () => ((await client.pubsub('NUMSUB', 'parley:cancel')) as [string, number])[1];
        assert.equal(await eventually(listeners, (count) => count === 2), 2);
        const canceled = await call(b.url, 'CancelTask', { id });
        assert.equal(canceled.result?.status?.state, WIRE.CANCELED, JSON.stringify(canceled));
      }
      await following;
      // The snapshot, then as a stream ends for a task run without one: each artifact the task
      // holds, then its status.
      assert.deepEqual(
        events.map((event) => {
          const { $case, value } = event.payload;
          if ($case === 'artifactUpdate') return `${$case} ${value.artifact.name}`;
          if ($case === 'statusUpdate') return `${$case} ${value.status.state}`;
          return $case;
        }),
        ['task', 'artifactUpdate draft', `statusUpdate ${STATE.CANCELED}`],
      );
      // The draft whole, as the index has it.
      assert.deepEqual(events[1].payload.value.artifact.parts[0].content, { $case: 'text', value: `draft of ${first}` });
    } finally {
      await client.rpush(`parley-test:gate:${turn}`, 'go');
      await doomed.stop();
    }
  });
});
