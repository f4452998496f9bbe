// Baseline for the sse stream benchmark: plain node:http. POST /tasks/stream answers a
// text/event-stream of `count` `data:` lines, each an envelope around a `bytes`-character
// task_llm_stream event serialized on the spot, then a final one. raw-sse.mjs [count] [bytes]
import { createServer } from 'node:http';
import { deltaText, wireEvent } from './stream-handler.mjs';

const count = Number(process.argv[2] ?? 20000);
const delta = deltaText(Number(process.argv[3] ?? 1024));

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const task = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const id = task.id;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let i = 0; i < count; i++) {
      const line = `data: ${JSON.stringify({ jsonrpc: '2.0', id, ok: true, result: wireEvent(delta, id), final: false })}\n\n`;
      if (!res.write(line)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id, ok: true, result: { type: 'task_completed', task_id: id }, final: true })}\n\n`,
    );
  });
});
server.keepAliveTimeout = 20_000;
server.listen(0, '127.0.0.1', () => console.log(`ready http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
