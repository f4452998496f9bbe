// The registry benchmark's fleet of cards, the same in the parent and in the child server:
// card i has name agent-(i mod N/5) (five agents share a name), one of 50 roles, and four of
// 5,000 tags, so a tag is on about 80 cards of 100,000. Plain JS so the child imports it as is.

export const ROLES = 50;
export const TAGS = 5000;

export function fleetCard(i, total) {
  const names = Math.max(1, Math.floor(total / 5));
  return {
    name: `agent-${i % names}`,
    description: `Benchmark agent number ${i}, one of many.`,
    url: `http://10.0.${(i >> 8) & 255}.${i & 255}:${8000 + (i % 1000)}/agent-${i}`,
    role: `role-${i % ROLES}`,
    tags: [`tag-${i % TAGS}`, `tag-${(i * 7 + 3) % TAGS}`, `tag-${(i * 13 + 5) % TAGS}`, `tag-${(i * 31 + 11) % TAGS}`],
    capabilities: { has_llm: i % 2 === 0, streaming: true },
    version: `1.${i % 10}.0`,
  };
}

/** Registers `total` cards, `concurrency` at a time; resolves with the elapsed milliseconds. */
export async function registerFleet(register, total, concurrency = 256) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const outcome = await register(fleetCard(i, total));
      if (outcome.status !== 'agent registered successfully') throw new Error(`registration ${i} failed: ${outcome.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - started;
}
