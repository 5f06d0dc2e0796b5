/** The streams of the log on show, with a search over their names and paging by cursor. */
import { h, fill, byTestId, debounce } from './dom.js';
import { count, plural, timeOfDay } from './format.js';

const PAGE = 100;

/** `onSelect(summary)` opens a stream; `show(listPage)` lists the streams of a log (its `streams` call). */
export function createStreamList(root, { onSelect, onError }) {
  const search = byTestId(root, 'stream-search');
  const list = byTestId(root, 'stream-list');
  const more = byTestId(root, 'streams-more');
  const status = byTestId(root, 'streams-status');
  let source = null;
  let next = null;
  let selected = null;
  let request = null;

  async function load({ append = false } = {}) {
    if (!source) return;
    request?.abort();
    const controller = new AbortController();
    request = controller;
    const query = search.value.trim();
    status.textContent = append ? 'Loading more…' : 'Loading…';
    try {
      const page = await source({ q: query || undefined, after: append ? next : undefined, limit: PAGE }, controller.signal);
      if (!append) list.replaceChildren();
      list.append(...page.streams.map(item));
      next = page.next;
      more.hidden = next == null;
      const shown = list.children.length;
      status.textContent = shown
        ? (query ? `${plural(shown, 'stream')} matching “${query}”${next ? ' so far' : ''}` : `${plural(shown, 'stream')}${next ? ' so far' : ''}`)
        : (query ? `No stream name contains “${query}”.` : 'This log has no streams yet. Send commands to the server, or drop an NDJSON export below.');
    } catch (error) {
      if (error.name === 'AbortError') return;
      status.textContent = error.message;
      onError(error);
    }
  }

  function item(summary) {
    const current = summary.stream === selected;
    return h('li', null, h('button', {
      type: 'button',
      class: 'stream-item',
      'data-testid': 'stream-item',
      'data-stream': summary.stream,
      'aria-current': current ? 'true' : null,
      onclick: () => { mark(summary.stream); onSelect(summary); },
    },
    h('span', { class: 'stream-name' }, summary.stream),
    h('span', { class: 'stream-meta' }, `${plural(summary.version, 'event')} · last ${timeOfDay(summary.lastTimestamp)}`)));
  }

  function mark(name) {
    selected = name;
    for (const button of list.querySelectorAll('.stream-item')) {
      if (button.dataset.stream === name) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
  }

  search.addEventListener('input', debounce(() => load(), 200));
  more.addEventListener('click', () => load({ append: true }));
  // ↑/↓ move between streams, as in any list.
  list.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...list.querySelectorAll('.stream-item')];
    const index = buttons.indexOf(document.activeElement);
    const target = buttons[index + (event.key === 'ArrowDown' ? 1 : -1)];
    if (target) { event.preventDefault(); target.focus(); }
  });

  return {
    /** Lists the streams `listPage` reads (one log's `streams`). */
    show(listPage) {
      source = listPage;
      selected = null;
      search.value = '';
      fill(list);
      return load();
    },
    mark,
  };
}
