/**
 * A stream's timeline: a version slider over a virtualised list of its events. Only the rows in
 * view (and a few around them) exist in the DOM, and events are fetched a page at a time, so a
 * stream of 100,000 events scrolls like one of ten.
 *
 * Keys (on the slider or the list): ←/↑ and →/↓ step one row, Home and End jump to the initial
 * state and the last event, PageUp/PageDown move a screenful.
 *
 * The list is one tall spacer (rows × ROW_HEIGHT pixels) with the visible rows placed in it, so its
 * scroll bar is true to the stream. Browsers cap an element's height (about 17 million pixels in
 * Firefox, 33 million in Chrome): past roughly 500,000 events a stream would need scaled scrolling.
 */
import { h, fill, byTestId, perFrame } from './dom.js';
import { allRows, filteredRows } from './rows.js';
import { count, family, plural, timeOfDay } from './format.js';

const ROW_HEIGHT = 30; // keep in step with .timeline-row in style.css
const OVERSCAN = 10;

export function createTimeline(root, { onSelect, onError }) {
  const slider = byTestId(root, 'timeline-slider');
  const position = byTestId(root, 'timeline-position');
  const viewport = byTestId(root, 'timeline-list');
  const status = byTestId(root, 'timeline-status');
  const typeFilter = byTestId(root, 'type-filter');
  const actorFilter = byTestId(root, 'actor-filter');
  const spacer = h('div', { class: 'timeline-spacer' });
  const layer = h('div', { class: 'timeline-layer' });
  spacer.append(layer);
  viewport.append(spacer);

  let source = null; // { total, fetchPage }: the stream shown
  let rows = null;
  let selected = 0;
  let marked = null; // the version bisect named
  let generation = 0; // bumps whenever the rows are replaced, so late pages of old rows are dropped

  const render = perFrame(draw);

  function makeRows() {
    const mine = ++generation;
    const current = (fn) => (...args) => { if (mine === generation) fn(...args); };
    const filter = { types: typeFilter.value ? [typeFilter.value] : [], actor: actorFilter.value };
    const options = { fetchPage: source.fetchPage, onChange: current(render), onError: current(onError) };
    return filter.types.length || filter.actor ? filteredRows({ ...options, filter }) : allRows({ ...options, total: source.total });
  }

  function draw() {
    if (!rows) { layer.replaceChildren(); return; }
    const total = rows.count();
    sizeSpacer();
    const top = viewport.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(total - 1, Math.ceil((top + viewport.clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const nodes = [];
    for (let index = first; index <= last; index++) nodes.push(row(index, total));
    layer.replaceChildren(...nodes);
    rows.ensure(first, last);
    const active = layer.querySelector('[aria-selected="true"]');
    if (active) viewport.setAttribute('aria-activedescendant', active.id);
    else viewport.removeAttribute('aria-activedescendant');
    drawStatus();
  }

  function row(index, total) {
    const version = rows.versionAt(index);
    const event = rows.event(index);
    const isSelected = version === selected;
    const node = h('div', {
      class: `timeline-row${isSelected ? ' selected' : ''}${version != null && version === marked ? ' marked' : ''}`,
      role: 'option',
      id: version != null ? `timeline-v${version}` : `timeline-row-${index}`,
      'aria-selected': String(isSelected),
      'aria-posinset': index + 1,
      'aria-setsize': rows.complete() ? total : -1,
      'data-testid': 'timeline-row',
      'data-version': version,
    });
    node.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
    if (index === 0) {
      fill(node, h('span', { class: 'cell version' }, 'v0'), h('span', { class: 'cell type initial' }, 'initial state'));
    } else if (event) {
      fill(node,
        h('span', { class: 'cell version' }, `v${count(event.version)}`),
        h('span', { class: `cell type family-${family(event.type)}`, title: event.type }, event.type),
        h('span', { class: `cell actor actor-${event.actor}` }, event.actor),
        h('time', { class: 'cell time', datetime: event.timestamp, title: event.timestamp }, timeOfDay(event.timestamp)));
    } else if (version == null && index > rows.lastIndex()) {
      fill(node, h('span', { class: 'cell loading' }, 'Scanning for more matching events…'));
    } else {
      fill(node, h('span', { class: 'cell version' }, version != null ? `v${count(version)}` : '…'), h('span', { class: 'cell loading' }, 'loading…'));
    }
    return node;
  }

  function drawStatus() {
    let text = '';
    if (rows && source && !rows.filtered) text = plural(source.total, 'event');
    else if (rows && source) {
      const found = plural(rows.matched(), 'matching event');
      text = rows.complete()
        ? `${found} of ${count(source.total)}`
        : `${found} so far (scanned to v${count(rows.scannedTo() - 1)} of ${count(source.total)})`;
    }
    // A live region: rewrite it only when it says something new.
    if (status.textContent !== text) status.textContent = text;
  }

  function drawSlider() {
    slider.max = String(source ? source.total : 0);
    slider.value = String(selected);
    slider.disabled = !source;
    slider.setAttribute('aria-valuetext', source ? `version ${selected} of ${source.total}` : 'no stream');
    position.textContent = source ? `v${count(selected)} / ${count(source.total)}` : '';
  }

  /** The spacer gives the list its full scroll height; set before scrolling, so a far row can be reached at once. */
  function sizeSpacer() {
    spacer.style.height = `${(rows ? rows.count() : 0) * ROW_HEIGHT}px`;
  }

  function scrollToIndex(index) {
    sizeSpacer();
    const top = index * ROW_HEIGHT;
    const bottom = top + ROW_HEIGHT;
    if (top < viewport.scrollTop || bottom > viewport.scrollTop + viewport.clientHeight) {
      viewport.scrollTop = Math.max(0, top - viewport.clientHeight / 2 + ROW_HEIGHT / 2);
    }
  }

  /** Selects a version: slider, list and (unless `quiet`) the caller's `onSelect`. */
  function select(version, { quiet = false } = {}) {
    if (!source) return;
    selected = Math.max(0, Math.min(version, source.total));
    drawSlider();
    scrollToIndex(rows.indexOf(selected));
    render();
    if (!quiet) onSelect(selected);
  }

  /** Moves `delta` rows from the selected one (in a filtered list: to the neighbouring match). */
  async function step(delta) {
    if (!rows) return;
    const here = rows.indexOf(selected);
    // In a filtered list the selected version may lie between two matches, after row `here`.
    const between = rows.versionAt(here) !== selected;
    let target = Math.max(0, here + delta + (delta < 0 && between ? 1 : 0));
    if (rows.filtered && target > rows.lastIndex() && !rows.complete()) {
      await rows.loadMore().catch(() => {});
    }
    target = Math.min(target, rows.lastIndex());
    const version = rows.versionAt(target);
    if (version != null && version !== selected) select(version);
  }

  async function jumpToEnd() {
    if (!rows) return;
    if (rows.filtered && !rows.complete()) {
      status.textContent = 'Scanning to the end of the stream…';
      await rows.loadAll().catch(() => {});
    }
    select(rows.versionAt(rows.lastIndex()) ?? 0);
  }

  function pageRows() {
    return Math.max(1, Math.floor(viewport.clientHeight / ROW_HEIGHT) - 1);
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const actions = {
      ArrowLeft: () => step(-1), ArrowUp: () => step(-1),
      ArrowRight: () => step(1), ArrowDown: () => step(1),
      PageUp: () => step(-pageRows()), PageDown: () => step(pageRows()),
      Home: () => select(0), End: () => jumpToEnd(),
    };
    const action = actions[event.key];
    if (!action || !source) return;
    event.preventDefault();
    action();
  }

  slider.addEventListener('keydown', onKey);
  viewport.addEventListener('keydown', onKey);
  slider.addEventListener('input', () => select(Number(slider.value)));
  viewport.addEventListener('scroll', () => render(), { passive: true });
  viewport.addEventListener('click', (event) => {
    const target = event.target.closest('[data-version]');
    if (target) select(Number(target.dataset.version));
  });
  // When the list changes height (a bisect result above it, a resized window), keep the selection in view.
  new ResizeObserver(() => {
    if (rows) scrollToIndex(rows.indexOf(selected));
    render();
  }).observe(viewport);

  function refilter() {
    if (!source) return;
    rows = makeRows();
    viewport.scrollTop = 0;
    select(selected, { quiet: true });
  }
  typeFilter.addEventListener('change', refilter);
  actorFilter.addEventListener('change', refilter);

  return {
    /** Shows a stream: `fetchPage({fromVersion, limit, types, actor})` reads its events. */
    show({ total, fetchPage, version = total }) {
      source = { total, fetchPage };
      marked = null;
      rows = makeRows();
      viewport.scrollTop = 0;
      select(version, { quiet: true });
    },
    clear() {
      source = null;
      rows = null;
      generation++;
      selected = 0;
      drawSlider();
      render();
    },
    select,
    selected: () => selected,
    total: () => source?.total ?? 0,
    /** A new last event (live mode). Follows it when the last event was selected. */
    append(event) {
      if (!source || event.version !== source.total + 1) return false;
      const following = selected === source.total;
      source.total = event.version;
      rows.append(event);
      drawSlider();
      render();
      if (following) select(event.version);
      return true;
    },
    /** Flags the row bisect named. */
    mark(version) {
      marked = version;
      render();
    },
    /** The event types the filter offers. */
    setEventTypes(types) {
      const current = typeFilter.value;
      fill(typeFilter, h('option', { value: '' }, 'All types'), types.map((type) => h('option', { value: type }, type)));
      typeFilter.value = types.includes(current) ? current : '';
    },
    /** The timeline's keys, for a page that forwards them when nothing else has the focus. */
    handleKey: onKey,
  };
}
