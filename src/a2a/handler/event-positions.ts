// Where a StreamResponse stands in its task's shared feed, for the bindings that can send it to
// the client (JSON-RPC as the SSE `id:` line, which comes back as `Last-Event-ID`). Kept beside
// the response rather than in it: the StreamResponse is A2A's shape and has no field for it.
import type { JsonObject } from '@bufbuild/protobuf';

const positions = new WeakMap<JsonObject, string>();

/** Marks `response` as the event at `position` of its task's feed, and returns it. */
export function atPosition(response: JsonObject, position: string): JsonObject {
  positions.set(response, position);
  return response;
}

/** The feed position of a response a subscription yielded; undefined for one without. */
export function positionOf(response: JsonObject): string | undefined {
  return positions.get(response);
}
