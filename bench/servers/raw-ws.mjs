// Baseline for the websocket benchmarks: a plain `ws` server, no parley. Unary: each request
// envelope (JSON text frame) is parsed and answered with a response envelope around the task,
// marked completed. Stream (`path` /tasks/stream): `count` frames, each a response envelope
// around a `bytes`-character task_llm_stream event serialized on the spot, then a final one.
// With `full`, the unary answer is instead the task as parley's echo agent returns it, built by
// hand (echo-task.mjs): the same bytes as parley's answer.
// raw-ws.mjs [count] [bytes] [full]
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { deltaText, wireEvent } from './stream-handler.mjs';
import { echoTask } from './echo-task.mjs';

const count = Number(process.argv[2] ?? 20000);
const delta = deltaText(Number(process.argv[3] ?? 1024));
const full = process.argv[4] === 'full';
const HIGH_WATER = 1024 * 1024;

const http = createServer((_req, res) => res.writeHead(426).end());
const wss = new WebSocketServer({ server: http, perMessageDeflate: false, clientTracking: false });

wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const request = JSON.parse(data.toString('utf8'));
    if (request.path === '/tasks/stream') {
      void stream(ws, request);
      return;
    }
    const result = full ? echoTask(request.data) : { ...request.data, state: 'completed' };
    ws.send(JSON.stringify({ id: request.id, ok: true, result, error: null, final: true }));
  });
});

async function stream(ws, request) {
  const taskId = request.data.id;
  for (let i = 0; i < count; i++) {
    const text = JSON.stringify({ id: request.id, ok: true, result: wireEvent(delta, taskId), error: null, final: false });
    if (ws.bufferedAmount > HIGH_WATER) await new Promise((resolve) => ws.send(text, resolve));
    else ws.send(text);
  }
  ws.send(
    JSON.stringify({ id: request.id, ok: true, result: { type: 'task_completed', task_id: taskId }, error: null, final: true }),
  );
}

http.listen(0, '127.0.0.1', () => console.log(`ready ws://127.0.0.1:${http.address().port}`));
process.on('SIGTERM', () => process.exit(0));
