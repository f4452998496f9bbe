// How the client's channels make their connections: grpc-js opens the TCP connection and hands
// it to the credentials' connector, which returns it as it is (grpc:) or with TLS on it
// (grpcs:). parley does this itself instead of using grpc-js's createSsl for two reasons:
//
// - A failed connection reaches a call only as text inside an UNAVAILABLE status. The Node
//   error itself is what tells a certificate the client will never accept (not worth another
//   attempt) from a peer that is not up yet, so each channel keeps the last failure of its
//   connection, and a call that fails on that channel carries it as its cause (errors.ts).
// - The name checked and sent: as node:https does, an IP address is checked against the
//   certificate's IP entries and never sent as SNI (RFC 6066 forbids it, and Node warns when
//   asked to); createSsl would send it.
//
// ChannelCredentials' underscored members are the extension point grpc-js declares abstract in
// its typings; the class is made once grpc-js is loaded, since grpc-js is optional.
import { isIP } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect, createSecureContext } from 'node:tls';
import type { Socket } from 'node:net';
import type { ChannelCredentials } from '@grpc/grpc-js';
import type { ClientTlsOptions } from '../../tls/node-tls-options.js';
import type { GrpcJsModule } from './load.js';

type SecureConnector = ReturnType<ChannelCredentials['_createSecureConnector']>;

/** The last failure of a channel's connection; cleared by each connection that is made. */
export class ConnectionFailure {
  last: Error | null = null;

  /** Watches a connection: its errors are recorded until the next connection is made. */
  watch(socket: Socket): void {
    this.last = null;
    socket.on('error', (error) => {
      this.last = error;
    });
  }
}

/**
 * Credentials for one channel: TLS with the client's node:tls options when `tls` is given
 * (grpcs:), else plain TCP. Failures of the connections are recorded in `failure`.
 */
export function channelCredentials(
  grpc: GrpcJsModule,
  hostname: string,
  tls: ClientTlsOptions | false,
  failure: ConnectionFailure,
): ChannelCredentials {
  const callCredentials = grpc.CallCredentials.createEmpty();
  const handshake = tls === false ? null : tlsOptions(hostname, tls);
  class ParleyCredentials extends grpc.ChannelCredentials {
    _isSecure(): boolean {
      return handshake !== null;
    }
    _equals(other: ChannelCredentials): boolean {
      return other === this;
    }
    _createSecureConnector(): SecureConnector {
      return secureConnector(handshake, failure, callCredentials);
    }
  }
  return new ParleyCredentials();
}

/**
 * The connector of one subchannel. grpc-js destroys it when the subchannel is no longer used
 * (the channel closed): a handshake still under way then is cut off, or a peer that accepted
 * the connection and never answers would keep it (and the process) open.
 */
function secureConnector(
  handshake: ConnectionOptions | null,
  failure: ConnectionFailure,
  callCredentials: ReturnType<SecureConnector['getCallCredentials']>,
): SecureConnector {
  const handshaking = new Set<Socket>();
  return {
    connect(socket) {
      if (!handshake) {
        failure.watch(socket);
        return Promise.resolve({ socket, secure: false });
      }
      return new Promise((resolve, reject) => {
        const secured = tlsConnect({ ...handshake, socket }, () => {
          handshaking.delete(secured);
          failure.last = null;
          resolve({ socket: secured, secure: true });
        });
        handshaking.add(secured);
        // Also after the handshake: a server that refuses the client's certificate says so
        // once the handshake is over (TLS 1.3).
        secured.on('error', (error) => {
          failure.last = error;
          reject(error);
        });
        secured.once('close', () => {
          handshaking.delete(secured);
          reject(new Error('the connection closed during its TLS handshake'));
        });
      });
    },
    waitForReady: () => Promise.resolve(),
    getCallCredentials: () => callCredentials,
    destroy() {
      for (const socket of handshaking) socket.destroy();
      handshaking.clear();
    },
  };
}

/** node:tls options for a connection to `hostname`, made once per channel. */
function tlsOptions(hostname: string, tls: ClientTlsOptions): ConnectionOptions {
  const { checkServerIdentity, servername, ...material } = tls;
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return {
    secureContext: createSecureContext(material),
    ALPNProtocols: ['h2'],
    // The name certificates are checked against: node:tls checks `servername`, else `host`.
    host,
    ...(servername !== undefined ? { servername } : isIP(host) ? {} : { servername: host }),
    ...(checkServerIdentity ? { checkServerIdentity } : {}),
  };
}
