// Query parameters as handlers see them: strings, or lists of strings for repeated keys,
// whether they came in a query string (http, sse, a gRPC path) or as an envelope's `params`
// object (websocket, grpc).
import type { IncomingMessage } from 'node:http';
import type { QueryParams } from './endpoint.js';

/** A parsed query string; a repeated key becomes a list. */
export function paramsFromSearch(search: URLSearchParams): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    params[key] = values.length === 1 ? values[0]! : values;
  }
  return params;
}

/** An envelope's `params` object: nulls dropped, other values as text, lists kept as lists. */
export function paramsFromEnvelope(params: Readonly<Record<string, unknown>> | undefined): QueryParams {
  const out: Record<string, string | string[]> = {};
  if (!params) return out;
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    out[key] = Array.isArray(value) ? value.map(scalarText) : scalarText(value);
  }
  return out;
}

/** The first value of a request header (node joins most repeats, but not all). */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
