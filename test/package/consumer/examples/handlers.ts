// The handler interfaces: what a server for each operation must implement, typed from the same
// schemas. Here a stand-in agent for the user's own tests implements two of the operations; the
// compiler checks every argument and answer against the wire types.
import type { AgentHandlers } from 'parley-agents/handlers';
import type { Task } from 'parley-agents/types';

type StandIn = Pick<AgentHandlers<{ caller: string }>, 'sendTask' | 'cancelTask'>;

const tasks = new Map<string, Task>();

const standIn: StandIn = {
  sendTask: (task, context) => {
    const done: Task = {
      ...task,
      state: 'completed',
      artifacts: [{ id: 'a-1', parts: [{ type: 'text', content: `seen by ${context.caller}` }] }],
    };
    tasks.set(task.id, done);
    return done;
  },
  cancelTask: (request) => {
    const task = tasks.get(request.id);
    if (!task) throw new Error(`no task ${request.id}`);
    return task;
  },
};

const done = await standIn.sendTask({ id: 't-1' }, { caller: 'tests' });
const again = await standIn.cancelTask({ id: 't-1' }, { caller: 'tests' });
console.log(`stand-in: ${done.state}, ${again.artifacts?.[0]?.parts[0]?.type}`);
