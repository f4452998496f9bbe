// RegistryClient: talk to a registry over any transport, chosen from the URL scheme like
// AgentClient's. As the spec has it, register, heartbeat and unregister never throw: a failure
// comes back as `{status: <error text>}`, with the error itself in `error` so that callers can
// match it by class and code. discover throws. Register is never retried (it is not
// idempotent); heartbeat, unregister and discover are, under the transport's retry policy.
import { RegistryOperationsClient } from '../../generated/clients/registry.js';
import type { AgentCard, DiscoverQuery, Health, RegistryStatus } from '../../generated/types/index.js';
import { InvalidArgumentError } from '../core/errors.js';
import { observabilityHooks } from '../observability/hooks.js';
import { createTransport } from '../transport/factory.js';
import type { OutboundOptions } from '../transport/outbound.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import { transportForUrl } from './agent-client.js';

export interface RegistryClientOptions extends TransportOptions {
  /** Transport name; by default inferred from the URL scheme. */
  readonly transport?: string;
  /**
   * An API key to send with every call (a registry with an API key authenticator): shorthand
   * for `auth: { apiKey }`. Bearer tokens (JWT) and Basic credentials go through `auth`.
   */
  readonly apiKey?: string;
}

/** What register, heartbeat and unregister answer: the registry's status, or the failure. */
export interface RegistryCallStatus extends RegistryStatus {
  /** Set when the call failed; `status` then holds its message. */
  readonly error?: Error;
}

/** Discovery filters: exact card attributes; `tags` a tag or a list that must all be present. */
export type DiscoverFilters = DiscoverQuery;

export class RegistryClient {
  private transportPromise: Promise<Transport> | null = null;
  private operations: RegistryOperationsClient | null = null;

  constructor(
    readonly url: string,
    private readonly options: RegistryClientOptions = {},
  ) {
    transportForUrl(url, options.transport);
    if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')) {
      throw new InvalidArgumentError('apiKey must be a non-blank string');
    }
    if (
      options.apiKey !== undefined &&
      (options.auth !== undefined || options.authenticator !== undefined || options.credentials !== undefined)
    ) {
      throw new InvalidArgumentError('give apiKey, auth, or authenticator and credentials, only one of them');
    }
  }

  /** The underlying transport, created on first use. */
  transport(): Promise<Transport> {
    const { transport: name, apiKey, ...options } = this.options;
    this.transportPromise ??= createTransport(transportForUrl(this.url, name), this.url, {
      hooks: observabilityHooks,
      ...options,
      ...(apiKey !== undefined && { auth: { apiKey } }),
    });
    return this.transportPromise;
  }

  /** Registers (or replaces) a card. Never throws. */
  register(card: AgentCard, options?: OutboundOptions): Promise<RegistryCallStatus> {
    return this.statusOf((api) => api.register(card, options));
  }

  /** Records that the agent at `agentUrl` is alive; `agent not found` when it is not registered. Never throws. */
  heartbeat(agentUrl: string, options?: OutboundOptions): Promise<RegistryCallStatus> {
    return this.statusOf((api) => api.heartbeat({ agent_url: agentUrl }, options));
  }

  /** Removes the agent at `agentUrl`; succeeds for an unknown URL too. Never throws. */
  unregister(agentUrl: string, options?: OutboundOptions): Promise<RegistryCallStatus> {
    return this.statusOf((api) => api.unregister({ agent_url: agentUrl }, options));
  }

  /** The live cards matching every filter (all live cards without one). Throws on failure. */
  async discover(filters: DiscoverFilters = {}, options?: OutboundOptions): Promise<AgentCard[]> {
    return (await this.api()).discover(filters, options);
  }

  async health(options?: OutboundOptions): Promise<Health> {
    return (await this.api()).healthz(options);
  }

  async readiness(options?: OutboundOptions): Promise<Health> {
    return (await this.api()).readyz(options);
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    const pending = this.transportPromise;
    this.transportPromise = null;
    this.operations = null;
    if (pending) await (await pending.catch(() => null))?.stop();
  }

  private async api(): Promise<RegistryOperationsClient> {
    return (this.operations ??= new RegistryOperationsClient(await this.transport()));
  }

  private async statusOf(call: (api: RegistryOperationsClient) => Promise<RegistryStatus>): Promise<RegistryCallStatus> {
    try {
      return await call(await this.api());
    } catch (raw) {
      const error = raw instanceof Error ? raw : new Error(String(raw));
      return { status: error.message || error.name, error };
    }
  }
}
