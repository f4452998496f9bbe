// Baseline for the https row of bench:auth: raw-http.mjs over node:https with the certificate
// and key given in argv: read the body, parse it, answer JSON.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [certfile, keyfile] = process.argv.slice(2);
const server = createServer({ cert: readFileSync(certfile), key: readFileSync(keyfile), minVersion: 'TLSv1.2' }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const task = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...task, state: 'completed' }));
  });
});
server.keepAliveTimeout = 20_000;
server.listen(0, '127.0.0.1', () => console.log(`ready https://127.0.0.1:${server.address().port}`));
// Report the CPU this process used, so the benchmark can compare cost per request.
process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  console.log(`cpu ${user + system}`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
