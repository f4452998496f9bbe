// GET /chat: a small chat window posting to POST /chat; without a model, a plain note.
import type { AgentCard } from '../../../generated/types/index.js';
import { escapeHtml, page } from './html.js';

export function renderChatPage(card: AgentCard, modelName: string | null): string {
  const title = `${card.name} · chat`;
  if (!modelName) {
    return page(
      title,
      `<header><h1>${escapeHtml(card.name)}</h1></header>
<p id="fallback">This agent has no language model configured, so chat is not available. Tasks still work: POST them to <code>/tasks/</code>.</p>`,
    );
  }
  const body = `<header><h1>${escapeHtml(card.name)}</h1><span class="muted">model ${escapeHtml(modelName)}</span></header>
<div id="log" aria-live="polite"></div>
<form id="chat"><input id="message" type="text" autocomplete="off" placeholder="Say something" required><button>Send</button></form>`;
  const script = `
const log = document.getElementById('log');
const form = document.getElementById('chat');
const input = document.getElementById('message');
let sessionId = null;
function add(who, text) {
  const line = document.createElement('div');
  line.className = 'turn-' + who;
  line.textContent = (who === 'user' ? 'you: ' : 'agent: ') + text;
  log.appendChild(line);
}
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message) return;
  input.value = '';
  add('user', message);
  const body = sessionId ? { message, session_id: sessionId } : { message };
  try {
    const res = await fetch('chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const data = await res.json();
    if (!res.ok) return add('agent', 'error: ' + (data.error && data.error.message));
    sessionId = data.session_id;
    add('agent', data.reply);
  } catch (error) { add('agent', 'error: ' + error.message); }
});`;
  return page(title, body, script);
}
