// The page's view of parked inbox messages: list with filters, one message with its headers and
// audit trail (the payload on an explicit click, admin token only), replay and discard. Uses
// admin.js's api(), cell(), button(), say(), confirmed(). Every value is set with textContent.
'use strict';

let shownParked = null; // the id in the detail view

function parkedQuery() {
  const q = new URLSearchParams({ limit: '100', state: $('k-state').value });
  for (const [key, id] of [['consumer', 'k-consumer'], ['reason', 'k-reason'], ['olderThan', 'k-older-than']]) {
    const v = $(id).value.trim();
    if (v) q.set(key, v);
  }
  return q;
}

function pill(state) {
  const p = document.createElement('span');
  p.className = 'pill ' + state;
  p.textContent = state;
  return p;
}

function renderParked(list) {
  $('parked').hidden = !list.available;
  if (!list.available) return;
  const summary = $('parked-summary');
  summary.replaceChildren();
  for (const s of list.summary) {
    const li = document.createElement('li');
    li.textContent = s.consumer + ': ' + s.parked + ' parked, ' + s.replaying + ' replaying, oldest '
        + formatAge(s.oldestParkedAgeMillis);
    summary.append(li);
  }
  const body = $('parked-list').tBodies[0];
  body.replaceChildren();
  for (const m of list.messages) {
    const row = body.insertRow();
    row.dataset.id = String(m.id);
    row.dataset.state = m.state;
    cell(row, String(m.id), 'num');
    cell(row, m.consumer, 'mono');
    cell(row, m.messageId + (m.type ? ' (' + m.type + ' v' + m.version + ')' : ''), 'mono');
    cell(row, m.aggregateType ? m.aggregateType + (m.aggregateId ? ' / ' + m.aggregateId : '') : '–', 'mono');
    cell(row, m.reason || '', 'error-text');
    cell(row, String(m.attempts), 'num');
    cell(row, formatTime(m.parkedAt));
    row.insertCell().append(pill(m.state));
    const actions = cell(row, '', 'actions');
    actions.append(button('Show', 'show small plain', () => showParked(m.id)));
    if (canMutate && m.state === 'PARKED' && m.payloadStored) {
      actions.append(button('Replay', 'replay small', () => parkedAct('replay', m.id)));
    }
    if (canMutate && (m.state === 'PARKED' || m.state === 'REPLAYING')) {
      actions.append(button('Discard', 'discard small danger', () => confirmed('Discard parked message '
          + m.id + ' (' + m.messageId + ')? It will never be applied.') && parkedAct('discard', m.id)));
    }
  }
  $('parked-empty').hidden = list.messages.length > 0;
}

async function refreshParked() {
  renderParked(await api('/api/parked?' + parkedQuery()));
}

function definitions(dl, pairs) {
  dl.replaceChildren();
  for (const [k, v] of pairs) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v === null || v === undefined || v === '' ? '–' : String(v);
    dl.append(dt, dd);
  }
}

async function showParked(id, withPayload) {
  try {
    const r = await api('/api/parked/' + id + (withPayload ? '?payload=true' : ''));
    const m = r.message;
    shownParked = id;
    $('parked-detail-title').textContent = 'Parked message ' + m.id;
    definitions($('parked-fields'), [['Consumer', m.consumer], ['Message id', m.messageId], ['Type', m.type],
      ['Version', m.version], ['Source', m.source], ['Aggregate', m.aggregateType ? m.aggregateType + ' / '
        + (m.aggregateId || '–') : null], ['Sequence', m.sequence], ['Reason', m.reason], ['Attempts', m.attempts],
      ['Parked', formatTime(m.parkedAt)], ['State', m.state + (m.stateBy ? ' by ' + m.stateBy : '')
        + (m.stateAt ? ' at ' + formatTime(m.stateAt) : '')], ['Correlation id', m.correlationId],
      ['Causation id', m.causationId], ['Origin', m.origin], ['Payload hash', m.payloadHash],
      ['Payload stored', m.payloadStored ? 'yes' : 'no']]);
    definitions($('parked-headers'), Object.entries(m.headers));
    const audit = $('parked-audit');
    audit.replaceChildren();
    for (const a of r.audit) {
      const li = document.createElement('li');
      li.textContent = formatTime(a.at) + ' ' + a.action + ' by ' + a.actor + (a.detail ? ': ' + a.detail : '');
      audit.append(li);
    }
    const pre = $('parked-payload');
    pre.hidden = !withPayload;
    pre.textContent = withPayload ? (m.payload === null ? '(no payload stored)' : m.payload) : '';
    $('parked-show-payload').disabled = !m.payloadStored;
    $('parked-detail').hidden = false;
    $('parked-detail').focus();
  } catch (e) {
    handleError(e);
  }
}

async function parkedAct(action, id) {
  try {
    const r = await api('/api/parked/actions', { action, id });
    say(action === 'replay'
        ? 'Replay of parked message ' + id + ' requested (' + r.message.state + '); its consumer runs it again.'
        : 'Discarded parked message ' + id + '.');
    await refresh();
    if (shownParked === id) await showParked(id);
  } catch (e) {
    handleError(e);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('parked-filter').addEventListener('submit', (ev) => {
    ev.preventDefault();
    refreshParked().catch(handleError);
  });
  $('parked-filter').addEventListener('reset', () => setTimeout(() => refreshParked().catch(handleError)));
  $('parked-show-payload').addEventListener('click', () => shownParked !== null && showParked(shownParked, true));
  $('parked-close').addEventListener('click', () => {
    shownParked = null;
    $('parked-detail').hidden = true;
    $('parked-payload').textContent = '';
  });
});
