// A raw TCP peer for the http server tests that need what node's http client will not do:
// stall, trickle, keep uploading after the answer, or hold a connection open doing nothing.
import { connect, type Socket } from 'node:net';

/** A connected socket to 127.0.0.1:`port`; its errors (a reset) are kept, not thrown. */
export async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  return socket;
}

export interface Received {
  /** Everything the server sent, as latin1 text. */
  readonly text: string;
  /** Whether the server closed its side cleanly (a FIN), rather than the connection being reset. */
  readonly ended: boolean;
}

/** Collects what the server sends until the connection is closed. */
export function received(socket: Socket): Promise<Received> {
  return new Promise((resolve) => {
    let text = '';
    let ended = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', () => {
      ended = true;
      socket.destroy();
    });
    socket.on('close', () => resolve({ text, ended }));
  });
}

/** Status codes of the answers in `text`, in order. */
export const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));

/** The JSON body of the one answer in `text`. */
export function bodyOf(text: string): any {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

/** The port of a transport's URL. */
export const portOf = (url: string) => Number(new URL(url).port);
