// The websocket client: one long-lived connection for data calls, whose lock serializes
// them, and a separate one for control-plane calls (cancellation), so those never wait
// behind the work they control. Each call is one attempt; the shared pipeline retries.
import type { BindingContext, InboundEvent, InboundReply, OutboundCall, TransportClient } from '../binding.js';
import { ClientConnection } from './client-connection.js';

export class WebSocketClient implements TransportClient {
  private readonly data: ClientConnection;
  private readonly control: ClientConnection;

  constructor(context: BindingContext) {
    this.data = new ClientConnection(context.config, context.clientTls);
    this.control = new ClientConnection(context.config, context.clientTls);
  }

  send(call: OutboundCall): Promise<InboundReply> {
    return (call.controlPlane ? this.control : this.data).send(call);
  }

  stream(call: OutboundCall): AsyncIterable<InboundEvent> {
    return this.data.stream(call);
  }

  async close(): Promise<void> {
    await Promise.all([this.data.close(), this.control.close()]);
  }
}
