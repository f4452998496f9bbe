// The http server read off a raw TCP socket, for what node's own client hides: whether
// `100 Continue` is sent before a refusal, what a HEAD answer carries, a body sent without any
// content type, and a chunked body that passes the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { ops, serve, table, unary } from '../../support/transport-fixtures.js';

const LIMIT = 1024;

async function server(t: Parameters<typeof serve>[0]) {
  const calls: string[] = [];
  const transport = await serve(
    t,
    'http',
    'http://127.0.0.1:0',
    table(
      unary(ops.sendTask, (task) => (calls.push(task.id), { ...task, state: 'completed' })),
      unary(ops.getChatPage, () => '<html>chat</html>'),
    ),
    { limits: { maxRequestBytes: LIMIT } },
  );
  return { port: Number(new URL(transport.url).port), calls, transport };
}

/**
 * Everything the server sends until it closes the socket or goes quiet for `quietMs`. Every
 * exchange here ends with the server closing; the quiet spell only stops one that would hang,
 * so it is long enough for a loaded machine's slowest answer.
 */
function exchange(socket: Socket, quietMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let timer = setTimeout(done, quietMs);
    function done() {
      socket.destroy();
      resolve(text);
    }
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
  });
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** Status codes of the answers in `text`, interim ones included, in order. */
const statuses = (text: string) => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));

test('http server: Expect: 100-continue within the limit gets 100 Continue, then the answer', async (t) => {
  const { port, calls } = await server(t);
  const socket = await open(port);
  const body = '{"id":"continued"}';
  socket.write(
    `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nexpect: 100-continue\r\nconnection: close\r\n\r\n`,
  );
  const answered = exchange(socket);
  // The body goes out only once the server said to go on, as a careful client would do.
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(body);
  const text = await answered;
  assert.deepEqual(statuses(text), [100, 200]);
  assert.deepEqual(calls, ['continued']);
});

for (const [label, head, status] of [
  [
    'a Content-Length over the limit',
    `POST /tasks/ HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: ${LIMIT + 1}`,
    413,
  ],
  ['an unknown route', 'POST /nowhere HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: 10', 404],
  ['a body that is not JSON', 'POST /tasks/ HTTP/1.1\r\ncontent-type: text/plain\r\ncontent-length: 10', 415],
] as const) {
  test(`http server: Expect: 100-continue with ${label} is refused without 100 Continue (${status}), and the connection closed`, async (t) => {
    const { port, calls } = await server(t);
    const socket = await open(port);
    socket.write(`${head}\r\nhost: x\r\nexpect: 100-continue\r\n\r\n`);
    // The body was never sent, so the connection cannot carry another request: node closes
    // it. 'end' is the server closing its side (destroying ours would not emit it).
    let endedByServer = false;
    socket.once('end', () => (endedByServer = true));
    const text = await exchange(socket);
    assert.ok(endedByServer, 'the server closed the connection');
    assert.deepEqual(statuses(text), [status], text);
    assert.match(text, /connection: close\r\n/i);
    assert.deepEqual(calls, []);
  });
}

test('http server: a body sent with no content type at all is read as JSON', async (t) => {
  const { port, calls } = await server(t);
  const socket = await open(port);
  const body = '{"id":"unlabelled"}';
  socket.write(`POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
  const text = await exchange(socket);
  assert.deepEqual(statuses(text), [200], text);
  assert.deepEqual(calls, ['unlabelled']);
});

test('http server: a JSON content type with parameters or a +json suffix is accepted', async (t) => {
  const { port, calls } = await server(t);
  for (const [id, type] of [
    ['charset', 'application/json; charset=utf-8'],
    ['suffix', 'application/vnd.example+json'],
    ['upper', 'Application/JSON'],
  ]) {
    const socket = await open(port);
    const body = `{"id":"${id}"}`;
    socket.write(
      `POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: ${type}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
    assert.deepEqual(statuses(await exchange(socket)), [200], type);
  }
  assert.deepEqual(calls, ['charset', 'suffix', 'upper']);
});

test('http server: HEAD on a GET route answers its headers without the body', async (t) => {
  const { port } = await server(t);
  const get = await open(port);
  get.write('GET /chat HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  const full = await exchange(get);
  const head = await open(port);
  head.write('HEAD /chat HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  const text = await exchange(head);
  assert.deepEqual(statuses(text), [200], text);
  assert.match(text, /content-type: text\/html/i);
  // The same length as the GET's body, and nothing after the headers.
  const length = /content-length: (\d+)/i.exec(full)![1];
  assert.match(text, new RegExp(`content-length: ${length}\\r\\n`, 'i'));
  assert.ok(text.endsWith('\r\n\r\n'), JSON.stringify(text));
  assert.ok(full.endsWith('<html>chat</html>'));
});

test('http server: HEAD on a POST route is 405 naming the methods allowed', async (t) => {
  const { port } = await server(t);
  const socket = await open(port);
  socket.write('HEAD /tasks/ HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  const text = await exchange(socket);
  assert.deepEqual(statuses(text), [405], text);
  assert.match(text, /allow: POST\r\n/i);
});

test('http server: a chunked body over the limit is refused with 413 without claiming to know its size', async (t) => {
  const { port, calls, transport } = await server(t);
  const socket = await open(port);
  socket.write('POST /tasks/ HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
  const chunk = 'x'.repeat(600);
  // Three chunks: the second passes the limit; the third may meet a closed socket.
  socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`, () => undefined);
  socket.on('error', () => undefined);
  const text = await exchange(socket);
  assert.deepEqual(statuses(text), [413], text);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as {
    error: { message: string; details: { limit: number; size: number } };
  };
  assert.match(
    body.error.message,
    new RegExp(`exceeds the ${LIMIT}-byte limit \\(reading stopped after ${body.error.details.size} bytes\\)`),
  );
  assert.equal(body.error.details.limit, LIMIT);
  assert.ok(body.error.details.size > LIMIT);
  assert.deepEqual(calls, []);
  // What was read of it is counted as received; nothing beyond.
  assert.equal(transport.health().metrics.bytes_received, body.error.details.size);
});
