// Baseline for the http benchmark: the least a JSON-over-HTTP server can do: read the body,
// parse it, answer JSON. With `full` (argv), the answer is the task as parley's echo agent
// returns it, built by hand (echo-task.mjs): the same bytes as parley's answer.
import { createServer } from 'node:http';
import { echoTask } from './echo-task.mjs';

const full = process.argv[2] === 'full';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const task = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify(full ? echoTask(task) : { ...task, state: 'completed' });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
});
server.keepAliveTimeout = 20_000;
server.listen(0, '127.0.0.1', () => console.log(`ready http://127.0.0.1:${server.address().port}`));
// Report the CPU this process used, so the benchmark can compare cost per request.
process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  console.log(`cpu ${user + system}`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
