// The model server of bench/llm: answers every POST with one streamed chat completion of
// `tokens` chunks in the OpenAI wire format (SSE `data:` lines of chat.completion.chunk, a
// finish chunk, the usage chunk, `[DONE]`), made once, so this process costs the measured ones
// little but their reads. openai-stream.mjs <tokens> <burst|paced>: `burst` sends the whole
// answer at once (the reader gets many chunks a read), `paced` one chunk a millisecond (about
// one a read, as a model generating tokens sends them).
import { createServer } from 'node:http';

const tokens = Number(process.argv[2] ?? 20000);
const paced = process.argv[3] === 'paced';
const line = (choices, extra = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1764000000, model: 'bench', choices, ...extra })}\n\n`;
const parts = [line([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])];
for (let i = 0; i < tokens; i++)
  parts.push(line([{ index: 0, delta: { content: ` tok${i % 100}` }, logprobs: null, finish_reason: null }]));
parts.push(line([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
parts.push(line([], { usage: { prompt_tokens: 10, completion_tokens: tokens, total_tokens: tokens + 10 } }));
parts.push('data: [DONE]\n\n');
const body = Buffer.from(parts.join(''));
const chunks = parts.map((part) => Buffer.from(part));

async function pace(res) {
  for (const chunk of chunks) {
    res.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  res.end();
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (paced) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void pace(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': body.length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`ready http://127.0.0.1:${server.address().port}/v1`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
