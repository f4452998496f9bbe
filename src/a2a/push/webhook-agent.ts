// The HTTP agents webhook calls go through, with the destination policy applied where it cannot
// be dodged: at connect time, to the address the socket connects to. A host name is resolved by
// the agent's own `lookup`, which drops every refused address before handing the rest to the
// socket, so the address checked is the address connected to (no second resolution a DNS
// answer could change in between). A literal address never reaches `lookup`, so it is checked
// in the URL first; and every new socket's peer address is checked again on connect, before a
// byte is written, as a second line. Keep-alive sockets are reused only for the host they were
// made for (the agent's pool key), so a reused socket was checked when it connected.
import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressClass, DestinationPolicy } from './destination-policy.js';

/** Resolves a host name to its addresses (tests hand in their own; default the system resolver). */
type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** A connection refused by the destination policy. */
export class DestinationRefusedError extends Error {
  readonly code = 'push_destination_refused';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    super(`webhook host ${host} is at ${address}, a ${addressClass} address, which this agent does not call`);
    this.name = 'DestinationRefusedError';
  }
}

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that answers only with addresses the policy allows. */
function guardedLookup(policy: DestinationPolicy, resolve: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const wanted = found.filter((item) => !options.family || item.family === options.family);
        const allowed = wanted.filter((item) => policy.refusal(item.address, hostname) === null);
        if (allowed.length === 0) {
          const first = wanted[0];
          const error: NodeJS.ErrnoException = first
            ? new DestinationRefusedError(hostname, first.address, policy.refusal(first.address, hostname)!)
            : Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          callback(error, '');
          return;
        }
        if (options.all)
          callback(
            null,
            allowed.map((item) => ({ address: item.address, family: item.family })),
          );
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/** Checks a new socket's peer on connect, before anything is written to it. */
function checkPeerOnConnect(socket: Duplex, policy: DestinationPolicy, host: string): void {
  const net = socket as Socket;
  net.prependOnceListener('connect', () => {
    const address = net.remoteAddress;
    const refused = address ? policy.refusal(address, host) : null;
    if (address && refused) net.destroy(new DestinationRefusedError(host, address, refused));
  });
}

interface ConnectOptions {
  readonly host?: string | null;
  readonly servername?: string;
}

/** The plain-HTTP agent (used only when http webhooks are allowed). */
class GuardedHttpAgent extends HttpAgent {
  constructor(
    options: HttpAgentOptions,
    private readonly policy: DestinationPolicy,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex {
    const socket = super.createConnection(options as never, callback as never) as Duplex;
    checkPeerOnConnect(socket, this.policy, options.host ?? '');
    return socket;
  }
}

class GuardedHttpsAgent extends HttpsAgent {
  constructor(
    options: HttpsAgentOptions,
    private readonly policy: DestinationPolicy,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex {
    const socket = super.createConnection(options as never, callback as never) as Duplex;
    checkPeerOnConnect(socket, this.policy, options.host ?? '');
    return socket;
  }
}

export interface WebhookAgentOptions {
  readonly resolve?: Resolver;
  /** Certificate authorities to trust for https webhooks instead of Node's (a private CA, the tests'). */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** Idle keep-alive sockets kept per destination. Default 2. */
  readonly maxFreeSockets?: number;
}

/** The pair of agents one delivery uses, both applying `policy`. */
export interface WebhookAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
  destroy(): void;
}

export function webhookAgents(policy: DestinationPolicy, options: WebhookAgentOptions = {}): WebhookAgents {
  const lookup = guardedLookup(policy, options.resolve ?? systemResolver);
  const shared = { keepAlive: true, maxFreeSockets: options.maxFreeSockets ?? 2, lookup };
  const http = new GuardedHttpAgent(shared as HttpAgentOptions, policy);
  const https = new GuardedHttpsAgent(
    { ...shared, ...(options.ca ? { ca: options.ca as never } : {}) } as HttpsAgentOptions,
    policy,
  );
  return {
    http,
    https,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}

/** Whether a host (bracket-free) is an IP literal, which `lookup` never sees. */
export function isAddressLiteral(host: string): boolean {
  return isIP(host) !== 0;
}
