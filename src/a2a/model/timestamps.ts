// Times as ProtoJSON writes a google.protobuf.Timestamp: RFC 3339 in UTC, a fraction of 3, 6 or
// 9 digits only when it is not zero. parley writes every time of a task and its events in one
// form (nowIso, core/clock.ts: UTC, milliseconds), which is that text already, less a zero
// fraction; copying it costs less than parsing and formatting it again on every answer and
// stream event. Any other form goes through a Date.

/** nowIso's form. */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** `stamp` (ISO 8601 text) as a ProtoJSON Timestamp; `fallbackMs` when it is absent or not a time. */
export function timestampJson(stamp: string | null | undefined, fallbackMs: number): string {
  if (stamp && CANONICAL.test(stamp)) return stamp.endsWith('.000Z') ? `${stamp.slice(0, -5)}Z` : stamp;
  const parsed = stamp ? Date.parse(stamp) : Number.NaN;
  return msJson(Number.isFinite(parsed) ? parsed : fallbackMs);
}

function msJson(ms: number): string {
  const iso = new Date(ms).toISOString();
  return ms % 1000 === 0 ? `${iso.slice(0, -5)}Z` : iso;
}
