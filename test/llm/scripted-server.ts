// A model server for tests: a real HTTP server on 127.0.0.1 (port 0) that answers each model
// request with the next scripted turn, in the wire format of the API it stands for (see
// fake-openai-server.ts and fake-anthropic-server.ts). It records every request it got (path,
// headers, decoded body) and tells a test when a client went away before the answer's end.
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

export class ScriptedServer<T extends object> {
  readonly requests: RecordedRequest[] = [];
  /** Requests whose client went away before the answer was complete. */
  closedEarly = 0;
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

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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

  /** Resolves once a client has gone away before its answer's end (`closedEarly` reached `count`). */
  untilClosedEarly(count = 1): Promise<void> {
    if (this.closedEarly >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (this.closedEarly >= count ? resolve() : this.waiters.push(check));
      this.waiters.push(check);
    });
  }

  /** Resolves once `count` model requests have arrived in all. */
  untilRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (this.requests.length >= count ? resolve() : this.waiters.push(check));
      this.waiters.push(check);
    });
  }

  /** Ends every answer still open (a hang turn) by dropping its connection, as a crashed server would. */
  dropOpen(): void {
    this.server.closeAllConnections();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: RecordedRequest = { path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : null };
    this.requests.push(request);
    for (const waiter of this.waiters.splice(0)) waiter();
    let finished = false;
    res.on('close', () => {
      if (finished || res.writableFinished) return;
      this.closedEarly++;
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    if (req.method !== 'POST' || !request.path.endsWith(this.route)) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${request.path}` } }));
      finished = true;
      return;
    }
    const turn = this.turns.shift();
    if (!turn) {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'no scripted turn left' } }));
      finished = true;
      return;
    }
    if ('status' in turn) {
      res.writeHead(turn.status, { 'content-type': 'application/json', ...turn.headers }).end(JSON.stringify(turn.body ?? {}));
      finished = true;
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
