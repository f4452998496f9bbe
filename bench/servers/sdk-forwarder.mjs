// A second baseline of bench/llm: the least any server can do to pass a model's tokens on to a
// client. A `ws` server; on each message it reads the model server's stream with the official
// `openai` SDK and sends every text chunk as it comes as one JSON frame ({"delta": ...}), then
// {"done": true}. sdk-forwarder.mjs <model base URL>. SIGUSR2 prints `cpu <µs>`.
import OpenAI from 'openai';
import { WebSocketServer } from 'ws';

const [baseURL] = process.argv.slice(2);
const client = new OpenAI({ apiKey: 'none', baseURL, maxRetries: 0, logLevel: 'off' });
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });

server.on('connection', (socket) => {
  socket.on('message', async () => {
    const stream = await client.chat.completions.create({
      model: 'bench',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) {
        text += delta;
        socket.send(JSON.stringify({ delta }));
      }
    }
    socket.send(JSON.stringify({ done: true, length: text.length }));
  });
});
server.on('listening', () => console.log(`ready ws://127.0.0.1:${server.address().port}`));
process.on('SIGUSR2', () => {
  const usage = process.cpuUsage();
  console.log(`cpu ${usage.user + usage.system}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
