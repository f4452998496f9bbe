// POST /state/describe, /state/reset, /state/compact: look at or change session state.
// Scope `session` acts on one session (session_id); scope `agent` on all of them. `keys`
// limits describe and reset to those values. Reset and compact pass the agent's policy first.
// Every operation sees only the caller's own sessions (`owner`, its principal): another
// principal's session is answered as one that does not exist, and scope `agent` lists, resets
// and compacts the caller's sessions only.
import type { StateRequest, StateResult } from '../../generated/types/index.js';
import { nowIso } from '../core/clock.js';
import { countTokens, compactHistory } from '../llm/history-compaction.js';
import type { LanguageModel } from '../llm/language-model.js';
import { modelTokenCounter } from '../llm/tokenizer.js';
import { EndpointError } from '../transport/endpoint-error.js';
import type { Session, SessionStore } from './sessions.js';
import type { TaskEngine } from './task-engine.js';

type StateOperation = StateResult['operation'];

export class StateOperations {
  constructor(
    private readonly sessions: SessionStore,
    private readonly engine: TaskEngine,
    private readonly llm: LanguageModel | null,
  ) {}

  describe(request: StateRequest, owner: string | null): StateResult {
    const { scope, sessionId } = target(request);
    if (scope === 'agent') {
      const own = this.sessions.all(owner);
      return result(
        'describe',
        request,
        scope,
        // Tasks are counted for the whole agent, as GET /status counts them: a number, no ids.
        { sessions: own.length, active_tasks: this.engine.activeCount, session_ids: own.map((session) => session.id) },
        false,
      );
    }
    const session = this.sessions.get(owner, sessionId!);
    return result('describe', request, scope, session ? describeSession(session, request.keys) : { exists: false }, false);
  }

  reset(request: StateRequest, owner: string | null): StateResult {
    const { scope, sessionId } = target(request);
    if (scope === 'agent') {
      const cleared = this.sessions.clear(owner);
      return result('reset', request, scope, { sessions_cleared: cleared }, cleared > 0);
    }
    const session = this.sessions.get(owner, sessionId!);
    if (!session) return result('reset', request, scope, { exists: false }, false);
    if (request.keys?.length) {
      const removed = request.keys.filter((key) => this.sessions.deleteValue(session, key));
      return result('reset', request, scope, describeSession(session), removed.length > 0);
    }
    this.sessions.delete(session);
    return result('reset', request, scope, { exists: false }, true);
  }

  async compact(request: StateRequest, owner: string | null, signal?: AbortSignal): Promise<StateResult> {
    const { scope, sessionId } = target(request);
    const sessions =
      scope === 'agent' ? this.sessions.all(owner) : [this.sessions.get(owner, sessionId!)].filter((s): s is Session => !!s);
    let removed = 0;
    const count = await modelTokenCounter(this.llm);
    for (const session of sessions) {
      const compacted = await compactHistory(session.turns, { strategy: 'tokens' }, this.llm, signal, count);
      removed += compacted.removed;
      this.sessions.setTurns(session, compacted.turns);
    }
    const state =
      scope === 'agent'
        ? { sessions: sessions.length, turns_removed: removed }
        : sessions[0]
          ? describeSession(sessions[0])
          : { exists: false };
    return result('compact', request, scope, { ...state, turns_removed: removed }, removed > 0);
  }
}

function target(request: StateRequest): { scope: 'session' | 'agent'; sessionId: string | null } {
  const scope = request.scope ?? (request.session_id ? 'session' : 'agent');
  if (scope === 'session' && !request.session_id) {
    throw new EndpointError('invalid_request', 'scope "session" needs a session_id');
  }
  return { scope, sessionId: request.session_id ?? null };
}

function describeSession(session: Session, keys?: readonly string[]): Record<string, unknown> {
  const shown = keys?.length ? keys.filter((key) => session.values.has(key)) : session.values.keys();
  const values = Object.fromEntries([...shown].map((key) => [key, JSON.parse(session.values.get(key)!)]));
  return {
    exists: true,
    turns: session.turns.length,
    tokens: countTokens(session.turns),
    values,
    created_at: session.created_at,
    updated_at: session.updated_at,
  };
}

function result(
  operation: StateOperation,
  request: StateRequest,
  scope: 'session' | 'agent',
  state: Record<string, unknown>,
  changed: boolean,
): StateResult {
  return {
    operation,
    session_id: request.session_id ?? null,
    scope,
    state,
    changed,
    timestamp: nowIso(),
    metadata: request.metadata ?? {},
  };
}
