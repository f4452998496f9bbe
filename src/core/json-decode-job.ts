// What the main thread and a JSON decoding worker say to each other (off-thread-json.ts,
// json-decode-worker.ts, decode-json-bytes.ts).

export interface JsonDecodeJob {
  readonly id: number;
  /** The UTF-8 bytes; their buffer is transferred, not copied. */
  readonly bytes: Uint8Array;
  /** Check the nesting against MAX_JSON_DEPTH, as a request body is checked. */
  readonly checkDepth: boolean;
  /** Text that is only whitespace decodes to `undefined` (a body an endpoint does not take). */
  readonly blankIsNothing: boolean;
}

export type JsonDecodeResult =
  | { readonly id: number; readonly kind: 'value'; readonly value: unknown }
  /**
   * Not JSON: `located` is describeJsonSyntaxError's line, column and reason, `parserMessage`
   * JSON.parse's own words; each caller words its error with the one it always used.
   */
  | { readonly id: number; readonly kind: 'invalid_json'; readonly located: string; readonly parserMessage: string }
  /** Nested past MAX_JSON_DEPTH. */
  | { readonly id: number; readonly kind: 'too_deep' };

/** What a worker posts: a result, or the job's bytes back when its value could not be sent. */
export type WorkerAnswer = JsonDecodeResult | { readonly id: number; readonly kind: 'unsent'; readonly bytes: Uint8Array };
