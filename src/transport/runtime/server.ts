// Starting a runtime transport is registering its dispatcher under its URL.
import type { TransportServer } from '../binding.js';
import type { Dispatcher } from '../dispatcher.js';
import { registerTarget, runtimeKey, unregisterTarget } from './directory.js';

export class RuntimeServer implements TransportServer {
  private registered: { url: string; dispatcher: Dispatcher } | null = null;

  async listen(url: string, dispatcher: Dispatcher): Promise<string> {
    registerTarget(url, dispatcher);
    this.registered = { url, dispatcher };
    return runtimeKey(url);
  }

  async close(): Promise<void> {
    if (this.registered) unregisterTarget(this.registered.url, this.registered.dispatcher);
    this.registered = null;
  }
}
