// The rows of the reliability suite: each is one adversarial (or near-neighbour) request found
// against `parley serve agent` (issue 14), with the transports it applies to. A row sends its
// request with the raw peers of setup.ts and asserts the answer; the runner
// (reliability.test.ts) then checks, after every row, that the server is alive and still
// answers a normal task.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createGzip } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { CONNECTION_SHARE, openFileLimit } from '../../src/transport/open-file-limit.js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  A2AService,
  GetTaskRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
} from '../../generated/proto/lf/a2a/v1/a2a_pb.js';
import { sendStream } from './stream-peers.js';
import {
  ALICE,
  BOB,
  CACHE_BYTES,
  NESTING_LIMIT,
  RawSocket,
  REQUEST_LIMIT,
  SERVED,
  STALL_GUARD_MS,
  assertAccepted,
  assertRefused,
  assertStillServing,
  clientAs,
  envelopeJson,
  grpcFrame,
  nestedArrays,
  nestedTaskJson,
  resultTexts,
  send,
  sendA2aGrpc,
  sendGrpcFrame,
  sizedTaskJson,
  userTask,
  type Answer,
  type ChildServer,
  type ServedKind,
} from './setup.js';

export interface Row {
  /** The issue 14 defect the row is about (1-8), or the neighbour it guards; issue 28's as `28.n`. */
  readonly defect: string;
  readonly name: string;
  readonly transports: readonly ServedKind[];
  /** Transport options over the suite's defaults: the row gets a server of its own. */
  readonly transportOptions?: Readonly<Record<string, unknown>>;
  run(server: ChildServer): Promise<void>;
  /** Why the row cannot run on this machine (too few open files for its connections), or null. */
  skip?(): string | null;
}

const HTTP_ONLY: readonly ServedKind[] = ['http', 'sse'];
const ENVELOPES: readonly ServedKind[] = ['websocket', 'grpc'];

/** How far the gzip bomb inflates, in MiB. */
const BOMB_MIB = 256;

/** max_connections of the server the cap row gets. */
const CAP = 8;

/** Streams (or requests) a crowd row keeps in progress at once, each on a connection of its own. */
const CROWD = 1000;

/** Stalled uploads the lock-out row holds open. */
const STALLED = 1100;

/**
 * Limits for a crowd row: a slot for every member, so all of them are in progress at once
 * (the `gate` task waits for the whole crowd), and deadlines a busy machine cannot miss.
 */
const CROWD_OPTIONS = {
  limits: { maxConcurrentRequests: CROWD, maxConcurrentStreams: CROWD },
  headerTimeout: 30,
  bodyTimeout: 30,
};

/** A few thousand levels: about 10 KB of brackets, deep enough to overflow any recursive walk. */
const DEEP = 5000;

const postTask = (data: string, extra: { key?: string; idempotencyKey?: string } = {}) => ({
  method: 'POST',
  path: '/tasks/',
  data,
  ...extra,
});
const cancelCall = (id: string, key: string, idempotencyKey?: string) => ({
  method: 'POST',
  path: '/tasks/cancel',
  data: JSON.stringify({ id, metadata: {} }),
  key,
  ...(idempotencyKey !== undefined && { idempotencyKey }),
});

const chatCall = (message: string, key: string, sessionId?: string) => ({
  method: 'POST',
  path: '/chat',
  data: JSON.stringify(sessionId === undefined ? { message } : { message, session_id: sessionId }),
  key,
});
const stateCall = (operation: 'describe' | 'reset' | 'compact', request: Record<string, unknown>, key: string) => ({
  method: 'POST',
  path: `/state/${operation}`,
  data: JSON.stringify(request),
  key,
});
const historyCompactCall = (sessionId: string, key: string) => ({
  method: 'POST',
  path: '/llm/history/compact',
  data: JSON.stringify({ session_id: sessionId, strategy: 'messages', max_tokens: 100, preserve_recent: 0 }),
  key,
});

/** A task of about `bytes` whose text is `text` padded with spaces, so answers can be told apart. */
function taskOfAbout(bytes: number, text: string, id?: string): string {
  const padded = `${text} ${' '.repeat(Math.max(0, bytes - text.length - 200))}`;
  return JSON.stringify(userTask(padded, id));
}

/** The first word of each result text (the marker `taskOfAbout` puts before its padding). */
const markers = (result: any) => resultTexts(result).map((text) => text.split(' ', 1)[0]);

/** A SendMessage registering this webhook config (the task it would start does not exist yet). */
function sendWithPushConfig(config: unknown): unknown {
  return {
    message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    configuration: { taskPushNotificationConfig: config },
  };
}

const AT_CONFIG = '/params/configuration/taskPushNotificationConfig';

