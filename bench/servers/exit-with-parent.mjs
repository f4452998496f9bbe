// Preloaded (node --import) into every server bench/transports.ts starts: the server exits when
// the parent's end of its stdin pipe closes, so a benchmark that dies, however it dies, leaves
// no server behind.
if (!process.stdin.isTTY) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
