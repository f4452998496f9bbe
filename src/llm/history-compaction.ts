// Shrinking a conversation. Three strategies:
// - tokens: drop the oldest turns until the rest fit in max_tokens, always keeping the last
//   preserve_recent turns;
// - messages: keep only the last preserve_recent turns;
// - summary: replace the turns the tokens strategy would drop with one system turn that
//   summarizes them (written by the model when there is one, else an extract of each turn).
// System turns at the start are instructions and are never dropped.
import type { CompactHistoryRequest } from '../../generated/types/index.js';
import { estimateTokens, type ChatTurn, type LanguageModel } from './language-model.js';

export interface CompactionResult {
  readonly turns: ChatTurn[];
  readonly removed: number;
  readonly summary: string | null;
}

export async function compactHistory(
  turns: readonly ChatTurn[],
  request: Omit<CompactHistoryRequest, 'session_id'>,
  llm: LanguageModel | null,
  signal?: AbortSignal,
): Promise<CompactionResult> {
  const strategy = request.strategy ?? 'tokens';
  const maxTokens = request.max_tokens ?? 4096;
  const preserveRecent = request.preserve_recent ?? 4;
  const lead = leadingSystemTurns(turns);
  const body = turns.slice(lead.length);
  const keepFrom =
    strategy === 'messages' ? Math.max(0, body.length - preserveRecent) : firstKeptIndex(lead, body, maxTokens, preserveRecent);
  const dropped = body.slice(0, keepFrom);
  const kept = body.slice(keepFrom);
  if (strategy !== 'summary' || dropped.length === 0) {
    return { turns: [...lead, ...kept], removed: dropped.length, summary: null };
  }
  const summary = await summarize(dropped, llm, signal);
  return {
    turns: [...lead, { role: 'system', content: `Summary of the earlier conversation: ${summary}` }, ...kept],
    removed: dropped.length,
    summary,
  };
}

export function countTokens(turns: readonly ChatTurn[]): number {
  return turns.reduce((sum, turn) => sum + estimateTokens(turn.content), 0);
}

function leadingSystemTurns(turns: readonly ChatTurn[]): ChatTurn[] {
  const lead: ChatTurn[] = [];
  for (const turn of turns) {
    if (turn.role !== 'system') break;
    lead.push(turn);
  }
  return lead;
}

/** Index into `body` of the first turn kept so that everything fits in `maxTokens`. */
function firstKeptIndex(lead: readonly ChatTurn[], body: readonly ChatTurn[], maxTokens: number, preserveRecent: number): number {
  let budget = maxTokens - countTokens(lead);
  const floor = Math.max(0, body.length - preserveRecent);
  let index = body.length;
  while (index > 0) {
    const cost = estimateTokens(body[index - 1]!.content);
    if (index - 1 < floor && cost > budget) break;
    budget -= cost;
    index--;
  }
  return index;
}

async function summarize(turns: readonly ChatTurn[], llm: LanguageModel | null, signal?: AbortSignal): Promise<string> {
  if (llm) {
    const transcript = turns.map((turn) => `${turn.role}: ${turn.content}`).join('\n');
    return llm.complete(
      [
        { role: 'system', content: 'Summarize this conversation in a few sentences, keeping facts and decisions.' },
        { role: 'user', content: transcript },
      ],
      { signal },
    );
  }
  return turns
    .map((turn) => `${turn.role}: ${firstSentence(turn.content)}`)
    .join(' | ')
    .slice(0, 2000);
}

function firstSentence(text: string): string {
  const sentence = /^[\s\S]*?[.!?](\s|$)/.exec(text)?.[0] ?? text;
  return sentence.trim().slice(0, 160);
}
