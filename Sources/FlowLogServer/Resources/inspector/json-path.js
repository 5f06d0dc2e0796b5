/**
 * Paths into the state's JSON face, written the way FlowLog's StateDiff writes them (and so the
 * way `changes` name them): members joined with ".", array elements in brackets, cart items and
 * orders by their productId/orderId, other arrays by index: `cart.items[p1].quantity`,
 * `onboarding.stack[0]`.
 */

export function memberPath(parent, key) {
  return parent ? `${parent}.${key}` : key;
}

export function elementPath(parent, key) {
  return `${parent}[${key}]`;
}

/** The bracket keys of an array's elements: their ids where every element has one, else indices. */
export function elementKeys(array) {
  const ids = [];
  for (const element of array) {
    const id = element && typeof element === 'object' ? element.productId ?? element.orderId : undefined;
    if (typeof id !== 'string') return array.map((_, index) => String(index));
    ids.push(id);
  }
  return ids;
}

/** Every proper prefix of a path that is itself a path: `cart.items[p.1].quantity` → cart, cart.items, cart.items[p.1]. */
export function ancestors(path) {
  const result = [];
  let inBrackets = false;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (inBrackets) {
      if (c === ']') inBrackets = false;
    } else if (c === '.' || c === '[') {
      if (i > 0) result.push(path.slice(0, i));
      if (c === '[') inBrackets = true;
    }
  }
  return result;
}

/** Whether `path` is `prefix` or lies under it. */
export function isWithin(path, prefix) {
  return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
}

/** Calls `visit(path, key, value)` for every member and element under `value` (the root excluded). */
export function walk(value, visit, path = '') {
  if (Array.isArray(value)) {
    const keys = elementKeys(value);
    value.forEach((element, index) => {
      const child = elementPath(path, keys[index]);
      if (visit(child, `[${keys[index]}]`, element) !== false) walk(element, visit, child);
    });
  } else if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      const child = memberPath(path, key);
      if (visit(child, key, member) !== false) walk(member, visit, child);
    }
  }
}
