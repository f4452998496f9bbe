// The baseline of bench/llm: the official `openai` SDK reading the bench model server's stream
// directly, as an application without parley would. sdk-reader.mjs <model base URL> <warmup>
// <rounds> prints `round <µs> <tokens>` per measured stream (this process's CPU time, text
// chunks read), then `ready done` and exits.
import OpenAI from 'openai';

const [baseURL, warmup = '3', rounds = '5'] = process.argv.slice(2);
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

for (let i = 0; i < Number(warmup); i++) await readOnce();
for (let i = 0; i < Number(rounds); i++) {
  const before = process.cpuUsage();
  const tokens = await readOnce();
  const used = process.cpuUsage(before);
  console.log(`round ${used.user + used.system} ${tokens}`);
}
console.log('ready done');