/** Bad input to the A2A push-notification methods (issue 32): the row name, method, params and the field named. */
const PUSH_CONFIG_REFUSALS: readonly [string, string, unknown, string][] = [
  [
    'a token of 32 KiB',
    'SendMessage',
    sendWithPushConfig({ url: 'https://h.example/', token: 'x'.repeat(32 * 1024) }),
    `${AT_CONFIG}/token`,
  ],
  [
    'a token with a line break',
    'SendMessage',
    sendWithPushConfig({ url: 'https://h.example/', token: 'a\r\nb' }),
    `${AT_CONFIG}/token`,
  ],
  ['a metadata-service webhook', 'SendMessage', sendWithPushConfig({ url: 'https://169.254.169.254/' }), `${AT_CONFIG}/url`],
  ['a webhook on loopback', 'SendMessage', sendWithPushConfig({ url: 'https://127.0.0.1:1/' }), `${AT_CONFIG}/url`],
  ['a URL that does not parse', 'SendMessage', sendWithPushConfig({ url: 'http://[::1' }), `${AT_CONFIG}/url`],
  [
    'authentication that is a string',
    'CreateTaskPushNotificationConfig',
    { taskId: 't', url: 'https://h.example/', authentication: 'Bearer x' },
    '/params/authentication',
  ],
  ['a page token that is not one', 'ListTaskPushNotificationConfigs', { taskId: 't', pageToken: '%%%' }, '/params/pageToken'],
  ['a page size of a billion', 'ListTaskPushNotificationConfigs', { taskId: 't', pageSize: 1e9 }, '/params/pageSize'],
];

