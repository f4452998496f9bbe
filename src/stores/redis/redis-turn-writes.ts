// One socket write per event-loop turn for a store's command connection. ioredis writes each
// command to its socket as it is issued: a replica serving many requests at once makes one
// write syscall per command, and Redis one read per write. Profiles put that write at a quarter
// to a third of a replica's busy time on Redis. Here the first command issued in a turn corks
// the connection's socket (Node's public `cork()`), and an immediate after the poll phase
// uncorks it, so the commands of every request handled in that phase leave in one writev and
// Redis reads them in one go. A command issued alone waits at most for the end of the turn.
//
// Nothing of ioredis is replaced or reached into: the hook runs before ioredis's own
// `sendCommand` (the public entry every command, script and pipeline goes through; ioredis
// wraps it on the instance the same way for MONITOR), and the socket is read fresh from
// `client.stream` each turn, since a reconnect replaces it. If ioredis stopped routing commands
// through `sendCommand`, or wrote to another object, corking would stop helping, no more.
// What the socket's own semantics guarantee, so no command can hang on a cork: `end()` (ioredis's
// disconnect and quit) flushes corked data before closing; a destroyed socket (an error, Redis
// gone) drops what it held, and ioredis fails the commands waiting on it, as it does for those
// written and unanswered; and the command timeout bounds every command regardless.
//
// For the command connection only: a blocking reader or a subscriber sends one command at a
// time and gains nothing, and BullMQ's connections are its own.
import type { Socket } from 'node:net';
import type { RedisClient } from './redis-module.js';

/** Makes `client` send the commands issued in one event-loop turn in one socket write. */
export function writeOncePerTurn(client: RedisClient): void {
  const send = client.sendCommand;
  /** The socket corked this turn, uncorked by the pending immediate; null when none is. */
  let corked: Socket | null = null;
  const uncork = () => {
    const socket = corked;
    corked = null;
    socket?.uncork();
  };
  client.sendCommand = (...args: Parameters<RedisClient['sendCommand']>) => {
    // Typed as always there, but absent until the first connect.
    const socket = client.stream as Socket | undefined;
    if (socket && socket !== corked) {
      // A new socket within the turn (a reconnect): let the old one go now.
      if (corked) corked.uncork();
      else setImmediate(uncork);
      corked = socket;
      socket.cork();
    }
    return send.apply(client, args);
  };
}
