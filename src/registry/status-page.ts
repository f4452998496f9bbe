// GET /status of a registry: what a person wants to see: whether it is ready, which store it
// uses and the TTL, the live agents with their cards, when each was last seen and how long
// ago, a filter form (name, role, tags; the same matching as discovery), and the transport's
// counters. Ages tick in the page and the counters refresh from /healthz.
import type { Health, RegistryEntry } from '../../generated/types/index.js';
import { escapeHtml, HEALTH_REFRESH_SCRIPT, page } from '../server/pages/html.js';
import { METRIC_LABELS } from '../server/pages/metric-labels.js';
import type { RegistryStore } from './registry-store.js';

/** Rows drawn at most; the filters narrow a larger registry down. */
const MAX_ROWS = 500;

export interface RegistryPageFacts {
  /** The live entries matching the filter. */
  readonly entries: readonly RegistryEntry[];
  /** Every live entry. */
  readonly total: number;
  readonly filter: Readonly<Record<string, string | readonly string[]>>;
  readonly now: number;
  readonly ttl: number | null;
  readonly store: RegistryStore;
  readonly health: Health;
}

export function renderRegistryStatusPage(facts: RegistryPageFacts): string {
  const { health, now } = facts;
  const entries = [...facts.entries].sort(
    (a, b) => a.card.name.localeCompare(b.card.name) || a.card.url.localeCompare(b.card.url),
  );
  const shown = entries.slice(0, MAX_ROWS);
  const filtered = Object.keys(facts.filter).length > 0;
  const rows = shown.map((entry) => agentRow(entry, now)).join('');
  const metrics = METRIC_LABELS.map(
    ([key, label]) =>
      `<div class="metric"><b data-metric="${key}">${escapeHtml(health.metrics[key])}</b><span class="muted">${escapeHtml(label)}</span></div>`,
  ).join('');
  const field = (name: string, label: string) => {
    const value = facts.filter[name];
    const text = Array.isArray(value) ? value.join(',') : (value ?? '');
    return `<label>${label} <input type="text" name="${name}" value="${escapeHtml(text)}"></label>`;
  };
  const summary = filtered
    ? `${entries.length} of ${facts.total} live agents match`
    : `${facts.total} live agent${facts.total === 1 ? '' : 's'}`;
  const more =
    entries.length > shown.length
      ? `<p class="muted">Showing the first ${shown.length}; narrow the filters to see others.</p>`
      : '';
  const body = `
<header>
  <h1>parley registry</h1>
  <span id="status" class="badge ${health.ready ? 'ok' : 'bad'}">${escapeHtml(health.status)}</span>
  <span class="muted">${escapeHtml(health.transport)} · <code>${escapeHtml(health.url)}</code></span>
</header>
<dl>
  <dt>Store</dt><dd id="store">${escapeHtml(facts.store.kind)} <span class="muted">(${escapeHtml(facts.store.location)})</span></dd>
  <dt>Entry TTL</dt><dd id="ttl">${facts.ttl === null ? 'none (entries stay until unregistered)' : `${escapeHtml(facts.ttl)} s after the last heartbeat`}</dd>
  <dt>Live agents</dt><dd id="total">${escapeHtml(facts.total)}</dd>
</dl>
<h2>Agents</h2>
<form id="filters" method="get" action="status">
  ${field('name', 'Name')} ${field('role', 'Role')} ${field('tags', 'Tags')}
  <button type="submit">Filter</button> <a href="status">clear</a>
</form>
<p id="summary" class="muted">${escapeHtml(summary)}. Tags: every one listed must be on the card (comma-separated).</p>
${
  shown.length > 0
    ? `<table id="agents"><thead><tr><th>name</th><th>role</th><th>tags</th><th>url</th><th>last seen</th><th>age</th></tr></thead><tbody>${rows}</tbody></table>`
    : `<p id="empty">${filtered ? 'No live agent matches these filters.' : 'No agent is registered yet.'}</p>`
}
${more}
<h2>Metrics</h2>
<div class="grid">${metrics}</div>
<p class="muted">Health: <a href="healthz">healthz</a> · <a href="readyz">readyz</a></p>`;
  // Ages tick from the server's clock (offset from the browser's); counters refresh from /healthz.
  const script = `
const offset = ${JSON.stringify(now)} - Date.now() / 1000;
${formatAge.toString()}
setInterval(() => {
  const now = Date.now() / 1000 + offset;
  for (const el of document.querySelectorAll('[data-last-seen]')) el.textContent = formatAge(now - Number(el.dataset.lastSeen));
}, 1000);
${HEALTH_REFRESH_SCRIPT}`;
  return page('parley registry · status', body, script);
}

function agentRow(entry: RegistryEntry, now: number): string {
  const { card } = entry;
  const tags = card.tags?.length
    ? card.tags.map((tag) => `<span class="tag">${escapeHtml(tag)}</span>`).join(' ')
    : '<span class="muted">none</span>';
  const seen = new Date(entry.last_seen * 1000).toISOString();
  return `<tr data-url="${escapeHtml(card.url)}">
<td><b>${escapeHtml(card.name)}</b><div class="muted">${escapeHtml(card.description || '')}</div></td>
<td>${escapeHtml(card.role || '')}</td>
<td>${tags}</td>
<td><code>${escapeHtml(card.url)}</code></td>
<td><time datetime="${seen}">${escapeHtml(seen.replace('T', ' ').replace(/\.\d+Z$/, 'Z'))}</time></td>
<td data-last-seen="${escapeHtml(entry.last_seen)}">${escapeHtml(formatAge(now - entry.last_seen))}</td>
</tr><tr class="card"><td colspan="6"><details><summary>card</summary><pre>${escapeHtml(JSON.stringify(card, null, 2))}</pre></details></td></tr>`;
}

/** An age in words a person reads at a glance: `4 s`, `3 min 5 s`, `2 h 10 min`, `3 d 4 h`. */
function formatAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
