// Types for sdk-a2a-peer.mjs, so the tests (strict TypeScript) and the bench share one SDK agent setup.
import type { IncomingMessage } from 'node:http';
import type { AgentExecutor } from '@a2a-js/sdk/server';

export declare const TASK_STATE: { readonly SUBMITTED: 1; readonly WORKING: 2; readonly COMPLETED: 3; readonly CANCELED: 5 };
export declare const ROLE_AGENT: 2;

export interface SdkTextPart {
  readonly content: { readonly $case: 'text'; readonly value: string };
  readonly metadata: undefined;
  readonly filename: '';
  readonly mediaType: '';
}
export declare function textPart(value: string): SdkTextPart;
export declare function textOf(message: { readonly parts?: readonly unknown[] }): string;
export declare function agentMessage(taskId: string, contextId: string, parts: readonly unknown[]): Record<string, unknown>;

export type SdkBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | 'SOAP';

export interface SdkPeerOptions {
  readonly name: string;
  readonly description: string;
  /** `capabilities.streaming`. */
  readonly streaming: boolean;
  /** The protocol version the card gives each interface (default 1.0). */
  readonly version?: string;
  /** The card's interfaces, from the app's base URL and the gRPC address (null without `grpc`). */
  readonly interfaces: (where: { base: string; grpc: string | null }) => readonly { binding: SdkBinding; url: string }[];
  /** Also serve HTTP+JSON under /rest. */
  readonly rest?: boolean;
  /** Also serve gRPC, on a port of its own. */
  readonly grpc?: boolean;
  /** Sees every request the card handler did not answer. */
  readonly onRequest?: (req: IncomingMessage) => void;
}

export interface SdkPeer {
  /** The express app's base URL, where the card is. */
  readonly url: string;
  close(): Promise<void>;
}

export declare function startSdkPeer(executor: AgentExecutor, options: SdkPeerOptions): Promise<SdkPeer>;
