/**
 * The rows of a timeline, fetched page by page so that a stream of any length costs only the
 * pages on screen. Row 0 is the initial state (version 0); the other rows are events.
 *
 * Both kinds of rows answer the same questions:
 *   count()            rows there are (a filtered list adds one "loading" row until it is complete)
 *   event(index)       the envelope of a row, undefined while its page is loading, null for row 0
 *   versionAt(index)   the version a row shows, undefined while unknown
 *   indexOf(version)   the row of a version (filtered: of the last matching event at or before it)
 *   ensure(first, last) fetch what rows first…last need; `onChange` runs when something arrived
 *   append(event)      a new event at the end of the stream (live mode)
 */

export const PAGE_SIZE = 200;
const CACHED_PAGES = 64;
const FILTER_PAGE_SIZE = 500;

/** Every event of a stream of `total` events: row i is version i. */
export function allRows({ total, fetchPage, onChange, onError }) {
  const pages = new Map(); // page number → events, least recently used first
  const loading = new Set();

  function page(number) {
    const events = pages.get(number);
    if (events) { pages.delete(number); pages.set(number, events); }
    return events;
  }

  async function load(number) {
    loading.add(number);
    try {
      const first = number * PAGE_SIZE + 1;
      const last = Math.min(total, first + PAGE_SIZE - 1);
      const events = [];
      // A server may answer short pages; follow nextVersion until the page is whole.
      for (let from = first; from != null && from <= last;) {
        const answer = await fetchPage({ fromVersion: from, limit: last - from + 1 });
        events.push(...answer.events.filter((event) => event.version <= last));
        from = answer.events.length ? answer.nextVersion : null;
      }
      pages.set(number, events);
      while (pages.size > CACHED_PAGES) pages.delete(pages.keys().next().value);
      onChange();
    } catch (error) {
      onError(error);
    } finally {
      loading.delete(number);
    }
  }

  return {
    filtered: false,
    count: () => total + 1,
    complete: () => true,
    event(index) {
      if (index === 0) return null;
      const events = page(Math.floor((index - 1) / PAGE_SIZE));
      return events?.[(index - 1) % PAGE_SIZE];
    },
    versionAt: (index) => (index >= 0 && index <= total ? index : undefined),
    indexOf: (version) => Math.max(0, Math.min(version, total)),
    lastIndex: () => total,
    ensure(first, last) {
      const from = Math.floor((Math.max(first, 1) - 1) / PAGE_SIZE);
      const to = Math.floor((Math.max(Math.min(last, total), 1) - 1) / PAGE_SIZE);
      if (total === 0) return;
      for (let number = from; number <= to; number++) {
        if (!pages.has(number) && !loading.has(number)) load(number);
      }
    },
    append(event) {
      total = event.version;
      const number = Math.floor((event.version - 1) / PAGE_SIZE);
      const events = pages.get(number);
      if (events && events.length === (event.version - 1) % PAGE_SIZE) events.push(event);
    },
  };
}

/** Only the events that match `filter` ({types, actor}), found by scanning the stream forward. */
export function filteredRows({ filter, fetchPage, onChange, onError }) {
  const events = [];
  let next = 1; // the version to scan from, null once the stream's end was reached
  let loading = null;
  const matches = (event) =>
    (!filter.types.length || filter.types.includes(event.type)) && (!filter.actor || event.actor === filter.actor);

  function loadMore() {
    if (loading || next == null) return loading ?? Promise.resolve();
    loading = (async () => {
      try {
        const answer = await fetchPage({ fromVersion: next, limit: FILTER_PAGE_SIZE, types: filter.types, actor: filter.actor || undefined });
        events.push(...answer.events);
        next = answer.nextVersion;
        onChange();
      } catch (error) {
        onError(error);
        throw error;
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  /** The number of matching events at or before `version`. */
  function countThrough(version) {
    let low = 0;
    let high = events.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (events[middle].version <= version) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  return {
    filtered: true,
    count: () => 1 + events.length + (next == null ? 0 : 1),
    complete: () => next == null,
    /** How far the scan got, for the status line. */
    scannedTo: () => next,
    matched: () => events.length,
    event: (index) => (index === 0 ? null : events[index - 1]),
    versionAt: (index) => (index === 0 ? 0 : events[index - 1]?.version),
    indexOf: (version) => countThrough(version),
    lastIndex: () => events.length,
    ensure(first, last) {
      if (last > events.length) loadMore().catch(() => {});
    },
    /** Scans to the end of the stream (for End). */
    async loadAll() {
      while (next != null) await loadMore();
    },
    loadMore,
    append(event) {
      if (next == null && matches(event)) events.push(event);
    },
  };
}
