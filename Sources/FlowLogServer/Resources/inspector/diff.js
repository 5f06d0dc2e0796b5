/** What the selected event changed: one line per path, as `flowlog replay` prints them. */
import { h, fill } from './dom.js';
import { compactJSON, plural } from './format.js';

const SIGNS = { added: '+', removed: '−', changed: '~' };
const NAMES = { added: 'added', removed: 'removed', changed: 'changed' };

/** `onReveal(path)` shows a path in the JSON tree. */
export function createDiffList(root, summary, { onReveal }) {
  return {
    show(changes, version) {
      summary.textContent = version === 0 ? '' : plural(changes.length, 'change');
      if (version === 0) {
        fill(root, h('li', { class: 'empty' }, 'The initial state: nothing has changed yet.'));
        return;
      }
      if (!changes.length) {
        fill(root, h('li', { class: 'empty' }, 'This event left the state as it was.'));
        return;
      }
      fill(root, changes.map((change) => h('li', { class: `change op-${change.op}`, 'data-testid': 'diff-item', 'data-op': change.op, 'data-path': change.path },
        h('button', {
          type: 'button',
          class: 'change-button',
          title: 'Show in the JSON tree',
          'aria-label': `${NAMES[change.op] ?? change.op} ${change.path}; show in the JSON tree`,
          onclick: () => onReveal(change.path),
        },
        h('span', { class: 'op', 'aria-hidden': 'true' }, SIGNS[change.op] ?? '?'),
        h('code', { class: 'path' }, change.path),
        values(change)))));
    },
  };
}

function values(change) {
  switch (change.op) {
    case 'added': return h('span', { class: 'values' }, h('code', { class: 'after' }, compactJSON(change.after)));
    case 'removed': return h('span', { class: 'values' }, h('code', { class: 'before' }, compactJSON(change.before)));
    default: return h('span', { class: 'values' },
      h('code', { class: 'before' }, compactJSON(change.before)), h('span', { class: 'arrow' }, ' → '),
      h('code', { class: 'after' }, compactJSON(change.after)));
  }
}
