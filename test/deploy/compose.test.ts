// compose.yaml, run for real without docker: Redis, the registry and the three echo replicas
// start as local processes from the exact commands and health checks in the file
// (local-deployment.ts says what stands in for the containers), then each promise of the file's
// comment is checked against them: the replicas are discoverable, a task to one runs, a task
// queued on one is seen finished from another, and Redis runs with the settings it was given.
// Spawns the built command (npm run build first), as the image does.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type TestContext, test } from 'node:test';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, userMessage } from '../a2a/support.js';
import { BUILT_MAIN, runCli, scratchDir } from '../cli/run-cli.js';
import { redisInstalled } from '../support/redis-server.js';
import { flagValue, readCompose } from './compose-file.js';
import { type LocalDeployment, type RunningService, startDeployment } from './local-deployment.js';

test('compose.yaml: every parley server has a health check on its own address, and its ports reach its --url port', () => {
  const servers = readCompose().filter((service) => service.image === null);
  assert.deepEqual(
    servers.map((s) => s.name),
    ['registry', 'agent-1', 'agent-2', 'agent-3'],
  );
  for (const server of servers) {
    const url = flagValue(server.command, '--url');
    assert.ok(url, `${server.name} has no --url`);
    assert.ok(server.healthcheck, `${server.name} has no health check`);
    assert.deepEqual(server.healthcheck.slice(-3), ['health', '--ready', url], `${server.name}'s health check`);
    const port = Number(new URL(url).port);
    assert.deepEqual(
      server.ports.map((p) => p.container),
      [port],
      `${server.name} publishes its --url port`,
    );
  }
});

/** Resolves once the service printed a line matching `line`; rejects with its output if it exits first. */
async function untilPrinted(service: RunningService, line: RegExp): Promise<void> {
  while (!line.test(service.output())) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(`${service.name} exited without printing ${line}:\n${service.output()}`);
    }
    await sleep(50);
  }
}

function agentUrls(deployment: LocalDeployment): string[] {
  return deployment.compose
    .filter((s) => s.name.startsWith('agent-'))
    .map((s) => deployment.url(flagValue(s.command, '--url')!).replace(/\/$/, ''));
}

/** Each promise of compose.yaml's comment, one subtest each, against the running deployment. */
async function checkPromises(t: TestContext, deployment: LocalDeployment, redis: Redis): Promise<void> {
  const compose = new Map(deployment.compose.map((s) => [s.name, s]));
  const registryUrl = deployment.url(flagValue(compose.get('registry')!.command, '--url')!);
  const [agent1, , agent3] = agentUrls(deployment);
  const scratch = scratchDir();
  t.after(scratch.cleanup);

  await t.test('Redis runs with the settings compose gives it (CONFIG GET)', async () => {
    const command = compose.get('redis')!.command;
    const expected = { appendonly: 'yes', appendfsync: 'always', 'maxmemory-policy': 'noeviction' };
    for (const [name, value] of Object.entries(expected)) {
      assert.equal(flagValue(command, `--${name}`), value, `compose.yaml sets --${name} ${value}`);
      assert.deepEqual(await redis.config('GET', name), [name, value], `CONFIG GET ${name}`);
    }
  });

  await t.test('parley discover lists the three echo replicas, kept in Redis under the registry prefix', async () => {
    const discovered = await runCli(['discover', registryUrl, '--json'], { cwd: scratch.dir, built: true });
    assert.equal(discovered.code, 0, discovered.stderr);
    const cards = JSON.parse(discovered.stdout) as { name: string; url: string }[];
    assert.deepEqual(
      cards.map((card) => card.name),
      ['echo', 'echo', 'echo'],
    );
    const sorted = (list: readonly string[]) => list.map((url) => url.replace(/\/$/, '')).sort();
    assert.deepEqual(sorted(cards.map((card) => card.url)), sorted(agentUrls(deployment)));
    assert.deepEqual(sorted(await redis.hkeys('registry:reg:entries')), sorted(agentUrls(deployment)));
    assert.equal(await redis.exists('parley:reg:entries'), 0, "the registry keeps nothing under the agents' prefix");
  });

  await t.test('a task sent to agent-1 runs', async () => {
    const sent = await runCli(['send', agent1!, 'hello from compose'], { cwd: scratch.dir, built: true });
    assert.equal(sent.code, 0, `${sent.stdout}\n${sent.stderr}`);
    assert.match(sent.stdout, /hello from compose/);
  });

  await t.test('SendMessage with returnImmediately on agent-1 is seen COMPLETED by GetTask on agent-3', async () => {
    const sent = await call(agent1!, 'SendMessage', {
      message: userMessage('queued by compose'),
      configuration: { returnImmediately: true },
    });
    const id = sent.result?.task?.id;
    assert.ok(id, JSON.stringify(sent));
    let seen = await call(agent3!, 'GetTask', { id });
    while (seen.result?.status?.state !== 'TASK_STATE_COMPLETED') {
      assert.ok(!seen.error, JSON.stringify(seen));
      assert.notEqual(seen.result?.status?.state, 'TASK_STATE_FAILED', JSON.stringify(seen));
      await sleep(25);
      seen = await call(agent3!, 'GetTask', { id });
    }
    assert.match(JSON.stringify(seen.result.artifacts), /queued by compose/);
    // It went through the shared queue, not a run inside agent-1's request.
    assert.ok((await redis.keys('parley:queue:a2a-tasks:*')).length > 0);
  });
}

test('compose.yaml run as local processes: its replicas register, run tasks and share the queue through its Redis', {
  skip: redisInstalled ? false : 'redis-server is not installed',
  timeout: 300_000,
}, async (t) => {
  assert.ok(existsSync(BUILT_MAIN), `${BUILT_MAIN} is missing: run npm run build first`);
  const deployment = await startDeployment(t);
  // `ready` comes after the first registration's answer: from then on discovery must list it.
  for (const name of ['agent-1', 'agent-2', 'agent-3']) {
    await untilPrinted(deployment.services.get(name)!, /^ready /m);
    assert.match(deployment.services.get(name)!.output(), /^registered with /m, `${name} registered`);
  }
  const { Redis } = await import('ioredis');
  const redis = new Redis(`redis://${deployment.table.addresses.get('redis:6379')}`);
  try {
    await checkPromises(t, deployment, redis);
  } finally {
    // Before the deployment stops (an after hook), so the client does not retry a stopped Redis.
    redis.disconnect();
  }
});
