// The wire types alone, for code that builds or reads parley payloads without calling anyone.
// They are exact: a state that does not exist, or a part without its content, does not compile.
import type { Message, Task, TaskState } from 'parley-agents/types';

const question: Message = { role: 'user', parts: [{ type: 'text', content: 'What is the weather?' }] };

export function newTask(id: string): Task {
  return { id, state: 'submitted', messages: [question] };
}

export function isFinished(state: TaskState): boolean {
  return state === 'completed' || state === 'failed' || state === 'canceled';
}

const task = newTask('t-1');
console.log(`${task.id}: ${task.state}, finished: ${isFinished(task.state ?? 'submitted')}`);
