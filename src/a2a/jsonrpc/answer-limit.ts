// Keeping a JSON-RPC answer within the agent's response limit (`max_response_bytes`). Left to
// the transport, an answer over the limit is refused whole with HTTP 500; JSON-RPC can say it
// per request instead. A result too large to send becomes an internal error (-32603) with the
// request's id, the largest results first, until the rest fits. The requests have run; only
// those results are not sent (the client can ask again for less: historyLength, pageSize).
import { encodeNormalizedJson, PreEncoded, type EncodedJson } from '../../core/json/encoded.js';
import { A2aError } from '../errors/a2a-error.js';
import { rpcFailure, type RpcResponse } from './envelope.js';

interface Item {
  readonly answer: RpcResponse;
  readonly encoded: EncodedJson;
}

/** One response as sent: itself, or its id with -32603 when it is over `limit` bytes. */
export function encodeAnswerWithin(answer: RpcResponse, limit: number): PreEncoded {
  const item = fitted({ answer, encoded: encodeNormalizedJson(answer) }, limit);
  return new PreEncoded(item.answer, item.encoded);
}

/** A batch's responses as one array within `limit` bytes, dropping the largest results first. */
export function encodeBatchWithin(answers: readonly RpcResponse[], limit: number): PreEncoded {
  const items: Item[] = answers.map((answer) => ({ answer, encoded: encodeNormalizedJson(answer) }));
  // The brackets and a comma between items.
  let total = items.reduce((sum, item) => sum + item.encoded.bytes, items.length + 1);
  if (total > limit) {
    const largestFirst = items
      .map((item, at) => ({ item, at }))
      .filter(({ item }) => 'result' in item.answer)
      .sort((a, b) => b.item.encoded.bytes - a.item.encoded.bytes);
    for (const { item, at } of largestFirst) {
      if (total <= limit) break;
      const replaced = fitted(item, 0, limit);
      items[at] = replaced;
      total += replaced.encoded.bytes - item.encoded.bytes;
    }
  }
  if (total > limit) {
    // Even the errors do not fit (a batch of many requests under a tiny limit): one error says so.
    const error = rpcFailure(null, tooLarge(`the answers to this batch are ${total} bytes`, limit));
    return new PreEncoded(error, encodeNormalizedJson(error));
  }
  return new PreEncoded(
    items.map((item) => item.answer),
    { text: `[${items.map((item) => item.encoded.text).join(',')}]`, bytes: total },
  );
}

/** `item` when it is within `limit` bytes, else the -32603 that replaces it; `reported` is the limit the message names. */
function fitted(item: Item, limit: number, reported = limit): Item {
  if (item.encoded.bytes <= limit) return item;
  const error = rpcFailure(item.answer.id, tooLarge(`the answer to this request is ${item.encoded.bytes} bytes`, reported));
  return { answer: error, encoded: encodeNormalizedJson(error) };
}

function tooLarge(what: string, limit: number): A2aError {
  return new A2aError(
    'internalError',
    `${what}, over the ${limit}-byte response limit; it ran, but ask for less (historyLength, pageSize) to read it`,
    { limit: String(limit) },
  );
}
