// GET /status: what a person wants to see about a running agent: who it is, where it
// listens, whether it is ready, its counters, and its recent tasks. Metrics refresh in place.
import type { AgentCard, Health } from '../../../generated/types/index.js';
import type { TaskSummary } from '../task-engine.js';
import { escapeHtml, page } from './html.js';

const METRIC_LABELS: ReadonlyArray<[keyof Health['metrics'], string]> = [
  ['requests_started', 'requests started'],
  ['requests_succeeded', 'succeeded'],
  ['requests_failed', 'failed'],
  ['retries', 'retries'],
  ['active_requests', 'active requests'],
  ['streams_started', 'streams started'],
  ['streams_completed', 'streams completed'],
  ['streams_failed', 'streams failed'],
  ['active_streams', 'active streams'],
  ['bytes_sent', 'bytes sent'],
  ['bytes_received', 'bytes received'],
  ['total_latency_ms', 'total latency (ms)'],
];

export function renderStatusPage(card: AgentCard, health: Health, tasks: readonly TaskSummary[]): string {
  const stateClass = health.ready ? 'ok' : 'bad';
  const capabilities = Object.entries(health.capabilities)
    .map(([name, on]) => `<span class="${on ? 'ok' : 'muted'}">${escapeHtml(name)}${on ? '' : ' (no)'}</span>`)
    .join(', ');
  const metrics = METRIC_LABELS.map(
    ([key, label]) => `<div class="metric"><b data-metric="${key}">${escapeHtml(health.metrics[key])}</b><span class="muted">${escapeHtml(label)}</span></div>`,
  ).join('');
  const rows = tasks.length
    ? tasks
        .map(
          (task) =>
            `<tr><td><code>${escapeHtml(task.id)}</code></td><td>${escapeHtml(task.state)}</td><td>${escapeHtml(task.messages)}</td><td>${escapeHtml(task.artifacts)}</td><td>${escapeHtml(task.created_at)}</td><td>${escapeHtml(task.updated_at)}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="6" class="muted">No tasks yet.</td></tr>';
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
<h2>Recent tasks</h2>
<table id="tasks"><thead><tr><th>id</th><th>state</th><th>messages</th><th>artifacts</th><th>created</th><th>updated</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Health: <a href="healthz">healthz</a> · <a href="readyz">readyz</a> · <a href="chat">chat</a></p>`;
  // Refresh the counters from /healthz every few seconds, same origin and credentials.
  const script = `
setInterval(async () => {
  try {
    const res = await fetch('healthz', { credentials: 'same-origin' });
    if (!res.ok) return;
    const health = await res.json();
    const badge = document.getElementById('status');
    badge.textContent = health.status;
    badge.className = 'badge ' + (health.ready ? 'ok' : 'bad');
    for (const el of document.querySelectorAll('[data-metric]')) el.textContent = health.metrics[el.dataset.metric];
  } catch {}
}, 5000);`;
  return page(`${card.name} · parley status`, body, script);
}
