// Types for stream-handler.mjs, so bench/transports.ts can share the payload under strict TS.
export declare function deltaText(bytes: number): string;
export declare function llmEvent(delta: string): { type: 'task_llm_stream'; delta: string; final: false; model: string };
export declare function wireEvent(
  delta: string,
  taskId: string,
): { type: 'task_llm_stream'; delta: string; final: false; model: string; task_id: string; timestamp: string };
export declare function streamHandler(
  count: number,
  bytes: number,
): () => AsyncGenerator<{ type: 'task_llm_stream'; delta: string; final: false; model: string }, void, undefined>;
