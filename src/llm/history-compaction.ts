// Shrinking a conversation. Three strategies:
// - tokens: drop the oldest turns until the rest fit in max_tokens, always keeping the last
//   preserve_recent turns;
// - messages: keep only the last preserve_recent turns;
// - summary: replace the turns the tokens strategy would drop with one system turn that
//   summarizes them (written by the model when there is one, else an extract of each turn).
// System turns at the start are instructions and are never dropped. A tool turn is never kept
// without the assistant turn that asked for it (providers refuse such a history). Tokens are
// counted with the model's tokenizer when the caller passes one, else estimated.
import type { CompactHistoryRequest } from '../../generated/types/index.js';
import { estimateTokens, turnText, type ChatTurn, type LanguageModel, type TokenCounter } from './language-model.js';

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
  count: TokenCounter = estimateTokens,
): Promise<CompactionResult> {
  const strategy = request.strategy ?? 'tokens';
  const maxTokens = request.max_tokens ?? 4096;
  const preserveRecent = request.preserve_recent ?? 4;
  const lead = leadingSystemTurns(turns);
  const body = turns.slice(lead.length);
  let keepFrom =
    strategy === 'messages'
      ? Math.max(0, body.length - preserveRecent)
      : firstKeptIndex(lead, body, maxTokens, preserveRecent, count);
  while (keepFrom > 0 && keepFrom < body.length && body[keepFrom]!.role === 'tool') keepFrom++;
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

export function countTokens(turns: readonly ChatTurn[], count: TokenCounter = estimateTokens): number {
  let sum = 0;
  for (const turn of turns) sum += count(turnText(turn));
  return sum;
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
function firstKeptIndex(
  lead: readonly ChatTurn[],
  body: readonly ChatTurn[],
  maxTokens: number,
  preserveRecent: number,
  count: TokenCounter,
): number {
  let budget = maxTokens - countTokens(lead, count);
  const floor = Math.max(0, body.length - preserveRecent);
  let index = body.length;
  while (index > 0) {
    const cost = count(turnText(body[index - 1]!));
    if (index - 1 < floor && cost > budget) break;
    budget -= cost;
    index--;
  }
  return index;
}

async function summarize(turns: readonly ChatTurn[], llm: LanguageModel | null, signal?: AbortSignal): Promise<string> {
  if (llm) {
    const transcript = turns.map((turn) => `${turn.role}: ${turnText(turn)}`).join('\n');
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
