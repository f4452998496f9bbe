// Keepalive for one connection, the same on both ends: a ping every `keepalive_interval`
// seconds, and the connection is terminated when its pong does not arrive within
// `keepalive_timeout`. A null interval turns it off.
import type { WebSocket } from 'ws';

/** Starts the pings; they stop by themselves when the socket closes. */
export function startPings(socket: WebSocket, intervalSeconds: number | null, timeoutSeconds: number): void {
  if (intervalSeconds === null) return;
  let deadline: NodeJS.Timeout | null = null;
  const onPong = () => {
    if (deadline) clearTimeout(deadline);
    deadline = null;
  };
  const expire = () => {
    // While we do not read the socket (backpressure), its pong waits unread behind the frames
    // we are not ready for: that peer is alive, only slower than us. Wait again.
    if (socket.isPaused) {
      deadline = setTimeout(expire, timeoutSeconds * 1000).unref();
      return;
    }
    deadline = null;
    socket.terminate();
  };
  const ticker = setInterval(() => {
    if (deadline || socket.readyState !== socket.OPEN) return;
    socket.ping();
    deadline = setTimeout(expire, timeoutSeconds * 1000).unref();
  }, intervalSeconds * 1000).unref();
  const stop = () => {
    clearInterval(ticker);
    if (deadline) clearTimeout(deadline);
    deadline = null;
    socket.off('pong', onPong);
  };
  socket.on('pong', onPong);
  socket.once('close', stop);
}
