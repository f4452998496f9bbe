// Handlers an agent gets when its author gives none.
import type { AgentHandler } from './handler.js';
import type { SessionStore } from './sessions.js';

/** Text in, the same text back as a message and a `result` artifact. */
export const echoHandler: AgentHandler = ({ input }) => ({ text: input });

/**
 * With a model and no handler, the task's text is a prompt: the session's conversation plus
 * the new text go to the model, its reply streams out as `task_llm_stream` events, and the
 * exchange is kept in the session.
 */
export function inferenceHandler(sessions: SessionStore): AgentHandler {
  return async function* ({ input, llm, sessionId, signal }) {
    if (!llm) throw new Error('this agent has no language model');
    const session = sessions.ensure(sessionId);
    const turns = [...session.turns, { role: 'user' as const, content: input }];
    let reply = '';
    if (llm.stream) {
      for await (const delta of llm.stream(turns, { signal })) {
        reply += delta;
        yield { type: 'task_llm_stream', delta, final: false, model: llm.name };
      }
    } else {
      reply = await llm.complete(turns, { signal });
      yield { type: 'task_llm_stream', delta: reply, final: false, model: llm.name };
    }
    yield { type: 'task_llm_stream', delta: '', final: true, model: llm.name };
    session.turns = [...turns, { role: 'assistant', content: reply }];
    return { text: reply };
  };
}
