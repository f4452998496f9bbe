// An agent's membership in a registry: it registers its card once it serves, sends a heartbeat
// on an interval (registering again when the registry has forgotten it: a restart, a TTL), and
// unregisters at stop. A registry that is down or slow never stops the agent from serving:
// every call is bounded by a deadline, failures are kept as the last outcome, and the next
// tick tries again. With the agent's tracing on, joining and leaving are traced (rare, and
// worth seeing) but heartbeats are not: a new trace every interval is noise. The client's own
// `tracing`, when set, decides for every call.
import type { AgentCard } from '../../generated/types/index.js';
import { RegistryClient, type RegistryCallStatus, type RegistryClientOptions } from '../client/registry-client.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { OutboundOptions } from '../transport/outbound.js';
import { REGISTRY_STATUS } from '../../generated/operations/registry.js';

export interface AgentRegistrationOptions {
  /** The registry's URL (`http://...`, `ws://...`, `grpc://...`, `runtime://...`). */
  readonly url: string;
  /** Seconds between heartbeats. Default 30. Keep it below the registry's entry TTL. */
  readonly heartbeatIntervalSeconds?: number;
  /**
   * How the agent reaches the registry: its transport name, credentials, TLS, ... Its
   * `tracing`, when set, traces every registry call (true, heartbeats included) or none
   * (false); unset, the agent's own `tracing` traces registration and unregistration only.
   */
  readonly client?: RegistryClientOptions;
}

const DEFAULT_INTERVAL_SECONDS = 30;
/** No registry call waits longer than this, whatever the interval. */
const MAX_CALL_MS = 10_000;
/**
 * Nor shorter: a call may open a connection (a TLS handshake) on a busy host, and a short
 * interval must not make every call time out. Calls never overlap (one runs at a time).
 */
const MIN_CALL_MS = 2_000;

export class AgentRegistration {
  readonly client: RegistryClient;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private registered = false;
  private busy: Promise<unknown> | null = null;
  private first: Promise<RegistryCallStatus> | null = null;
  private lastOutcome: RegistryCallStatus | null = null;
  /** Heartbeats make spans only when the client's options ask for tracing themselves. */
  private readonly heartbeatsTraced: boolean;

  /** `tracing`: the agent's own tracing option, which registration follows unless the client sets its own. */
  constructor(
    options: AgentRegistrationOptions,
    private readonly card: () => AgentCard,
    tracing = false,
  ) {
    const seconds = options.heartbeatIntervalSeconds ?? DEFAULT_INTERVAL_SECONDS;
    if (typeof seconds !== 'number' || !(seconds > 0) || !Number.isFinite(seconds)) {
      throw new InvalidArgumentError(`registry.heartbeatIntervalSeconds must be a positive number (got ${String(seconds)})`);
    }
    this.intervalMs = seconds * 1000;
    const own = options.client?.tracing;
    this.heartbeatsTraced = own === true;
    this.client = new RegistryClient(options.url, { ...options.client, tracing: own ?? tracing });
  }

  /** The outcome of the most recent registry call, or null before the first. */
  get last(): RegistryCallStatus | null {
    return this.lastOutcome;
  }

  /** Registers now and heartbeats from then on; resolves with the registration's outcome (never rejects). */
  start(): Promise<RegistryCallStatus> {
    this.timer ??= setInterval(() => void this.tick(), this.intervalMs).unref();
    this.first ??= this.run(() => this.register());
    return this.first;
  }

  /** The first registration's outcome, once known. */
  whenRegistered(): Promise<RegistryCallStatus> | null {
    return this.first;
  }

  /** Stops heartbeating, unregisters (a failure is ignored) and closes the client. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.first = null;
    await this.busy?.catch(() => undefined);
    if (this.registered) await this.record(this.client.unregister(this.card().url, this.callOptions()));
    this.registered = false;
    await this.client.close().catch(() => undefined);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    await this.run(async () => {
      if (!this.registered) return this.register();
      const outcome = await this.record(this.client.heartbeat(this.card().url, this.heartbeatOptions()));
      // Forgotten by the registry (restarted on an empty store, or pruned): join again.
      if (outcome.status === REGISTRY_STATUS.notFound) return this.register();
      return outcome;
    });
  }

  private async register(): Promise<RegistryCallStatus> {
    const outcome = await this.record(this.client.register(this.card(), this.callOptions()));
    this.registered = outcome.error === undefined;
    return outcome;
  }

  /** Runs one registry exchange at a time. */
  private run(work: () => Promise<RegistryCallStatus>): Promise<RegistryCallStatus> {
    const running = work().finally(() => (this.busy = null));
    this.busy = running;
    return running;
  }

  private async record(call: Promise<RegistryCallStatus>): Promise<RegistryCallStatus> {
    this.lastOutcome = await call;
    return this.lastOutcome;
  }

  private callOptions(): OutboundOptions {
    return { timeoutMs: Math.min(Math.max(this.intervalMs, MIN_CALL_MS), MAX_CALL_MS) };
  }

  private heartbeatOptions(): OutboundOptions {
    return this.heartbeatsTraced ? this.callOptions() : { ...this.callOptions(), tracing: false };
  }
}
