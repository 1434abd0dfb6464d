// The Twinbox admin page: plain DOM, no framework. Every value from the server is set with
// textContent, never parsed as HTML. The token lives in sessionStorage (this tab only).
'use strict';

const TOKEN_KEY = 'twinbox.adminToken';
const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);
let timer = null;
let canMutate = false;

class Unauthorized extends Error {}

async function api(path, body) {
  const headers = { Authorization: 'Bearer ' + sessionStorage.getItem(TOKEN_KEY) };
  const init = { headers, cache: 'no-store' };
  if (body !== undefined) {
    init.method = 'POST';
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 401) {
    throw new Unauthorized('The token was not accepted.');
  }
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    throw new Error(json.error || ('HTTP ' + res.status));
  }
  return json;
}

// ---- signing in and out ----

function showLogin(error) {
  stopRefresh();
  sessionStorage.removeItem(TOKEN_KEY);
  $('app').hidden = true;
  $('session').hidden = true;
  $('parked-detail').hidden = true; // a payload shown stays in no hidden element
  $('parked-payload').textContent = '';
  $('login').hidden = false;
  $('login-error').textContent = error || '';
  $('token').value = '';
  $('token').focus();
}

async function signIn(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  try {
    await refresh();
  } catch (e) {
    showLogin(e instanceof Unauthorized ? 'That token was not accepted.' : e.message);
    return;
  }
  $('login').hidden = true;
  $('app').hidden = false;
  $('session').hidden = false;
  startRefresh();
}

function startRefresh() {
  stopRefresh();
  timer = setInterval(() => refresh().catch(handleError), REFRESH_MS);
}

function stopRefresh() {
  if (timer) {
    clearInterval(timer);
    timer = null;
  }
}

function handleError(e) {
  if (e instanceof Unauthorized) {
    showLogin('Signed out: ' + e.message);
  } else {
    say(e.message, true);
  }
}

// ---- rendering ----

function formatAge(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 60) return s + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min ' + (s % 60) + ' s';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h ' + (m % 60) + ' min';
  return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
}

