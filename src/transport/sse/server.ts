// The sse server: the http server, with task streams written as `text/event-stream`. Every
// unary route, limit and deadline is http's; only the stream route's answer differs.
import type { BindingContext } from '../binding.js';
import { HttpServer } from '../http/server.js';
import { writeSseStream } from './stream-writer.js';

export class SseServer extends HttpServer {
  constructor(context: BindingContext) {
    super(context, { streamWriter: writeSseStream });
  }
}
