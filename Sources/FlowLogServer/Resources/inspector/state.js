/**
 * The state as a person reads it: the cart with money as money, the orders, and where the app
 * is in its onboarding flow. What the selected event changed is highlighted. Another domain's
 * state (a log served by another program, such as the to-do list's `tasklog`) is shown member by
 * member: lists as tables, values as values.
 */
import { h, fill } from './dom.js';
import { count, money, plural } from './format.js';
import { isWithin } from './json-path.js';

const RECENT_ORDERS = 10;
const STATUS = { open: 'Open', checkingOut: 'Checking out' };
const SCREENS = { welcome: 'Welcome', onboardingFirst: 'Onboarding 1', onboardingSecond: 'Onboarding 2', login: 'Log in', home: 'Home' };

export function createStatePanel(root) {
  return {
    /** `changes` are the selected event's ({path, op, …}). */
    show(state, changes) {
      const touched = (path) => changes.some((change) => isWithin(change.path, path));
      const mark = (path, base = '') => `${base}${touched(path) ? ' touched' : ''}`.trim() || null;
      if (!isShopState(state)) {
        fill(root, Object.entries(state).filter(([name]) => name !== 'stream' && name !== 'version')
          .map(([name, value]) => memberSection(name, value, mark)));
        return;
      }
      fill(root,
        cartSection(state.cart, mark),
        ordersSection(state.orders, mark),
        onboardingSection(state.onboarding, mark));
    },
  };
}

function cartSection(cart, mark) {
  const lines = cart.items.length
    ? h('table', { class: 'lines' },
      h('caption', { class: 'visually-hidden' }, 'Cart lines'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Product'), h('th', { scope: 'col', class: 'num' }, 'Qty'),
        h('th', { scope: 'col', class: 'num' }, 'Unit'), h('th', { scope: 'col', class: 'num' }, 'Amount'),
        h('th', { scope: 'col' }, 'Discount'), h('th', { scope: 'col', class: 'num' }, 'Line total'))),
      h('tbody', null, cart.items.map((item) => h('tr', { class: mark(`cart.items[${item.productId}]`), 'data-testid': 'state-line', 'data-product': item.productId },
        h('td', null, h('span', { class: 'product-name' }, item.name || item.productId), h('code', { class: 'product-id muted' }, item.productId)),
        h('td', { class: 'num' }, count(item.quantity)),
        h('td', { class: 'num' }, money(item.unitPrice)),
        h('td', { class: 'num' }, money(item.regularAmount)),
        h('td', null, item.discount ? discountText(item.discount) : h('span', { class: 'muted' }, '—')),
        h('td', { class: `num${item.discountedAmount < 0 ? ' negative' : ''}` }, money(item.discountedAmount))))))
    : h('p', { class: 'muted' }, 'The cart is empty.');
  return h('section', { class: 'state-section', 'aria-labelledby': 'state-cart-title' },
    h('h4', { id: 'state-cart-title' }, 'Cart ',
      h('span', { class: `pill status-${cart.status}${mark('cart.status') ? ' touched' : ''}`, 'data-testid': 'state-cart-status', 'data-status': cart.status }, STATUS[cart.status] ?? cart.status)),
    lines,
    h('dl', { class: 'totals' },
      h('div', { class: mark('cart.subtotal') }, h('dt', null, 'Subtotal'), h('dd', { class: amountClass(cart.subtotal), 'data-testid': 'state-subtotal' }, money(cart.subtotal))),
      h('div', { class: mark('cart.cartDiscount') }, h('dt', null, 'Cart discount'),
        h('dd', { 'data-testid': 'state-cart-discount' }, cart.cartDiscount ? discountText(cart.cartDiscount) : h('span', { class: 'muted' }, 'none'))),
      h('div', { class: mark('cart.total', 'grand') }, h('dt', null, 'Total'), h('dd', { class: amountClass(cart.total), 'data-testid': 'state-total' }, money(cart.total)))));
}

