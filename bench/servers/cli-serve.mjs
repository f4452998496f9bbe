// `parley serve ...` as users start it (the compiled command, arguments as given), plus the
// `cpu <µs>` line every benchmark server prints on SIGTERM (serve-agent.mjs), so the command's
// CPU per request can be read beside its throughput. The line is printed before the command's
// own SIGTERM handler stops the server.
process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  console.log(`cpu ${user + system}`);
});
await import('../../dist/src/cli/main.js');
