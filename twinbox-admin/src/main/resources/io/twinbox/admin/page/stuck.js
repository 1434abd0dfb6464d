// The page's views of what is stuck: held aggregates, pending events (filtered, page by page) and the
// purge of PUBLISHED rows with its progress. Uses admin.js's api(), cell(), button(), say(), act().
// Every value from the server is set with textContent, never parsed as HTML.
'use strict';

const PENDING_PAGE = 50;
let pendingAfter = 0; // the position the shown page starts after
let pendingNext = null; // where the next page starts; null: the shown page is the last
let purging = false;

// ---- held aggregates ----

function renderHeld(list) {
  const body = $('held-list').tBodies[0];
  body.replaceChildren();
  for (const h of list.held) {
    const e = h.holding;
    const row = body.insertRow();
    row.dataset.aggregate = h.aggregateType + '/' + h.aggregateId;
    row.dataset.id = e.id;
    cell(row, h.aggregateType + ' / ' + h.aggregateId, 'mono');
    const pill = document.createElement('span');
    pill.className = 'pill ' + h.reason;
    pill.textContent = h.reason;
    row.insertCell().append(pill);
    const by = cell(row, e.type + ' v' + e.version + ' · seq ' + e.sequence);
    by.title = 'event id ' + e.id;
    cell(row, String(e.attempts), 'num');
    cell(row, e.lastError || '', 'error-text');
    cell(row, formatTime(h.since));
    cell(row, h.reason === 'FAILED' ? '–' : formatTime(e.nextAttemptAt));
    const actions = cell(row, '', 'actions admin-only');
    if (h.reason === 'FAILED') {
      const sel = { aggregateType: h.aggregateType, aggregateId: h.aggregateId };
      actions.append(
          button('Retry', 'retry small', () => act('retry', sel, 'Retried')),
          button('Skip', 'skip small danger', () => confirmed('Skip the FAILED events of ' + h.aggregateType
              + ' / ' + h.aggregateId + '? They will never be published.') && act('skip', sel, 'Skipped')));
    }
  }
  $('held-empty').hidden = list.held.length > 0;
}

function heldQuery() {
  const q = new URLSearchParams({ limit: '100' });
  const type = $('h-aggregate-type').value.trim();
  if (type) q.set('aggregateType', type);
  return q;
}

// ---- pending events ----

function pendingQuery() {
  const q = new URLSearchParams({ limit: String(PENDING_PAGE), after: String(pendingAfter) });
  for (const [key, id] of [['type', 'p-type'], ['aggregateType', 'p-aggregate-type'],
      ['aggregateId', 'p-aggregate-id'], ['olderThan', 'p-older-than']]) {
    const v = $(id).value.trim();
    if (v) q.set(key, v);
  }
  return q;
}

function renderPending(page) {
  const body = $('pending-list').tBodies[0];
  body.replaceChildren();
  for (const e of page.events) {
    const row = body.insertRow();
    row.dataset.id = e.id;
    cell(row, String(e.position), 'num');
    cell(row, e.type + ' v' + e.version);
    cell(row, e.aggregateType + (e.aggregateId === null ? '' : ' / ' + e.aggregateId), 'mono').title = 'event id ' + e.id;
    cell(row, String(e.sequence), 'num');
    cell(row, String(e.attempts), 'num');
    cell(row, formatTime(e.createdAt));
  }
  pendingNext = page.next;
  $('pending-empty').hidden = page.events.length > 0;
  $('pending-next').disabled = pendingNext === null;
  $('pending-first').disabled = pendingAfter === 0;
  $('pending-page').textContent = page.events.length === 0 ? ''
      : 'positions ' + page.events[0].position + '–' + page.events[page.events.length - 1].position
        + (pendingNext === null ? ' (last page)' : '');
}

async function refreshStuck() {
  const [held, pending] = await Promise.all([api('/api/held?' + heldQuery()), api('/api/pending?' + pendingQuery())]);
  renderHeld(held);
  renderPending(pending);
}

async function showPendingFrom(after) {
  pendingAfter = after;
  try {
    renderPending(await api('/api/pending?' + pendingQuery()));
  } catch (e) {
    handleError(e);
  }
}

// ---- purge of PUBLISHED rows ----

async function countPurgeable() {
  const age = $('purge-age').value.trim();
  const r = await api('/api/purge?' + new URLSearchParams({ olderThan: age }));
  $('purge-count').textContent = r.published.toLocaleString() + (r.published === 1 ? ' published event is' : ' published events are')
      + ' older than ' + r.olderThan + '.';
  return r;
}

function purgeProgress(done, total) {
  const p = $('purge-progress');
  p.max = Math.max(total, done, 1);
  p.value = done;
  $('purge-status').textContent = 'Deleted ' + done.toLocaleString() + ' of ' + Math.max(total, done).toLocaleString();
}

async function purge() {
  if (purging) return;
  const batch = Number($('purge-batch').value);
  let preview;
  try {
    preview = await countPurgeable();
  } catch (e) {
    handleError(e);
    return;
  }
  if (preview.published === 0) {
    say('Nothing to purge: no published event is older than ' + preview.olderThan + '.');
    return;
  }
  if (!confirmed('Delete ' + preview.published.toLocaleString() + ' published events older than '
      + preview.olderThan + '? They cannot be restored.')) {
    return;
  }
  purging = true;
  $('purge-start').disabled = true;
  $('purge-stop').hidden = false;
  $('purge-progress-box').hidden = false;
  let done = 0;
  purgeProgress(0, preview.published);
  try {
    while (purging) {
      const r = await api('/api/actions', { action: 'purge', olderThan: preview.olderThan, batch });
      done += r.affected;
      purgeProgress(done, preview.published);
      if (r.affected < batch) break;
    }
    say((purging ? 'Purged ' : 'Stopped after purging ') + done.toLocaleString()
        + (done === 1 ? ' published event.' : ' published events.'));
    await countPurgeable();
  } catch (e) {
    handleError(e);
  } finally {
    purging = false;
    $('purge-start').disabled = false;
    $('purge-stop').hidden = true;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('held-filter').addEventListener('submit', (ev) => {
    ev.preventDefault();
    refresh().catch(handleError);
  });
  $('held-filter').addEventListener('reset', () => setTimeout(() => refresh().catch(handleError)));
  $('pending-filter').addEventListener('submit', (ev) => {
    ev.preventDefault();
    showPendingFrom(0);
  });
  $('pending-filter').addEventListener('reset', () => setTimeout(() => showPendingFrom(0)));
  $('pending-next').addEventListener('click', () => pendingNext !== null && showPendingFrom(pendingNext));
  $('pending-first').addEventListener('click', () => showPendingFrom(0));
  $('purge-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    countPurgeable().catch(handleError);
  });
  $('purge-start').addEventListener('click', purge);
  $('purge-stop').addEventListener('click', () => {
    purging = false;
  });
});