export const ROWS: readonly Row[] = [
  // --- 1 and 8: one nesting limit, checked before anything recursive
  {
    defect: '8',
    name: `a task nested ${NESTING_LIMIT} levels deep (the limit) is accepted`,
    transports: SERVED,
    async run(server) {
      const result = assertAccepted(await send(server, postTask(nestedTaskJson(NESTING_LIMIT))));
      assert.equal(result.state, 'completed');
    },
  },
  {
    defect: '8',
    name: `a task nested ${NESTING_LIMIT + 1} levels deep (one over) is refused with 400`,
    transports: SERVED,
    async run(server) {
      assertRefused(await send(server, postTask(nestedTaskJson(NESTING_LIMIT + 1))), 400);
    },
  },
  {
    defect: '1',
    name: `a task nested ${DEEP} levels deep (about 10 KB) is refused with 400`,
    transports: SERVED,
    async run(server) {
      assertRefused(await send(server, postTask(nestedTaskJson(DEEP))), 400);
    },
  },
  {
    defect: '1',
    name: `envelope params nested ${DEEP} levels deep are refused with 400`,
    transports: ENVELOPES,
    async run(server) {
      const call = { ...postTask(JSON.stringify(userTask('deep params'))), params: `{"deep":${nestedArrays(DEEP)}}` };
      assertRefused(await send(server, call), 400);
    },
  },
  {
    defect: '1',
    name: `a request just over max_request_bytes whose data is ${DEEP} levels deep is refused`,
    transports: SERVED,
    async run(server) {
      const padded = nestedTaskJson(DEEP).replace('"deep":', `"pad":"${'x'.repeat(REQUEST_LIMIT)}","deep":`);
      assertRefused(await send(server, postTask(padded)), 400, 413);
    },
  },

  // --- 2 and 7: sizes, checked before decoding, on the decompressed size, and answered
  {
    defect: '2',
    name: 'a task of exactly max_request_bytes is accepted',
    transports: SERVED,
    async run(server) {
      assert.equal(assertAccepted(await send(server, postTask(sizedTaskJson(REQUEST_LIMIT)))).state, 'completed');
    },
  },
  {
    defect: '2',
    name: 'a task one byte over max_request_bytes is refused with 413',
    transports: SERVED,
    async run(server) {
      assertRefused(await send(server, postTask(sizedTaskJson(REQUEST_LIMIT + 1))), 413);
    },
  },
  {
    defect: '2',
    name: 'gzip: a task of exactly max_request_bytes, compressed, is accepted',
    transports: ['grpc'],
    async run(server) {
      assert.equal(
        assertAccepted(await send(server, { ...postTask(sizedTaskJson(REQUEST_LIMIT)), gzip: true })).state,
        'completed',
      );
    },
  },
  {
    defect: '2',
    name: 'gzip: a task one byte over max_request_bytes, compressed, is refused with 413',
    transports: ['grpc'],
    async run(server) {
      assertRefused(await send(server, { ...postTask(sizedTaskJson(REQUEST_LIMIT + 1)), gzip: true }), 413);
    },
  },
  {
    defect: '2',
    name: `gzip bomb: a message of about 256 KB that inflates to ${BOMB_MIB} MiB is refused with 413, never inflated whole`,
    transports: ['grpc'],
    async run(server) {
      const compressed = await gzipBomb();
      const before = await server.peakRss();
      assertRefused(await sendGrpcFrame(server.url, grpcFrame(compressed, true), { gzip: true }), 413);
      const grown = (await server.peakRss()) - before;
      // The bound is far below the inflated size and far above what reading max_request_bytes takes.
      assert.ok(
        grown < 64 * 1024 * 1024,
        `the server's peak memory grew by ${(grown / 1048576).toFixed(0)} MiB for a ${compressed.length}-byte message`,
      );
    },
  },
  {
    defect: '2',
    name: 'a message 64 times max_request_bytes, uncompressed, is refused with 413',
    transports: ['grpc'],
    async run(server) {
      assertRefused(await send(server, postTask(sizedTaskJson(64 * REQUEST_LIMIT))), 413);
    },
  },
  {
    defect: '2',
    name: 'a frame 64 times max_request_bytes is refused or closes only its own connection',
    transports: ['websocket'],
    async run(server) {
      const answer = await send(server, postTask(sizedTaskJson(64 * REQUEST_LIMIT)));
      // Over the frame limit `ws` itself closes the connection (1009); under it, an ok:false 413.
      if (answer.kind === 'closed') assert.match(answer.reason, /^close 1009/);
      else assertRefused(answer, 413);
    },
  },
  {
    defect: '7',
    name: 'an upload 64 times max_request_bytes, still being sent, gets its 413 (Content-Length)',
    transports: HTTP_ONLY,
    async run(server) {
      for (let trial = 0; trial < 3; trial++) await uploadPastTheLimit(server, false);
    },
  },
  {
    defect: '7',
    name: 'an upload 64 times max_request_bytes, still being sent, gets its 413 (chunked)',
    transports: HTTP_ONLY,
    async run(server) {
      for (let trial = 0; trial < 3; trial++) await uploadPastTheLimit(server, true);
    },
  },
  {
    defect: '2',
    name: 'four concurrent tasks of half max_request_bytes are all answered',
    transports: SERVED,
    async run(server) {
      const clients = [0, 1, 2, 3].map(() => clientAs(server, ALICE));
      try {
        const tasks = await Promise.all(
          clients.map((client, i) => client.sendTask(JSON.parse(taskOfAbout(REQUEST_LIMIT / 2, `big-${i}`)))),
        );
        assert.deepEqual(
          tasks.map((task) => [task.state, ...markers(task)]),
          [0, 1, 2, 3].map((i) => ['completed', `big-${i}`]),
        );
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
    },
  },

  // --- 6: deadlines on headers and bodies (http, sse)
  {
    defect: '6',
    name: 'stalled headers are closed after header_timeout, other clients served meanwhile',
    transports: HTTP_ONLY,
    async run(server) {
      const socket = new RawSocket(server.url);
      try {
        await socket.connected();
        await socket.write('POST /tasks/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
        await assertStillServing(server);
        assertClosedAsTimedOut(socket, await socket.closedWithin(STALL_GUARD_MS));
      } finally {
        socket.destroy();
      }
    },
  },
  {
    defect: '6',
    name: 'a stalled body is closed after body_timeout, other clients served meanwhile',
    transports: HTTP_ONLY,
    async run(server) {
      const socket = new RawSocket(server.url);
      try {
        await socket.connected();
        const body = JSON.stringify(userTask('never finished'));
        await socket.write(requestHead('/tasks/', { 'content-length': String(body.length) }) + body.slice(0, 20));
        await assertStillServing(server);
        assertClosedAsTimedOut(socket, await socket.closedWithin(STALL_GUARD_MS));
      } finally {
        socket.destroy();
      }
    },
  },
  {
    defect: '6',
    name: 'a body trickling one byte at a time is closed after body_timeout',
    transports: HTTP_ONLY,
    async run(server) {
      const socket = new RawSocket(server.url);
      try {
        await socket.connected();
        const body = JSON.stringify(userTask('x'.repeat(10_000)));
        await socket.write(requestHead('/tasks/', { 'content-length': String(body.length) }));
        let sent = 0;
        const stop = Date.now() + STALL_GUARD_MS;
        // Each byte arrives well within any idle timeout; only a deadline on the whole body ends it.
        while (!socket.socket.destroyed && sent < body.length && Date.now() < stop) {
          if (!(await socket.write(body[sent++]!))) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assertClosedAsTimedOut(socket, await socket.closedWithin(1_000));
      } finally {
        socket.destroy();
      }
    },
  },

  {
    defect: '6',
    name: 'over max_connections, stalled connections are shed first and a new client is served',
    transports: HTTP_ONLY,
    // Timeouts far away, so only the cap can close the stalled connections.
    transportOptions: { maxConnections: CAP, headerTimeout: 60, bodyTimeout: 60 },
    async run(server) {
      const stalled = Array.from({ length: CAP + 4 }, () => new RawSocket(server.url));
      try {
        for (const socket of stalled) {
          await socket.connected();
          await socket.write(`${requestHead('/tasks/', { 'content-length': '1000' })}{"id":`);
        }
        await assertStillServing(server);
        const shed = async () => (await Promise.all(stalled.map((socket) => socket.closedWithin(0)))).filter(Boolean).length;
        const guard = Date.now() + STALL_GUARD_MS;
        while ((await shed()) < 4 && Date.now() < guard) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.ok(
          (await shed()) >= 4,
          `${await shed()} of ${stalled.length} stalled connections were closed with a cap of ${CAP}`,
        );
      } finally {
        for (const socket of stalled) socket.destroy();
      }
    },
  },

  // --- 28.11: the connection cap sheds idle and stalled connections, never busy ones
  {
    defect: '28.11',
    name: `${CROWD} concurrent task streams, each on its own connection, all complete (default max_connections)`,
    transports: ['sse', 'websocket', 'grpc'],
    transportOptions: CROWD_OPTIONS,
    skip: () => tooFewOpenFiles(CROWD),
    async run(server) {
      const stream = () =>
        sendStream(server, { method: 'POST', path: '/tasks/stream', data: JSON.stringify(userTask(`gate ${CROWD}`)) });
      await allComplete(CROWD, stream, (result) => result?.type === 'task_completed' && result.state === 'completed');
    },
  },
  {
    defect: '28.11',
    name: `${CROWD} concurrent tasks being worked on, each on its own connection, all complete (default max_connections)`,
    transports: ['http'],
    transportOptions: CROWD_OPTIONS,
    skip: () => tooFewOpenFiles(CROWD),
    async run(server) {
      const task = () => send(server, postTask(JSON.stringify(userTask(`gate ${CROWD}`))));
      await allComplete(CROWD, task, (result) => result?.state === 'completed');
    },
  },
  {
    defect: '28.11',
    name: `${STALLED} stalled uploads cannot lock out a new client (default max_connections)`,
    transports: HTTP_ONLY,
    // Deadlines far away: only the cap could close the stalled connections.
    transportOptions: { headerTimeout: 60, bodyTimeout: 60 },
    skip: () => tooFewOpenFiles(STALLED),
    async run(server) {
      const stalled: RawSocket[] = [];
      try {
        for (let i = 0; i < STALLED; i++) {
          const socket = new RawSocket(server.url);
          stalled.push(socket);
          await socket.connected();
          await socket.write(`${requestHead('/tasks/', { 'content-length': '1000' })}{"id":`);
        }
        await assertStillServing(server);
      } finally {
        for (const socket of stalled) socket.destroy();
      }
    },
  },
  {
    defect: '28.11',
    name: 'at max_connections with every connection streaming, a newcomer gets 503 and no stream is cut',
    transports: ['sse'],
    transportOptions: { maxConnections: CAP, headerTimeout: 60, bodyTimeout: 60 },
    async run(server) {
      const ids = Array.from({ length: CAP }, () => `task-${randomUUID()}`);
      const leaving = new AbortController();
      const streams = ids.map((id, i) =>
        sendStream(
          server,
          { method: 'POST', path: '/tasks/stream', data: JSON.stringify(userTask('hold', id)) },
          i === 0 ? leaving.signal : undefined,
        ),
      );
      for (const id of ids) await server.line(new RegExp(`^active (${id})$`, 'm'));
      const refused = await send(server, postTask(JSON.stringify(userTask('newcomer'))));
      assertRefused(refused, 503);
      assert.equal(refused.kind === 'error' && refused.code, 'unavailable');
      // One client leaves; its connection makes room for the cancels that end the others.
      leaving.abort();
      await streams[0];
      // Its task is let go once the server saw the connection close, and so forgot it.
      await server.line(new RegExp(`^released (${ids[0]})$`, 'm'));
      for (const id of ids.slice(1)) assertAccepted(await send(server, cancelCall(id, ALICE)));
      for (const [i, answer] of (await Promise.all(streams.slice(1))).entries()) {
        assert.equal(answer.kind, 'ok', `stream ${i + 1} was cut: ${answer.kind === 'closed' ? answer.reason : answer.text}`);
      }
    },
  },

  // --- 3: the idempotency cache is bounded by bytes
  {
    defect: '3',
    name: 'idempotent answers beyond idempotency_cache_bytes are evicted, oldest first',
    transports: SERVED,
    async run(server) {
      const client = clientAs(server, ALICE);
      try {
        // Each answer holds its text about three times: 8 of them are well over the budget.
        const count = Math.ceil((3 * CACHE_BYTES) / REQUEST_LIMIT);
        const keys = Array.from({ length: count }, () => `key-${randomUUID()}`);
        const ids = keys.map(() => `task-${randomUUID()}`);
        for (let i = 0; i < count; i++) {
          await client.sendTask(JSON.parse(taskOfAbout(REQUEST_LIMIT / 2, `first-${i}`, ids[i])), { idempotencyKey: keys[i] });
        }
        const again = (i: number) =>
          client.sendTask(JSON.parse(taskOfAbout(REQUEST_LIMIT / 2, `again-${i}`, ids[i])), { idempotencyKey: keys[i] });
        assert.deepEqual(markers(await again(count - 1)), [`first-${count - 1}`], 'the newest answer is still replayed');
        assert.deepEqual(markers(await again(0)), ['again-0'], 'the oldest answer was evicted, so the task ran again');
      } finally {
        await client.close();
      }
    },
  },

  // --- 5: idempotent replay stays within one principal
  {
    defect: '5',
    name: "B reusing A's idempotency key gets its own run, not A's answer",
    transports: SERVED,
    async run(server) {
      const key = `key-${randomUUID()}`;
      const id = `task-${randomUUID()}`;
      const [alice, bob] = [clientAs(server, ALICE), clientAs(server, BOB)];
      try {
        assert.deepEqual(resultTexts(await alice.sendTask(userTask('secret of alice', id), { idempotencyKey: key })), [
          'secret of alice',
        ]);
        assert.deepEqual(resultTexts(await bob.sendTask(userTask('from bob', id), { idempotencyKey: key })), ['from bob']);
      } finally {
        await Promise.all([alice.close(), bob.close()]);
      }
    },
  },
  {
    defect: '5',
    name: 'A reusing its own idempotency key gets its stored answer',
    transports: SERVED,
    async run(server) {
      const key = `key-${randomUUID()}`;
      const id = `task-${randomUUID()}`;
      const alice = clientAs(server, ALICE);
      try {
        await alice.sendTask(userTask('first', id), { idempotencyKey: key });
        assert.deepEqual(resultTexts(await alice.sendTask(userTask('second', id), { idempotencyKey: key })), ['first']);
      } finally {
        await alice.close();
      }
    },
  },

  // --- 4: cancel controls active work only, and only the submitter's
  {
    defect: '4',
    name: 'cancelling a finished task answers 404 not_found and reveals nothing of it',
    transports: SERVED,
    async run(server) {
      const secret = `secret-${randomUUID()}`;
      const alice = clientAs(server, ALICE);
      let id: string;
      try {
        id = (await alice.sendTask(secret)).id!;
      } finally {
        await alice.close();
      }
      for (const key of [ALICE, BOB]) {
        const answer = await send(server, cancelCall(id, key));
        assertRefused(answer, 404);
        assert.equal(answer.kind === 'error' && answer.code, 'not_found');
        assert.ok(!answer.text.includes(secret), `the answer to ${KEY_NAMES[key]} shows the task's text: ${answer.text}`);
      }
    },
  },
  {
    defect: '4',
    name: 'cancelling an unknown task answers 404 not_found',
    transports: SERVED,
    async run(server) {
      const answer = await send(server, cancelCall(`task-${randomUUID()}`, ALICE));
      assertRefused(answer, 404);
      assert.equal(answer.kind === 'error' && answer.code, 'not_found');
    },
  },
  {
    defect: '4',
    name: "B cannot cancel A's active task (404, as if unknown); A can",
    transports: SERVED,
    async run(server) {
      const id = `task-${randomUUID()}`;
      const alice = clientAs(server, ALICE);
      try {
        const held = alice.sendTask(userTask('hold', id)).catch((error: unknown) => error);
        await server.line(new RegExp(`^active (${id})$`, 'm'));
        const refused = await send(server, cancelCall(id, BOB));
        assertRefused(refused, 404);
        assert.equal(refused.kind === 'error' && refused.code, 'not_found');
        const canceled = assertAccepted(await send(server, cancelCall(id, ALICE)));
        assert.equal(canceled.state, 'canceled');
        await held;
      } finally {
        await alice.close();
      }
    },
  },

  // --- issue 28: cancel is idempotent and retryable, so its retry is answered as it was
  {
    defect: '28 cancel',
    name: 'a retried cancel (same idempotency key, answer lost) gets the same answer again, to its principal only',
    transports: SERVED,
    async run(server) {
      const id = `task-${randomUUID()}`;
      const alice = clientAs(server, ALICE);
      try {
        const held = alice.sendTask(userTask('hold', id)).catch((error: unknown) => error);
        await server.line(new RegExp(`^active (${id})$`, 'm'));
        // The key a client derives for a cancel: the task id.
        const first = await send(server, cancelCall(id, ALICE, id));
        const canceled = assertAccepted(first);
        assert.equal(canceled.state, 'canceled');
        await held;
        // The answer was lost on the way; the retry, after the task has ended, gets it again.
        const retried = await send(server, cancelCall(id, ALICE, id));
        assert.deepEqual(assertAccepted(retried), canceled);
        // Not a lookup: another key, or another principal with the same key, finds nothing active.
        for (const [key, idempotencyKey] of [
          [ALICE, `other-${id}`],
          [BOB, id],
        ] as const) {
          const refused = await send(server, cancelCall(id, key, idempotencyKey));
          assertRefused(refused, 404);
          assert.equal(refused.kind === 'error' && refused.code, 'not_found');
        }
      } finally {
        await alice.close();
      }
    },
  },

  // --- issue 28, defect 1: a chat session belongs to the principal that made it
  {
    defect: '28.1',
    name: "B cannot list, read, continue, compact or reset A's chat session: answered as an unknown one",
    transports: SERVED,
    async run(server) {
      const secret = `secret-${randomUUID()}`;
      const made = assertAccepted(await send(server, chatCall(secret, ALICE)));
      const id: string = made.session_id;
      assert.equal(made.reply, `heard: ${secret}`);
      const unknown = `session-${randomUUID()}`;
      // Listing: A sees the session, B does not (nor a count of it).
      const aliceList = assertAccepted(await send(server, stateCall('describe', {}, ALICE)));
      assert.ok(aliceList.state.session_ids.includes(id));
      const bobList = assertAccepted(await send(server, stateCall('describe', {}, BOB)));
      assert.deepEqual(bobList.state.session_ids, []);
      assert.equal(bobList.state.sessions, 0);
      // Naming it: every answer to B is the answer for an id nobody used.
      for (const operation of ['describe', 'reset', 'compact'] as const) {
        const asBob = assertAccepted(await send(server, stateCall(operation, { session_id: id }, BOB)));
        const asUnknown = assertAccepted(await send(server, stateCall(operation, { session_id: unknown }, BOB)));
        assert.deepEqual(asBob.state, asUnknown.state, `${operation} of A's session as B`);
        assert.equal(asBob.changed, false);
      }
      const compacted = assertAccepted(await send(server, historyCompactCall(id, BOB)));
      assert.deepEqual(compacted.metadata, { session_found: false });
      assert.equal(compacted.messages_before, 0);
      // Continuing it: A's conversation never reaches the model for B, nor B's turn A's session.
      const bobChat = assertAccepted(await send(server, chatCall('what was said?', BOB, id)));
      assert.equal(bobChat.reply, 'heard: what was said?');
      assert.ok(!bobChat.reply.includes(secret) && !JSON.stringify(bobChat).includes(secret));
      // Resetting all of B's sessions leaves A's.
      assertAccepted(await send(server, stateCall('reset', { scope: 'agent' }, BOB)));
      const aliceChat = assertAccepted(await send(server, chatCall('and now?', ALICE, id)));
      assert.equal(aliceChat.reply, `heard: ${secret} | and now?`);
    },
  },
  // --- issue 32: the A2A push-notification config methods refuse bad input as -32602, never a crash
  ...PUSH_CONFIG_REFUSALS.map(
    ([name, method, params, field]): Row => ({
      defect: '32.2',
      name: `A2A ${method}: ${name} is -32602 naming ${field}`,
      transports: ['http'],
      async run(server) {
        const answer = await send(server, {
          method: 'POST',
          path: '/',
          data: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          headers: { 'a2a-version': '1.0' },
        });
        assert.equal(answer.kind, 'ok', answer.text.slice(0, 200));
        const error = JSON.parse(answer.text).error;
        assert.equal(error?.code, -32602, answer.text.slice(0, 200));
        assert.equal(error.data[0].metadata.field, field);
      },
    }),
  ),

  // --- issue 32: the A2A gRPC binding (lf.a2a.v1.A2AService on the grpc server)
  {
    defect: '32.1',
    name: 'A2A gRPC: bytes that are no request message, on every method, are INVALID_ARGUMENT',
    transports: ['grpc'],
    async run(server) {
      for (const method of A2A_METHODS) {
        // SendMessageRequest.metadata is the Struct the nesting row fills; other requests would skip it as an unknown field.
        const sends = method === 'SendMessage' || method === 'SendStreamingMessage';
        const cases = sends ? [...NOT_A_MESSAGE, NESTED_PAST_THE_LIMIT] : NOT_A_MESSAGE;
        for (const [what, bytes] of cases) {
          const answer = await sendA2aGrpc(server.url, method, bytes);
          assert.equal(answer.status, 3, `${method} with ${what}: ${answer.status} ${answer.details}`);
          assert.equal(answer.reason, 'INVALID_REQUEST', `${method} with ${what}`);
          assert.equal(answer.messages, 0);
        }
      }
    },
  },
  {
    defect: '32.2',
    name: 'A2A gRPC: a message over the receive limit, or one that inflates past it, is RESOURCE_EXHAUSTED',
    transports: ['grpc'],
    async run(server) {
      const large = a2aSendMessage('x'.repeat(4 * REQUEST_LIMIT));
      assert.equal((await sendA2aGrpc(server.url, 'SendMessage', large)).status, 8);
      const bomb = a2aSendMessage('y'.repeat(2 * 1024 * 1024));
      const inflated = await sendA2aGrpc(server.url, 'SendMessage', bomb, { gzip: true });
      assert.equal(inflated.status, 8, inflated.details);
    },
  },
  {
    defect: '32.3',
    name: 'A2A gRPC: without a key, or with a wrong one, every method is UNAUTHENTICATED and nothing runs',
    transports: ['grpc'],
    async run(server) {
      for (const method of A2A_METHODS) {
        for (const key of [null, 'key-nobody-9999']) {
          const answer = await sendA2aGrpc(server.url, method, Buffer.alloc(0), { key });
          assert.equal(answer.status, 16, `${method} (key ${key}): ${answer.status} ${answer.details}`);
        }
      }
    },
  },
  {
    defect: '32.4',
    name: 'A2A gRPC: another principal cannot read, list, cancel or continue a task (NOT_FOUND, never the task)',
    transports: ['grpc'],
    async run(server) {
      const sent = await sendA2aGrpc(server.url, 'SendMessage', a2aSendMessage('alice only'));
      assert.equal(sent.status, 0, sent.details);
      const id = await aliceTaskId(server);
      for (const [method, message] of [
        ['GetTask', a2aTaskRequest(id)],
        ['CancelTask', a2aTaskRequest(id)],
        ['SendMessage', a2aSendMessage('bob here', id)],
      ] as const) {
        const answer = await sendA2aGrpc(server.url, method, message, { key: BOB });
        assert.equal(answer.status, 5, `${method}: ${answer.status} ${answer.details}`);
        assert.equal(answer.reason, 'TASK_NOT_FOUND');
        assert.equal(answer.messages, 0);
      }
      const bobs = await sendA2aGrpc(server.url, 'ListTasks', Buffer.alloc(0), { key: BOB });
      assert.equal(bobs.status, 0);
      assert.equal(bobs.messages, 1);
      assert.ok(!(await listedIds(server, BOB)).includes(id), "Bob's list shows Alice's task");
    },
  },
];

let bomb: Promise<Buffer> | null = null;

/** An Invoke envelope of BOMB_MIB MiB (one long task text), gzipped as a stream: never whole in memory. */
function gzipBomb(): Promise<Buffer> {
  bomb ??= new Promise((resolve, reject) => {
    const gzip = createGzip({ level: 9 });
    const chunks: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    gzip.on('end', () => resolve(Buffer.concat(chunks)));
    gzip.on('error', reject);
    const [head, tail] = envelopeJson(postTask(JSON.stringify(userTask('@')))).split('@');
    gzip.write(head!);
    const mib = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < BOMB_MIB; i++) gzip.write(mib);
    gzip.end(tail!);
  });
  return bomb;
}

/**
 * Runs `count` calls at once and resolves once every one completed; the first that did not
 * fails the row at once (the others, waiting for the whole crowd at the gate, never would).
 */
async function allComplete(count: number, call: () => Promise<Answer>, completed: (result: any) => boolean): Promise<void> {
  let done = 0;
  await Promise.all(
    Array.from({ length: count }, () =>
      call().then((answer) => {
        if (answer.kind !== 'ok' || !completed(answer.result)) {
          const why = answer.kind === 'closed' ? `closed: ${answer.reason}` : answer.text.slice(0, 300);
          throw new Error(`after ${done} of ${count} completed, one did not: ${why}`);
        }
        done++;
      }),
    ),
  );
}

/**
 * Why a row holding `connections` open at once cannot run here, or null: this process needs a
 * file for each, and the server (with the same limit) a default cap above them.
 */
function tooFewOpenFiles(connections: number): string | null {
  const limit = openFileLimit() ?? shellOpenFileLimit();
  const needed = Math.ceil((connections + 64) / CONNECTION_SHARE);
  if (limit !== null && limit >= needed) return null;
  return `needs an open-file limit of at least ${needed} for ${connections} connections (ulimit -n is ${limit ?? 'unknown'}); raise it to run this row`;
}

/** `ulimit -n` of a shell started from this process, where /proc/self/limits is missing. */
function shellOpenFileLimit(): number | null {
  try {
    const limit = Number(execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
    return Number.isFinite(limit) ? limit : Number.MAX_SAFE_INTEGER;
  } catch {
    return null;
  }
}

const KEY_NAMES: Readonly<Record<string, string>> = { [ALICE]: 'the submitter', [BOB]: 'another principal' };

function requestHead(path: string, headers: Record<string, string>): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `X-API-Key: ${ALICE}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Closed by the server, with a 408 if it wrote anything at all. */
function assertClosedAsTimedOut(socket: RawSocket, closed: boolean): void {
  assert.ok(closed, `the server kept the stalled connection open for ${STALL_GUARD_MS} ms`);
  if (socket.received !== '') assert.equal(socket.status, 408, `answer to the stalled request: ${socket.received.slice(0, 200)}`);
}

/**
 * Uploads 64 times the limit as fast as the socket takes it and asserts the 413 arrives: the
 * server must answer before it closes, even though the client is still sending.
 */
async function uploadPastTheLimit(server: ChildServer, chunked: boolean): Promise<void> {
  const total = 64 * REQUEST_LIMIT;
  const socket = new RawSocket(server.url);
  try {
    await socket.connected();
    const framing: Record<string, string> = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(total) };
    await socket.write(requestHead('/tasks/', framing));
    const piece = Buffer.alloc(16 * 1024, 'x');
    for (let sent = 0; sent < total && socket.status === null; sent += piece.length) {
      const data = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
      if (!(await socket.write(data))) break;
    }
    await socket.closedWithin(STALL_GUARD_MS);
    assert.equal(
      socket.status,
      413,
      `expected the 413 before the connection closed; got ${JSON.stringify(socket.received.slice(0, 200))} (${socket.error?.message ?? 'no socket error'})`,
    );
  } finally {
    socket.destroy();
  }
}

// --- the A2A gRPC rows' messages

/** Every method of lf.a2a.v1.A2AService, as its path names it. */
const A2A_METHODS: readonly string[] = A2AService.methods.map((method) => method.name);

/** Bytes that decode as no A2A request message. */
const NOT_A_MESSAGE: readonly (readonly [string, Buffer])[] = [
  ['garbage', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])],
  ['a length past the end', Buffer.from([0x12, 0x7f, 0x01])],
  ['a group that never ends', Buffer.from([0x0b])],
];

/** A SendMessageRequest whose metadata nests Structs past protobuf-es's recursion limit (100). */
const NESTED_PAST_THE_LIMIT = ["Structs nested past protobuf's recursion limit", nestedStructs(200)] as const;

/** A SendMessageRequest carrying `text` (to `taskId` when given), binary. */
function a2aSendMessage(text: string, taskId = ''): Buffer {
  const request = create(SendMessageRequestSchema, {
    message: { messageId: `m-${randomUUID()}`, taskId, role: 1, parts: [{ content: { case: 'text', value: text } }] },
  });
  return Buffer.from(toBinary(SendMessageRequestSchema, request));
}

function a2aTaskRequest(id: string): Buffer {
  return Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id })));
}

/** The newest task Alice's ListTasks shows. */
async function aliceTaskId(server: ChildServer): Promise<string> {
  const [id] = await listedIds(server, ALICE);
  assert.ok(id, 'Alice has a task');
  return id;
}

/** The ids `key`'s ListTasks shows, newest first. */
async function listedIds(server: ChildServer, key: string): Promise<string[]> {
  const session = await import('node:http2').then(({ connect }) => connect(`http://${new URL(server.url).host}`));
  try {
    const body = await new Promise<Buffer>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/lf.a2a.v1.A2AService/ListTasks',
        'content-type': 'application/grpc+proto',
        te: 'trailers',
        'a2a-version': '1.0',
        'x-api-key': key,
      });
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(chunks)));
      stream.end(grpcFrame(Buffer.alloc(0), false));
    });
    return fromBinary(ListTasksResponseSchema, body.subarray(5, 5 + body.readUInt32BE(1))).tasks.map((task) => task.id);
  } finally {
    session.destroy();
  }
}

/** SendMessageRequest.metadata holding Structs `levels` deep (Value -> Struct -> Value ...). */
function nestedStructs(levels: number): Buffer {
  const varint = (n: number) => {
    const out: number[] = [];
    while (n > 127) {
      out.push((n & 127) | 128);
      n >>>= 7;
    }
    out.push(n);
    return Buffer.from(out);
  };
  const field = (tag: number, bytes: Buffer) => Buffer.concat([Buffer.from([tag]), varint(bytes.length), bytes]);
  // Struct { fields: { "a": value } }: map entry key (1) and value (2) in field 1.
  const struct = (value: Buffer) => field(0x0a, Buffer.concat([field(0x0a, Buffer.from('a')), field(0x12, value)]));
  let value = Buffer.from([0x08, 0x00]);
  for (let level = 0; level < levels; level++) value = field(0x2a, struct(value));
  return field(0x22, struct(value));
}
