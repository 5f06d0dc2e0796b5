/**
 * The state as a collapsible JSON tree, with what the selected event changed highlighted and a
 * search over keys and values. Children are built only when their node is open, and long arrays
 * (a stream's thousands of orders) a chunk at a time, so a state of megabytes stays cheap.
 *
 * Node paths are FlowLog's change paths (json-path.js), so `changes` map straight onto nodes.
 */
import { h, fill } from './dom.js';
import { ancestors, elementKeys, elementPath, memberPath, walk } from './json-path.js';
import { count } from './format.js';

const CHUNK = 100;
const MAX_MATCHES = 1000;
const EXPANDED_MATCHES = 200;

export function createJsonTree(root, { searchBox, searchCount }) {
  let value = null;
  let changes = new Map(); // path → op
  let changedAncestors = new Set();
  let matches = new Set();
  let matchOrder = [];
  let matchCursor = -1;
  const expanded = new Set(['cart', 'cart.items', 'onboarding']);
  const shown = new Map(); // array path → how many elements are built
  const nodes = new Map(); // path → its <li>, for the current render

  function render() {
    nodes.clear();
    if (value == null) { fill(root); return; }
    fill(root, h('ul', { class: 'jt-root' }, members(value, '')));
  }

  function members(container, path) {
    if (Array.isArray(container)) {
      const keys = elementKeys(container);
      const limit = shown.get(path) ?? CHUNK;
      const items = container.slice(0, limit).map((element, index) => node(`[${keys[index]}]`, element, elementPath(path, keys[index])));
      if (container.length > limit) {
        const more = Math.min(CHUNK, container.length - limit);
        items.push(h('li', { class: 'jt-more' }, h('button', {
          type: 'button',
          onclick: () => { shown.set(path, limit + more); render(); },
        }, `Show ${count(more)} more (${count(limit)} of ${count(container.length)} shown)`)));
      }
      return items;
    }
    return Object.entries(container).map(([key, member]) => node(key, member, memberPath(path, key)));
  }

  function node(label, member, path) {
    const op = changes.get(path);
    const classes = ['jt-node'];
    if (op) classes.push(`jt-${op}`);
    if (changedAncestors.has(path)) classes.push('jt-contains-change');
    if (matches.has(path)) classes.push('jt-match');
    const item = h('li', { class: classes.join(' '), 'data-testid': 'json-node', 'data-path': path, 'data-change': op, 'data-match': matches.has(path) || null });
    nodes.set(path, item);
    const key = h('span', { class: 'jt-key' }, label);
    if (member !== null && typeof member === 'object') {
      const open = expanded.has(path);
      const size = Array.isArray(member) ? member.length : Object.keys(member).length;
      const toggle = h('button', {
        type: 'button',
        class: 'jt-toggle',
        'aria-expanded': String(open),
        'aria-label': `${open ? 'Collapse' : 'Expand'} ${path}`,
        onclick: () => {
          if (expanded.has(path)) expanded.delete(path); else expanded.add(path);
          render();
          nodes.get(path)?.querySelector('.jt-toggle')?.focus();
        },
      });
      const summary = Array.isArray(member) ? `[ ${count(size)} ${size === 1 ? 'item' : 'items'} ]` : `{ ${count(size)} ${size === 1 ? 'key' : 'keys'} }`;
      item.append(h('div', { class: 'jt-line' }, toggle, key, h('span', { class: 'jt-summary' }, summary)));
      if (open && size) item.append(h('ul', { class: 'jt-children' }, members(member, path)));
    } else {
      item.append(h('div', { class: 'jt-line' }, h('span', { class: 'jt-spacer' }), key, h('span', { class: 'jt-punct' }, ': '), scalar(member)));
    }
    return item;
  }

  /** Opens every node above `path`, and enough of each array on the way to show it. */
  function open(path) {
    const chain = [...ancestors(path), path];
    let container = value;
    let parent = '';
    for (const step of chain) {
      if (container === null || typeof container !== 'object') return;
      if (Array.isArray(container)) {
        const index = elementKeys(container).findIndex((key) => elementPath(parent, key) === step);
        if (index < 0) return;
        if (index >= (shown.get(parent) ?? CHUNK)) shown.set(parent, Math.ceil((index + 1) / CHUNK) * CHUNK);
        container = container[index];
      } else {
        container = container[parent ? step.slice(parent.length + 1) : step];
      }
      if (step !== path) expanded.add(step);
      parent = step;
    }
  }

  function focusNode(path) {
    const item = nodes.get(path);
    if (!item) return false;
    item.classList.add('jt-flash');
    setTimeout(() => item.classList.remove('jt-flash'), 1200);
    item.scrollIntoView({ block: 'center' });
    return true;
  }

  function search(text) {
    const needle = text.trim().toLowerCase();
    matches = new Set();
    matchOrder = [];
    matchCursor = -1;
    if (needle && value != null) {
      walk(value, (path, key, member) => {
        if (matchOrder.length >= MAX_MATCHES) return false;
        const scalarText = member === null || typeof member !== 'object' ? String(member) : '';
        if (key.toLowerCase().includes(needle) || scalarText.toLowerCase().includes(needle)) {
          matches.add(path);
          matchOrder.push(path);
        }
        return true;
      });
      matchOrder.slice(0, EXPANDED_MATCHES).forEach(open);
    }
    searchCount.textContent = !needle ? '' : matchOrder.length
      ? `${matchOrder.length >= MAX_MATCHES ? `${count(MAX_MATCHES)}+` : count(matchOrder.length)} ${matchOrder.length === 1 ? 'match' : 'matches'}`
      : 'no match';
    render();
  }

  searchBox.addEventListener('input', () => search(searchBox.value));
  searchBox.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      searchBox.value = '';
      search('');
    } else if (event.key === 'Enter' && matchOrder.length) {
      event.preventDefault();
      matchCursor = (matchCursor + (event.shiftKey ? matchOrder.length - 1 : 1)) % matchOrder.length;
      const path = matchOrder[matchCursor];
      open(path);
      render();
      focusNode(path);
    }
  });

  return {
    /** Shows a state; `changeList` holds the selected event's changes. */
    show(state, changeList) {
      value = state;
      changes = new Map(changeList.map((change) => [change.path, change.op]));
      changedAncestors = new Set();
      for (const change of changeList) {
        for (const ancestor of ancestors(change.path)) changedAncestors.add(ancestor);
        // A removal has no node of its own: its parent carries the mark.
      }
      if (Array.isArray(state.orders) && state.orders.length <= 20) expanded.add('orders');
      for (const ancestor of changedAncestors) expanded.add(ancestor);
      if (searchBox.value.trim()) search(searchBox.value);
      else render();
    },
    /** Opens the tree down to `path` and scrolls to it; a removed path shows its parent. */
    reveal(path) {
      open(path);
      render();
      if (!focusNode(path)) focusNode(ancestors(path).at(-1));
    },
  };
}

function scalar(member) {
  if (member === null) return h('span', { class: 'jt-value jt-null' }, 'null');
  switch (typeof member) {
    case 'string': return h('span', { class: 'jt-value jt-string' }, JSON.stringify(member));
    case 'number': return h('span', { class: 'jt-value jt-number' }, String(member));
    case 'boolean': return h('span', { class: 'jt-value jt-boolean' }, String(member));
    default: return h('span', { class: 'jt-value' }, String(member));
  }
}
