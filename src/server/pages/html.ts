// Escaping and the shared frame of parley's HTML pages, used by the agent's pages (status, chat)
// and the registry's status page alike; the pages themselves stay with their server.

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
  :root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --ok: #15803d; --bad: #b91c1c; --accent: #2563eb; }
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 980px; padding: 24px; }
  header { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; border-bottom: 1px solid var(--line); padding-bottom: 8px; }
  h1 { font-size: 22px; margin: 0; } h2 { font-size: 16px; margin: 24px 0 8px; }
  .muted { color: var(--muted); } .badge { border-radius: 999px; padding: 1px 10px; font-size: 13px; border: 1px solid currentColor; }
  .ok { color: var(--ok); } .bad { color: var(--bad); }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; font-size: 13px; color: var(--muted); }
  dl { display: grid; grid-template-columns: 10em 1fr; gap: 2px 16px; margin: 0; } dt { color: var(--muted); }
  code { font-size: 13px; } .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 8px; }
  .metric { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; } .metric b { display: block; font-size: 20px; } .metric span { white-space: nowrap; font-size: 13px; }
  form { display: flex; gap: 8px; } input[type=text] { flex: 1; padding: 8px; font: inherit; } button { padding: 8px 16px; font: inherit; }
  #log { border: 1px solid var(--line); border-radius: 8px; min-height: 200px; padding: 12px; margin: 12px 0; white-space: pre-wrap; }
  .turn-user { color: var(--accent); } .turn-tool { color: var(--muted); font-size: 13px; }
`;

export function page(title: string, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
${script ? `<script>${script}</script>` : ''}
</body>
</html>`;
}

/**
 * The status pages' refresh: every few seconds the badge and every `data-metric` cell are
 * updated from /healthz, same origin and credentials.
 */
export const HEALTH_REFRESH_SCRIPT = `
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
