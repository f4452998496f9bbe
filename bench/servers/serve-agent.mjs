// How every parley benchmark server runs its agent: start it, print `ready <url>` for the
// benchmark (bench/lib/child-server.ts waits for that line), and on SIGTERM print the CPU this
// process used (`cpu <µs>`, for cost per request) and stop.
export async function serveAgent(agent) {
  await agent.start();
  console.log(`ready ${agent.url}`);
  process.on('SIGTERM', () => {
    const { user, system } = process.cpuUsage();
    console.log(`cpu ${user + system}`);
    void agent.stop().then(() => process.exit(0));
  });
}
