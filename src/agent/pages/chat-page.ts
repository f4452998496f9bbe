// GET /chat: a small chat window; without a model, a plain note. Where the agent's transport
// streams and tasks are the model's own answers, the page sends each message as a task on
// POST /tasks/stream (with the page's session id in its metadata) and shows the text as its
// chunks arrive, and the tools the model calls; elsewhere it posts to POST /chat and shows
// the whole reply. Both keep one session, so the model sees the conversation.
import type { AgentCard } from '../../../generated/types/index.js';
import { escapeHtml, page } from '../../server/pages/html.js';

export function renderChatPage(card: AgentCard, modelName: string | null, streams: boolean): string {
  const title = `${card.name} · chat`;
  if (!modelName) {
    return page(
      title,
      `<header><h1>${escapeHtml(card.name)}</h1></header>
<p id="fallback">This agent has no language model configured, so chat is not available. Tasks still work: POST them to <code>/tasks/</code>.</p>`,
    );
  }
  const body = `<header><h1>${escapeHtml(card.name)}</h1><span class="muted">model ${escapeHtml(modelName)}</span></header>
<div id="log" aria-live="polite" data-mode="${streams ? 'stream' : 'post'}"></div>
<form id="chat"><input id="message" type="text" autocomplete="off" placeholder="Say something" required><button>Send</button></form>`;
  const script = `
const log = document.getElementById('log');
const form = document.getElementById('chat');
const input = document.getElementById('message');
const button = form.querySelector('button');
const streams = ${streams ? 'true' : 'false'};
function newId() {
  return self.crypto && crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + '-' + Math.random().toString(36).slice(2);
}
let sessionId = streams ? newId() : null;
function add(who, text) {
  const line = document.createElement('div');
  line.className = 'turn-' + who;
  line.textContent = (who === 'user' ? 'you: ' : who === 'tool' ? 'tool: ' : 'agent: ') + text;
  log.appendChild(line);
  return line;
}
async function viaChat(message) {
  const body = sessionId ? { message, session_id: sessionId } : { message };
  const res = await fetch('chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) return add('agent', 'error: ' + (data.error && data.error.message));
  sessionId = data.session_id;
  add('agent', data.reply);
}
function onEvent(event, state) {
  if (event.type === 'task_llm_stream') {
    if (event.final) { state.line = null; return; }
    if (!state.line) { state.line = add('agent', ''); state.text = ''; }
    state.text += event.delta;
    state.line.textContent = 'agent: ' + state.text;
  } else if (event.type === 'task_tool_call') {
    add('tool', event.tool_call.name + ' ' + JSON.stringify(event.tool_call.arguments || {}));
  } else if (event.type === 'task_tool_result') {
    const out = event.tool_result;
    add('tool', out.error ? 'error: ' + out.error : JSON.stringify(out.result));
  } else if (event.type === 'task_completed' && event.state !== 'completed') {
    const error = event.task.metadata && event.task.metadata.error;
    add('agent', 'error: ' + (error ? error.message : 'the task ended ' + event.state));
  }
}
async function viaStream(message) {
  const task = { id: newId(), messages: [{ role: 'user', parts: [{ type: 'text', content: message }] }], metadata: { session_id: sessionId } };
  const res = await fetch('tasks/stream', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(task) });
  if (!res.ok) {
    const data = await res.json().catch(() => ({}));
    return add('agent', 'error: ' + ((data.error && data.error.message) || res.status));
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const state = { line: null, text: '' };
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\\n\\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).join('\\n');
      if (!data) continue;
      const envelope = JSON.parse(data);
      if (!envelope.ok) return add('agent', 'error: ' + (envelope.error && envelope.error.message));
      onEvent(envelope.result, state);
    }
  }
}
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message) return;
  input.value = '';
  add('user', message);
  button.disabled = true;
  try {
    await (streams ? viaStream(message) : viaChat(message));
  } catch (error) {
    add('agent', 'error: ' + error.message);
  } finally {
    button.disabled = false;
  }
});`;
  return page(title, body, script);
}
