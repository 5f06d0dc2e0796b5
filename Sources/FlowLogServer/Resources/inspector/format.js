/** How values are shown: money, times, counts. Pure functions. */

/** Integer cents as money, the CLI's way with grouping: 123456 → "1,234.56", -2250 → "-22.50". */
export function money(cents) {
  const sign = cents < 0 ? '-' : '';
  const magnitude = Math.abs(cents);
  const whole = Math.trunc(magnitude / 100);
  const fraction = String(magnitude % 100).padStart(2, '0');
  return `${sign}${count(whole)}.${fraction}`;
}

export function count(n) {
  return n.toLocaleString('en-US');
}

/** "1 event", "2 events". */
export function plural(n, word, words = `${word}s`) {
  return `${count(n)} ${n === 1 ? word : words}`;
}

/** The time of day of an RFC 3339 UTC timestamp, to the millisecond: "14:07:25.278". */
export function timeOfDay(timestamp) {
  const match = /T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,3}))?/.exec(timestamp);
  return match ? `${match[1]}.${(match[2] ?? '').padEnd(3, '0')}` : timestamp;
}

/** "2026-11-21 14:07:25.278447 UTC" from "2026-11-21T14:07:25.278447Z". */
export function dateTime(timestamp) {
  return timestamp.replace('T', ' ').replace(/Z$/, ' UTC');
}

/** JSON on one line, cut to `max` characters. */
export function compactJSON(value, max = 120) {
  const text = value === undefined ? '' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "cart.productAdded" → "cart": the family the type belongs to, for colour. */
export function family(type) {
  return type.split('.')[0];
}
