// How a task and its pieces read on a terminal, shared by `parley send` and `parley stream`:
// the agent's answer, the task's state and its artifacts, with non-text parts shown as
// `[type] json`.
import type { Artifact, Part, Task } from '../../generated/types/index.js';

/** The answer, the state and the artifacts, for a person to read. */
export function describeTask(task: Task): string {
  const lines: string[] = [];
  const reply = [...(task.messages ?? [])].reverse().find((message) => message.role !== 'user');
  if (reply) lines.push(partsText(reply.parts));
  lines.push(stateLine(task));
  const remote = task.metadata?.a2a_remote as { task_id?: string; state?: string } | undefined;
  if (remote?.task_id) lines.push(`a2a task: ${remote.task_id} (${remote.state})`);
  for (const artifact of task.artifacts ?? []) lines.push(describeArtifact(artifact));
  return `${lines.join('\n')}\n`;
}

/** `state: STATE`, with the reason of the last transition when it has one (why it failed). */
export function stateLine(task: Task): string {
  const reason = task.metadata?.state_history?.at(-1)?.reason;
  return `state: ${task.state ?? 'unknown'}${reason ? ` (${reason})` : ''}`;
}

/** `artifact NAME ID:` and the parts, indented. */
export function describeArtifact(artifact: Artifact): string {
  const title = `artifact ${artifact.name ?? artifact.kind ?? ''} ${artifact.id}:`.replace(/\s+/g, ' ').trim();
  return `${title}\n${indent(partsText(artifact.parts))}`;
}

export function partsText(parts: readonly Part[]): string {
  return parts
    .map((part) =>
      part.type === 'text' && typeof part.content === 'string' ? part.content : `[${part.type}] ${JSON.stringify(part.content)}`,
    )
    .join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
