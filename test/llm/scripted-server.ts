// A model server for tests: a real HTTP server on 127.0.0.1 (port 0) that answers each model
// request with the next scripted turn, in the wire format of the API it stands for (see
// fake-openai-server.ts and fake-anthropic-server.ts). It records every request it got (path,
// headers, decoded body) and tells a test when a client went away before the answer's end.
// One server belongs to one test: it stops when the test ends, and the test fails if turns
// were left unanswered or a request found none, so one test's script never reaches the next.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer that is not a stream: an error status with its body and headers. */
export interface ErrorTurn {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Sends no answer at all until the client goes away (to test cancel and deadlines). */
export interface HangTurn {
  readonly hang: true;
  /** Text chunks sent before hanging (the stream starts, then stalls). */
  readonly before?: readonly string[];
  /** Sends nothing at all, not even the response headers: a server that accepted and went quiet. */
  readonly silent?: boolean;
}

export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: any;
}

/** Writes one scripted streaming turn; `cut` ends the connection abruptly when it is done. */
export type TurnWriter<T> = (turn: T, res: ServerResponse, request: RecordedRequest) => Promise<void> | void;

/** What a scripted server needs of a test: somewhere to stop it and check it once the test is over. */
export interface TestScope {
  after(fn: () => Promise<void>): void;
}

export class ScriptedServer<T extends object> {
  readonly requests: RecordedRequest[] = [];
  /** Requests whose client went away before the answer was complete. */
  closedEarly = 0;
  /** Requests that came when no turn was left (each answered 500). */
  unscripted = 0;
  private readonly turns: Array<T | ErrorTurn | HangTurn> = [];
  private readonly server: Server;
  private readonly waiters: Array<() => void> = [];
  private url = '';

  constructor(
    private readonly route: string,
    private readonly write: TurnWriter<T>,
    private readonly writeHang: (turn: HangTurn, res: ServerResponse) => void,
  ) {
    this.server = createServer((req, res) => void this.answer(req, res));
  }

  /**
   * Listens, for the test `t` alone: when `t` ends (pass or fail) the server stops, dropping
   * any answer still open, and then the test fails if a scripted turn was never asked for or
   * a request came with none left.
   */
  async start(t: TestScope): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    t.after(async () => {
      await this.stop();
      this.assertUsedUp();
    });
    return this;
  }

  get baseUrl(): string {
    return this.url;
  }

  /** Queues turns; each model request takes the next one. */
  script(...turns: Array<T | ErrorTurn | HangTurn>): this {
    this.turns.push(...turns);
    return this;
  }

  get pending(): number {
    return this.turns.length;
  }

  /** Fails unless every scripted turn was taken and every request found one. */
  assertUsedUp(): void {
    assert.equal(this.unscripted, 0, `${this.unscripted} model request(s) came with no scripted turn left`);
    assert.equal(this.turns.length, 0, `scripted turn(s) never asked for: ${JSON.stringify(this.turns)}`);
  }

  /** Resolves once `count` requests have arrived (their bodies read, their turns taken). */
  untilRequests(count: number): Promise<void> {
    return this.until(() => this.requests.length >= count);
  }

  /** Resolves once a client has gone away before its answer's end (`closedEarly` reached `count`). */
  untilClosedEarly(count = 1): Promise<void> {
    return this.until(() => this.closedEarly >= count);
  }

  /** Stops listening and drops every open connection. Safe to repeat. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (done() ? resolve() : this.waiters.push(check));
      this.waiters.push(check);
    });
  }

  private changed(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Listening from the start: a client may go away while its request is still being read.
    let finished = false;
    res.on('close', () => {
      if (finished || res.writableFinished) return;
      this.closedEarly++;
      this.changed();
    });
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      // The client went away mid-request: counted above, no turn taken.
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const request: RecordedRequest = { path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : null };
    this.requests.push(request);
    if (req.method !== 'POST' || !request.path.endsWith(this.route)) {
      finished = true;
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${request.path}` } }));
      this.changed();
      return;
    }
    const turn = this.turns.shift();
    this.changed();
    if (!turn) {
      this.unscripted++;
      finished = true;
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'no scripted turn left' } }));
      return;
    }
    if ('status' in turn) {
      finished = true;
      res.writeHead(turn.status, { 'content-type': 'application/json', ...turn.headers }).end(JSON.stringify(turn.body ?? {}));
      return;
    }
    if ('hang' in turn) {
      if (!turn.silent) this.writeHang(turn, res);
      return;
    }
    await this.write(turn as T, res, request);
    finished = true;
  }
}
