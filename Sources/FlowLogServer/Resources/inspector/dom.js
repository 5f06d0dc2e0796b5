/**
 * Small DOM helpers. Data only ever enters the page as text nodes, attribute values or
 * textContent: nothing here parses HTML.
 */

const PROPERTIES = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'textContent']);

/**
 * `h('li', {class: 'row', 'data-testid': 'x', onclick: fn}, 'text', child)`.
 * Strings and numbers become text nodes; null, undefined and false are skipped.
 */
export function h(tag, props = null, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value == null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
      else if (PROPERTIES.has(key)) node[key] = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces a node's children; strings become text. */
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** The element with this data-testid under `root` (the page's hooks double as its selectors). */
export function byTestId(root, id) {
  const node = root.querySelector(`[data-testid="${id}"]`);
  if (!node) throw new Error(`inspector: no element [data-testid="${id}"]`);
  return node;
}

/** Calls `fn` at most once per animation frame, with the latest arguments. */
export function perFrame(fn) {
  let pending = null;
  return (...args) => {
    if (pending) { pending.args = args; return; }
    pending = { args };
    requestAnimationFrame(() => {
      const { args: latest } = pending;
      pending = null;
      fn(...latest);
    });
  };
}

/** Calls `fn` once calls have paused for `ms` milliseconds. */
export function debounce(fn, ms) {
  let timer = 0;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