function formatTime(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return isNaN(d.getTime()) ? '–' : d.toLocaleString();
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function renderStatus(s) {
  canMutate = s.canMutate;
  document.body.classList.toggle('can-mutate', canMutate);
  const role = $('role');
  role.textContent = s.role === 'admin' ? 'admin' : 'read-only';
  role.classList.toggle('admin', s.role === 'admin');
  $('pending').textContent = s.pending.toLocaleString();
  $('oldest').textContent = s.pending > 0 ? formatAge(s.oldestPendingAgeMillis) : '–';
  $('failed').textContent = s.failed.toLocaleString();
  $('failed').parentElement.classList.toggle('alert', s.failed > 0);
  $('retrying').textContent = s.retrying.toLocaleString();
  $('held').textContent = s.heldAggregates.toLocaleString();
  $('throughput').textContent = s.relay && s.relay.publishedPerSecond !== null
      ? s.relay.publishedPerSecond.toLocaleString() + ' /s' : '–';
  $('throughput').title = s.relay
      ? s.relay.published.toLocaleString() + ' published by this relay since it started'
      : 'throughput is shown when the page runs inside the relay';

  const body = $('leases').tBodies[0];
  body.replaceChildren();
  for (const owner of s.leaseOwners) {
    const row = body.insertRow();
    cell(row, owner.node, 'mono');
    cell(row, String(owner.partitions), 'num');
  }
  if (s.leaseOwners.length === 0) {
    const row = body.insertRow();
    cell(row, 'No live relay holds a lease.', 'muted').colSpan = 2;
  }
  $('unowned').textContent = s.unownedPartitions > 0
      ? s.unownedPartitions + ' partitions are held by no relay.' : 'Every partition is held by a relay.';
  $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
}

function renderEvents(list) {
  const body = $('events').tBodies[0];
  body.replaceChildren();
  for (const e of list.events) {
    const row = body.insertRow();
    row.dataset.id = e.id;
    row.dataset.status = e.status;
    const shown = e.status === 'FAILED' ? 'FAILED' : 'RETRYING';
    const pill = document.createElement('span');
    pill.className = 'pill ' + shown;
    pill.textContent = shown;
    row.insertCell().append(pill);
    cell(row, e.type + ' v' + e.version);
    const agg = cell(row, e.aggregateType + (e.aggregateId === null ? '' : ' / ' + e.aggregateId), 'mono');
    agg.title = 'event id ' + e.id;
    cell(row, String(e.sequence), 'num');
    cell(row, String(e.attempts), 'num');
    cell(row, e.lastError || '', 'error-text');
    cell(row, formatTime(e.createdAt));
    cell(row, e.status === 'FAILED' ? '–' : formatTime(e.nextAttemptAt));
    const actions = cell(row, '', 'actions admin-only');
    if (e.status === 'FAILED' && e.id !== null) { // null: a stored id that is not a UUID
      actions.append(
          button('Retry', 'retry small', () => act('retry', { id: e.id }, 'Retried')),
          button('Skip', 'skip small danger', () => confirmed(
              'Skip event ' + e.id + ' (' + e.type + ')? It will never be published.')
              && act('skip', { id: e.id }, 'Skipped')));
    }
  }
  $('events-empty').hidden = list.events.length > 0;
}

function button(label, className, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

function say(text, isError) {
  const m = $('message');
  m.textContent = text;
  m.classList.toggle('error', !!isError);
  m.hidden = false;
}

function confirmed(question) {
  return window.confirm(question);
}

// ---- data ----

function filters() {
  const q = new URLSearchParams();
  for (const [key, id] of [['type', 'f-type'], ['aggregateType', 'f-aggregate-type'], ['aggregateId', 'f-aggregate-id']]) {
    const v = $(id).value.trim();
    if (v) q.set(key, v);
  }
  return q;
}

async function refresh() {
  // The status first: a token that is not accepted costs one refused request, not one per view.
  const status = await api('/api/status');
  renderStatus(status); // first: the views' buttons depend on the role
  const [events] = await Promise.all([api('/api/events?' + filters()), refreshStuck(), refreshParked()]);
  renderEvents(events);
}

async function act(action, selector, verb) {
  try {
    const r = await api('/api/actions', Object.assign({ action }, selector));
    say(verb + ' ' + r.affected + (r.affected === 1 ? ' event.' : ' events.'));
    await refresh();
  } catch (e) {
    handleError(e);
  }
}

function aggregateSelector() {
  const type = $('f-aggregate-type').value.trim();
  const id = $('f-aggregate-id').value.trim();
  return type && id ? { aggregateType: type, aggregateId: id } : null;
}

function updateAggregateButtons() {
  const none = aggregateSelector() === null;
  $('retry-aggregate').disabled = none;
  $('skip-aggregate').disabled = none;
}

// ---- wiring ----

document.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const token = $('token').value.trim();
    if (token) signIn(token);
  });
  $('sign-out').addEventListener('click', () => showLogin(''));
  $('refresh').addEventListener('click', () => refresh().catch(handleError));
  $('filter').addEventListener('submit', (ev) => {
    ev.preventDefault();
    refresh().catch(handleError);
  });
  $('filter').addEventListener('reset', () => setTimeout(() => {
    updateAggregateButtons();
    refresh().catch(handleError);
  }));
  $('filter').addEventListener('input', updateAggregateButtons);
  $('retry-aggregate').addEventListener('click', () => act('retry', aggregateSelector(), 'Retried'));
  $('skip-aggregate').addEventListener('click', () => {
    const sel = aggregateSelector();
    if (confirmed('Skip every FAILED event of ' + sel.aggregateType + ' / ' + sel.aggregateId + '?')) {
      act('skip', sel, 'Skipped');
    }
  });
  $('retry-all').addEventListener('click', () => {
    if (confirmed('Retry every FAILED event?')) act('retry', { all: true }, 'Retried');
  });
  $('skip-all').addEventListener('click', () => {
    if (confirmed('Skip every FAILED event? They will never be published.')) act('skip', { all: true }, 'Skipped');
  });

  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) {
    signIn(token);
  } else {
    showLogin('');
  }
});
