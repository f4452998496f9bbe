// The parley side of bench:observability: the echo agent, compiled (npm run build), on the http
// transport, with the observability named in argv: `off` (the default setting), `metrics`
// (Prometheus), `tracing` (spans through @opentelemetry/api with no SDK registered) or
// `tracing-sdk` (the same with an SDK registered as an application would: a tracer provider
// with a batch processor, the AsyncLocalStorage context manager, the W3C propagator; its
// exporter drops the spans, so only the recording is measured).
import { AgentServer } from '../../dist/src/agent/agent-server.js';
import { serveAgent } from './serve-agent.mjs';

const [mode = 'off'] = process.argv.slice(2);
if (mode === 'tracing-sdk') {
  const { context, propagation, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const dropAll = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropAll)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}
const agent = new AgentServer({
  name: 'echo',
  transport: 'http',
  url: 'http://127.0.0.1:0',
  metrics: mode === 'metrics',
  tracing: mode === 'tracing' || mode === 'tracing-sdk',
});
await serveAgent(agent);
