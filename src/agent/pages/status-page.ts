// GET /status: what a person wants to see about a running agent: who it is, where it
// listens, whether it is ready, its counters, and how many tasks it has in each state. No task
// ids: without an authenticator anyone can read this page, and an id is what a cancel takes.
// Metrics refresh in place.
import type { AgentCard, Health, TaskState } from '../../../generated/types/index.js';
import type { TaskCounts } from '../task-engine.js';
import { escapeHtml, HEALTH_REFRESH_SCRIPT, page } from '../../server/pages/html.js';
import { METRIC_LABELS } from '../../server/pages/metric-labels.js';

const STATES: readonly TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled'];

export function renderStatusPage(card: AgentCard, health: Health, tasks: TaskCounts): string {
  const stateClass = health.ready ? 'ok' : 'bad';
  const capabilities = Object.entries(health.capabilities)
    .map(([name, on]) => `<span class="${on ? 'ok' : 'muted'}">${escapeHtml(name)}${on ? '' : ' (no)'}</span>`)
    .join(', ');
  const metrics = METRIC_LABELS.map(
    ([key, label]) =>
      `<div class="metric"><b data-metric="${key}">${escapeHtml(health.metrics[key])}</b><span class="muted">${escapeHtml(label)}</span></div>`,
  ).join('');
  const rows = STATES.map(
    (state) =>
      `<tr><td>${escapeHtml(state)}</td><td data-state="${escapeHtml(state)}">${escapeHtml(tasks[state] ?? 0)}</td></tr>`,
  ).join('');
  const body = `
<header>
  <h1>${escapeHtml(card.name)}</h1>
  <span id="status" class="badge ${stateClass}">${escapeHtml(health.status)}</span>
  <span class="muted">${escapeHtml(card.role || 'agent')}</span>
</header>
<p>${escapeHtml(card.description || 'No description.')}</p>
<h2>Card</h2>
<dl>
  <dt>URL</dt><dd><code>${escapeHtml(card.url)}</code></dd>
  <dt>Tags</dt><dd>${card.tags?.length ? card.tags.map(escapeHtml).join(', ') : '<span class="muted">none</span>'}</dd>
  <dt>Language model</dt><dd>${card.capabilities?.has_llm ? 'yes' : 'no'}</dd>
  <dt>Security</dt><dd>${card.securitySchemes ? Object.keys(card.securitySchemes).map(escapeHtml).join(', ') : 'none'}</dd>
</dl>
<h2>Transport</h2>
<dl>
  <dt>Type</dt><dd>${escapeHtml(health.transport)}</dd>
  <dt>Capabilities</dt><dd>${capabilities}</dd>
</dl>
<h2>Metrics</h2>
<div class="grid">${metrics}</div>
<h2>Tasks</h2>
<table id="tasks"><thead><tr><th>state</th><th>tasks</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Active tasks and the most recently finished ones.</p>
<p class="muted">Health: <a href="healthz">healthz</a> · <a href="readyz">readyz</a> · <a href="chat">chat</a></p>`;
  const script = HEALTH_REFRESH_SCRIPT;
  return page(`${card.name} · parley status`, body, script);
}
