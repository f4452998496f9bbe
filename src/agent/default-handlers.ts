// Handlers an agent gets when its author gives none.
import type { AgentHandler } from './handler.js';

/** Text in, the same text back as a message and a `result` artifact. */
export const echoHandler: AgentHandler = ({ input }) => ({ text: input });

/**
 * With a model and no handler, the task's text is a prompt: the session's conversation plus
 * the new text go to the model loop (with the agent's tools), its text streams out as
 * `task_llm_stream` events, and the exchange is kept in the session. The answer becomes the
 * assistant message its chunks named, and the `result` artifact.
 */
export const inferenceHandler: AgentHandler = async (context) => {
  const answer = await context.runModel();
  return {
    messages: [{ id: answer.messageId, role: 'assistant', parts: [{ type: 'text', content: answer.text }] }],
    artifacts: [{ kind: 'result', text: answer.text }],
  };
};
