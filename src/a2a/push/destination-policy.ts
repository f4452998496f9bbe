// Which webhook destinations parley will call: the guard against server-side request forgery,
// where a caller registers a URL that points the agent at something only the agent can reach
// (a cloud metadata service, a database on the private network, the agent's own admin port).
// Refused unless the operator allows them: the unspecified, loopback, private, shared (carrier
// NAT), link-local, unique-local and multicast ranges of IPv4 and IPv6, and the reserved ones
// (documentation, benchmarking, protocol assignments, the old class E); an IPv6 address that
// carries an IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4 address inside. Only https
// URLs unless `allowHttp`. This file only judges; webhook-agent.ts applies the judgement to the
// address each connection is actually made to.
import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../../core/errors.js';

/** Why an address is refused. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'reserved';

export interface PushDestinationOptions {
  /** Deliver to any address, private and loopback ones included (`--a2a-push-allow-private`). Default false. */
  readonly allowPrivate?: boolean;
  /**
   * Destinations allowed although their addresses are refused: host names (matched exactly,
   * without a port) and IP addresses or CIDR ranges (`10.1.0.0/16`, `fd00::/8`). Default none.
   */
  readonly allow?: readonly string[];
  /** Accept `http://` webhook URLs (the payload and the credentials then travel in clear). Default false: https only. */
  readonly allowHttp?: boolean;
}

type Range = readonly [prefix: string, bits: number];

/** The IPv4 ranges of each refused class. */
const V4: Readonly<Record<AddressClass, readonly Range[]>> = {
  unspecified: [['0.0.0.0', 8]],
  loopback: [['127.0.0.0', 8]],
  private: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
  ],
  shared: [['100.64.0.0', 10]],
  'link-local': [['169.254.0.0', 16]],
  'unique-local': [],
  multicast: [['224.0.0.0', 4]],
  reserved: [
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['240.0.0.0', 4],
  ],
};

/** The IPv6 ranges of each refused class (besides those that carry an IPv4 address). */
const V6: Readonly<Record<AddressClass, readonly Range[]>> = {
  unspecified: [['::', 128]],
  loopback: [['::1', 128]],
  private: [['fec0::', 10]],
  shared: [],
  'link-local': [['fe80::', 10]],
  'unique-local': [['fc00::', 7]],
  multicast: [['ff00::', 8]],
  reserved: [
    ['::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['64:ff9b:1::', 48],
  ],
};

/** IPv6 prefixes that carry an IPv4 address, and where it starts (bits). */
const CARRIERS: readonly { readonly prefix: (v4: string) => string; readonly at: number }[] = [
  { prefix: (v4) => `::ffff:${v4}`, at: 96 },
  { prefix: (v4) => `64:ff9b::${v4}`, at: 96 },
  { prefix: (v4) => `2002:${sixToFourHex(v4)}::`, at: 16 },
];

const CLASS_ORDER = Object.keys(V4) as AddressClass[];

/** One BlockList per class, built once. */
const CLASS_LISTS: ReadonlyMap<AddressClass, BlockList> = new Map(
  CLASS_ORDER.map((name) => {
    const list = new BlockList();
    for (const [prefix, bits] of V4[name]) {
      list.addSubnet(prefix, bits, 'ipv4');
      for (const carrier of CARRIERS) list.addSubnet(carrier.prefix(prefix), carrier.at + bits, 'ipv6');
    }
    for (const [prefix, bits] of V6[name]) list.addSubnet(prefix, bits, 'ipv6');
    return [name, list];
  }),
);

/** The class that refuses this address, or null for a public one. `address` must be an IP literal. */
export function classifyAddress(address: string): AddressClass | null {
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  for (const name of CLASS_ORDER) if (CLASS_LISTS.get(name)!.check(address, family)) return name;
  return null;
}

export class DestinationPolicy {
  readonly allowPrivate: boolean;
  readonly allowHttp: boolean;
  private readonly hosts = new Set<string>();
  private readonly ranges = new BlockList();

  constructor(options: PushDestinationOptions = {}) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.allowHttp = options.allowHttp ?? false;
    for (const entry of options.allow ?? []) this.addAllowed(entry);
  }

  /** Why this URL cannot be a webhook (its scheme, credentials in it, a refused literal address), or null. */
  checkUrl(url: URL): string | null {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowHttp)) {
      return this.allowHttp ? 'must be an http or https URL' : 'must be an https URL (this agent does not call http webhooks)';
    }
    if (url.username || url.password) return 'must not carry credentials; use authentication instead';
    const host = bareHost(url.hostname);
    if (isIP(host)) {
      const refused = this.refusal(host, host);
      if (refused) return `points at a ${refused} address, which this agent does not call`;
    }
    return null;
  }

  /** The class of `address` when this agent must not connect to it for `host`; null when it may. */
  refusal(address: string, host: string): AddressClass | null {
    if (this.allowPrivate || this.hosts.has(host.toLowerCase())) return null;
    const refused = classifyAddress(address);
    if (refused === null) return null;
    return this.ranges.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6') ? null : refused;
  }

  private addAllowed(entry: string): void {
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const family = isIP(address);
    if (family === 0) {
      if (slash >= 0 || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(entry)) {
        throw new ConfigError('a2a push allow', entry, 'must be a host name, an IP address or a CIDR range');
      }
      this.hosts.add(entry.toLowerCase());
      return;
    }
    const max = family === 4 ? 32 : 128;
    const bits = slash < 0 ? max : Number(entry.slice(slash + 1));
    if (!Number.isInteger(bits) || bits < 0 || bits > max || (slash >= 0 && !/^\d+$/.test(entry.slice(slash + 1)))) {
      throw new ConfigError('a2a push allow', entry, `the prefix length must be a whole number from 0 to ${max}`);
    }
    this.ranges.addSubnet(address, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** A URL's hostname without the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** An IPv4 address as the two hex groups 6to4 writes after 2002: (`127.0.0.0` -> `7f00:0`). */
function sixToFourHex(v4: string): string {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}
