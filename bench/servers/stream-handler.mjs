// The stream benchmark's payload, shared by the parley stream agent (child process, and
// in-process for the runtime transport) and the raw baselines: `count` task_llm_stream events,
// each with a `delta` of `bytes` ASCII characters.

export function deltaText(bytes) {
  const text = 'All work and no play makes a dull agent. ';
  return text.repeat(Math.ceil(bytes / text.length)).slice(0, bytes);
}

/** The event as a handler yields it; the engine adds task_id and timestamp. */
export function llmEvent(delta) {
  return { type: 'task_llm_stream', delta, final: false, model: 'bench' };
}

/** The same event as it goes on the wire, with task_id and timestamp (what raw servers send). */
export function wireEvent(delta, taskId) {
  return { type: 'task_llm_stream', delta, final: false, model: 'bench', task_id: taskId, timestamp: new Date().toISOString() };
}

/** A parley handler (async generator) yielding `count` events, returning nothing. */
export function streamHandler(count, bytes) {
  const delta = deltaText(bytes);
  return async function* () {
    for (let i = 0; i < count; i++) yield llmEvent(delta);
  };
}
