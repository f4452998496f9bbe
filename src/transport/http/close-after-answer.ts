// Answering a request whose body is refused part-way (too large, too slow) and then closing its
// connection without losing the answer. Destroying a socket that still has unread input makes
// the kernel reset the connection, and a reset makes the client's kernel throw away what it has
// received but not yet handed over: often the answer itself, while the client is still
// uploading. So the answer goes out with `Connection: close`, the server's side is half-closed,
// and what the client still sends is read and dropped for a moment before the socket is destroyed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long input is still read and dropped after the answer, for the client to read it first. */
const LINGER_MS = 1000;

/** Makes the answer about to be written on `res` the connection's last, closing it gently after. */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
  // Stop collecting the body; what is left of it is dropped once the answer is out.
  req.removeAllListeners('data');
  const socket = req.socket as Socket | null;
  if (!socket) return;
  // Node ends a `Connection: close` answer with destroySoon(), which destroys the socket as soon
  // as the answer is flushed: this connection lingers instead.
  socket.destroySoon = () => linger(socket, req);
}

function linger(socket: Socket, req: IncomingMessage): void {
  socket.end();
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // Read the rest and drop it: node's parser still feeds the request, which flows to no one.
  req.resume();
}
