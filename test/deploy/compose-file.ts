// compose.yaml as the deployment test reads it: the services after YAML merge keys are applied
// (the `x-agent` anchor), each with its command, health check, dependencies and published ports;
// the table that gives every `service:port` the file names a free loopback port instead (one
// table, so an address means the same process wherever it appears); and the order compose starts
// them in (a service starts once every service it depends on is healthy).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { freePort } from '../support/redis-server.js';

const COMPOSE_FILE = fileURLToPath(new URL('../../compose.yaml', import.meta.url));

export interface ComposeService {
  readonly name: string;
  /** `image:` (redis:7), or null when it is built from the Dockerfile (`build:`). */
  readonly image: string | null;
  readonly command: readonly string[];
  /** The health check's command without its `CMD` marker, or null when it has none. */
  readonly healthcheck: readonly string[] | null;
  /** Services that must be healthy before this one starts. */
  readonly dependsOn: readonly string[];
  /** `host:container` pairs of `ports:`. */
  readonly ports: readonly { readonly host: number; readonly container: number }[];
}

type Raw = Record<string, unknown>;

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new Error(`compose.yaml: ${where} must be a list of strings (exec form), got ${JSON.stringify(value)}`);
  }
  return value;
}

function service(name: string, raw: Raw): ComposeService {
  const health = raw.healthcheck as Raw | undefined;
  let healthcheck: string[] | null = null;
  if (health) {
    const test = strings(health.test, `${name}.healthcheck.test`);
    // CMD-SHELL would need a shell inside the image; the file uses the exec form only.
    if (test[0] !== 'CMD') throw new Error(`compose.yaml: ${name}.healthcheck.test must start with CMD, got ${test[0]}`);
    healthcheck = test.slice(1);
  }
  const depends = raw.depends_on as Record<string, { condition?: string }> | undefined;
  for (const [on, rule] of Object.entries(depends ?? {})) {
    if (rule?.condition !== 'service_healthy') {
      throw new Error(`compose.yaml: ${name} depends on ${on} with ${JSON.stringify(rule)}; the test knows service_healthy only`);
    }
  }
  const ports = ((raw.ports as string[] | undefined) ?? []).map((pair) => {
    const match = /^(\d+):(\d+)$/.exec(pair);
    if (!match) throw new Error(`compose.yaml: ${name}.ports entry ${JSON.stringify(pair)} is not HOST:CONTAINER`);
    return { host: Number(match[1]), container: Number(match[2]) };
  });
  return {
    name,
    image: typeof raw.image === 'string' ? raw.image : null,
    command: strings(raw.command, `${name}.command`),
    healthcheck,
    dependsOn: Object.keys(depends ?? {}),
    ports,
  };
}

export function readCompose(file = COMPOSE_FILE): ComposeService[] {
  // merge: true applies `<<: *agent`, as compose does.
  const document = parse(readFileSync(file, 'utf8'), { merge: true }) as { services?: Record<string, Raw> };
  return Object.entries(document.services ?? {}).map(([name, raw]) => service(name, raw));
}

/** Groups of services in the order compose starts them: each group's dependencies are all in earlier groups. */
export function startOrder(services: readonly ComposeService[]): ComposeService[][] {
  const known = new Set(services.map((s) => s.name));
  for (const s of services) {
    for (const on of s.dependsOn) if (!known.has(on)) throw new Error(`compose.yaml: ${s.name} depends on unknown ${on}`);
  }
  const done = new Set<string>();
  const waves: ComposeService[][] = [];
  while (done.size < services.length) {
    const wave = services.filter((s) => !done.has(s.name) && s.dependsOn.every((on) => done.has(on)));
    if (wave.length === 0) throw new Error('compose.yaml: depends_on has a cycle');
    for (const s of wave) done.add(s.name);
    waves.push(wave);
  }
  return waves;
}

/** Each `service:port` the file mentions, as the loopback address the test gives it. */
export class AddressTable {
  private constructor(
    private readonly pattern: RegExp,
    readonly addresses: ReadonlyMap<string, string>,
  ) {}

  /** Scans every command and health check for `name:port` of a service and picks a free port for each. */
  static async of(services: readonly ComposeService[]): Promise<AddressTable> {
    // Longest names first, so agent-10 would not be read as agent-1.
    const names = services.map((s) => s.name).sort((a, b) => b.length - a.length);
    const escaped = names.map((name) => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'));
    const pattern = new RegExp(`(?<![\\w.-])(${escaped.join('|')}):(\\d+)(?!\\d)`, 'g');
    const addresses = new Map<string, string>();
    for (const s of services) {
      for (const arg of [...s.command, ...(s.healthcheck ?? [])]) {
        for (const match of arg.matchAll(pattern)) {
          if (!addresses.has(match[0])) addresses.set(match[0], `127.0.0.1:${await freePort()}`);
        }
      }
    }
    return new AddressTable(pattern, addresses);
  }

  /** `arg` with every `service:port` in it replaced by its loopback address. */
  rewrite(arg: string): string {
    return arg.replace(this.pattern, (whole) => this.addresses.get(whole)!);
  }

  /** The loopback port given to `service:port`; throws when the file never names it. */
  port(serviceAndPort: string): number {
    const address = this.addresses.get(serviceAndPort);
    if (!address) throw new Error(`compose.yaml names no ${serviceAndPort}`);
    return Number(address.split(':')[1]);
  }
}

/** The value after `flag` in a command (`--url`), or null. */
export function flagValue(command: readonly string[], flag: string): string | null {
  const at = command.indexOf(flag);
  return at >= 0 && at + 1 < command.length ? command[at + 1]! : null;
}
