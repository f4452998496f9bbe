// The baseline of bench/llm: the official `openai` SDK reading the bench model server's stream
// directly, as an application without parley would. sdk-reader.mjs <model base URL>: each line
// on stdin reads one answer and prints `round <µs> <tokens>` (this process's CPU time for that
// read, text chunks read), so the benchmark can run it in turn with the other sides.
import OpenAI from 'openai';
import { createInterface } from 'node:readline';

const [baseURL] = process.argv.slice(2);
const client = new OpenAI({ apiKey: 'none', baseURL, maxRetries: 0, logLevel: 'off' });

async function readOnce() {
  const stream = await client.chat.completions.create({
    model: 'bench',
    messages: [{ role: 'user', content: 'go' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let tokens = 0;
  let text = '';
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta?.content;
    if (delta) {
      text += delta;
      tokens++;
    }
  }
  if (text.length === 0) throw new Error('no text');
  return tokens;
}

// One read at a time: the benchmark waits for each answer before it asks again.
createInterface({ input: process.stdin }).on('line', async () => {
  const before = process.cpuUsage();
  const tokens = await readOnce();
  const used = process.cpuUsage(before);
  console.log(`round ${used.user + used.system} ${tokens}`);
});
console.log('ready sdk');
process.on('SIGTERM', () => process.exit(0));
