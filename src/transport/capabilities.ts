// The vocabulary for what a transport can do. Each binding declares its own flags next to its
// schemes (src/transport/<name>/binding.ts); the health payload reports the spec's five.
import type { Health } from '../../generated/types/index.js';

/** The spec's five flags, as the health payload carries them. */
export type Capabilities = Health['capabilities'];
export type TransportName = Health['transport'];

/** What a binding declares: the spec's five flags, plus whether its server serves HTML pages. */
export interface BindingCapabilities extends Readonly<Capabilities> {
  /** The server answers browsers with HTML (the status and chat pages). */
  readonly pages: boolean;
}

export type Capability = keyof BindingCapabilities;