function ordersSection(orders, mark) {
  const recent = orders.slice(-RECENT_ORDERS).reverse();
  return h('section', { class: 'state-section', 'aria-labelledby': 'state-orders-title' },
    h('h4', { id: 'state-orders-title' }, 'Orders ', h('span', { class: 'muted' }, `(${count(orders.length)})`)),
    orders.length
      ? h('ol', { class: 'orders', reversed: true, start: orders.length },
        recent.map((order) => h('li', { class: mark(`orders[${order.orderId}]`), 'data-testid': 'state-order', 'data-order': order.orderId },
          h('code', null, order.orderId), ' · ', plural(order.itemCount, 'item'), ' · ',
          h('span', { class: amountClass(order.total) }, money(order.total)))))
      : h('p', { class: 'muted' }, 'No orders yet.'),
    orders.length > RECENT_ORDERS ? h('p', { class: 'muted' }, `and ${count(orders.length - RECENT_ORDERS)} earlier (see the JSON below)`) : null);
}

function onboardingSection(onboarding, mark) {
  const stack = onboarding.stack;
  return h('section', { class: 'state-section', 'aria-labelledby': 'state-onboarding-title' },
    h('h4', { id: 'state-onboarding-title' }, 'Onboarding'),
    h('dl', { class: 'facts' },
      h('dt', null, 'Screen stack'),
      h('dd', { class: mark('onboarding.stack') },
        stack.length
          ? h('ol', { class: 'stack', 'aria-label': 'Navigation stack, bottom to top', 'data-testid': 'state-stack' },
            stack.map((screen, index) => h('li', { class: index === stack.length - 1 ? 'top' : null }, SCREENS[screen] ?? screen)))
          : h('span', { class: 'muted' }, onboarding.launched ? 'empty' : 'not launched')),
      h('dt', null, 'Modal'),
      h('dd', { class: mark('onboarding.modal'), 'data-testid': 'state-modal' }, onboarding.modal ? 'shown' : h('span', { class: 'muted' }, 'none')),
      h('dt', null, 'Tab'),
      h('dd', { class: mark('onboarding.tab'), 'data-testid': 'state-tab' }, String(onboarding.tab)),
      h('dt', null, 'Launched'),
      h('dd', { class: mark('onboarding.launched') }, onboarding.launched ? 'yes' : 'no'),
      h('dt', null, 'Onboarded'),
      h('dd', { class: mark('onboarding.hasOnboarded') }, onboarding.hasOnboarded ? 'yes' : 'no')));
}

function isShopState(state) {
  return state.cart !== undefined && state.orders !== undefined && state.onboarding !== undefined;
}

/** One member of any domain's state: a list of objects as a table, anything else as its value. */
function memberSection(name, value, mark) {
  const id = `state-member-${name}`;
  let body;
  if (Array.isArray(value) && value.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) {
    const columns = [...new Set(value.flatMap((row) => Object.keys(row)))];
    body = value.length
      ? h('table', { class: 'lines' },
        h('thead', null, h('tr', null, columns.map((column) => h('th', { scope: 'col' }, column)))),
        h('tbody', null, value.map((row) => h('tr', { 'data-testid': 'state-row' },
          columns.map((column) => h('td', null, plainValue(row[column])))))))
      : h('p', { class: 'muted' }, 'none');
  } else {
    body = h('p', { 'data-testid': 'state-value' }, plainValue(value));
  }
  return h('section', { class: mark(name, 'state-section'), 'aria-labelledby': id, 'data-testid': 'state-member', 'data-member': name },
    h('h4', { id }, name), body);
}

function plainValue(value) {
  if (value === undefined || value === null) return h('span', { class: 'muted' }, '—');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function discountText(discount) {
  return h('span', { class: 'discount' }, `−${discount.percent}% `, h('code', null, discount.discountId));
}

function amountClass(cents) {
  return cents < 0 ? 'num negative' : 'num';
}
