/**
 * The FlowLog HTTP API (docs/openapi.json), and nothing else the page talks to.
 *
 * URLs are relative to the API's root, which is the folder above the inspector's own files
 * (`…/inspector/api.js` → `…/`), so the page works on any host, port or path prefix.
 * A log is addressed by a `base`: "" for the server's log, "/sessions/ID" for a dropped file.
 */

export class ApiError extends Error {
  /** `status` 0 and code `network` when the server could not be reached. */
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

const DEFAULT_ROOT = new URL('../', import.meta.url);
const NDJSON = 'application/x-ndjson';

/** `token()` returns the bearer token to send, or null. */
export function createClient({ root = DEFAULT_ROOT, token = () => null } = {}) {
  function url(path, params = {}) {
    const result = new URL(path.replace(/^\//, ''), root);
    for (const [name, value] of Object.entries(params)) {
      for (const item of [].concat(value ?? [])) {
        if (item !== '' && item != null) result.searchParams.append(name, String(item));
      }
    }
    return result;
  }

  async function request(path, { params, method = 'GET', body, contentType, accept = 'application/json', signal } = {}) {
    const headers = { Accept: accept };
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (contentType) headers['Content-Type'] = contentType;
    let response;
    try {
      response = await fetch(url(path, params), { method, headers, body, signal });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      throw new ApiError(0, 'network', 'Cannot reach the FlowLog server; check that `flowlog serve` is running, then reload.');
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  const json = async (path, options) => (await request(path, options)).json();

  /** The read routes of one log. */
  function log(base) {
    const stream = (name) => `${base}/streams/${encodeURIComponent(name)}`;
    return {
      base,
      isSession: base !== '',
      /** A page of streams: `{streams, next}`. */
      streams: ({ q, after, limit } = {}, signal) => json(`${base}/streams`, { params: { q, after, limit }, signal }),
      /** One stream's summary (`version`, `lastPosition`, …); 404 `streamNotFound` when it has none. */
      async summary(name) {
        // Names sort in byte order, so a stream is the first of the names it prefixes.
        const page = await json(`${base}/streams`, { params: { prefix: name, limit: 1 } });
        const found = page.streams[0];
        if (!found || found.stream !== name) throw new ApiError(404, 'streamNotFound', `There is no stream ${name} in this log.`);
        return found;
      },
      /** `{events, nextVersion}` from `fromVersion` on, optionally only some types or one actor. */
      events: (name, { fromVersion, limit, types, actor } = {}, signal) =>
        json(`${stream(name)}/events`, { params: { fromVersion, limit, type: types, actor }, signal }),
      /** `{event, state, changes}` for one version (0: the initial state). */
      version: (name, version, signal) => json(`${stream(name)}/versions/${version}`, { signal }),
      bisect: (name, invariant, signal) => json(`${stream(name)}/bisect`, { params: { invariant }, signal }),
      /** The stream's events as an NDJSON Blob, for a bug report. */
      async download(name) {
        if (base === '') {
          const response = await request('/events', { params: { stream: name }, accept: NDJSON });
          return response.blob();
        }
        // A session has no export route: page through its events and write the same lines.
        const lines = [];
        for (let from = 1; from != null;) {
          const page = await json(`${stream(name)}/events`, { params: { fromVersion: from, limit: 1000 } });
          for (const event of page.events) lines.push(`${JSON.stringify(event)}\n`);
          from = page.nextVersion;
        }
        return new Blob(lines, { type: NDJSON });
      },
    };
  }

  return {
    log,
    health: () => json('/health'),
    invariants: async () => (await json('/invariants')).invariants,
    /** The event type names, from the API's own description (so a new kind needs no change here). */
    async eventTypes() {
      const document = await json('/openapi.json');
      return document?.components?.schemas?.EventType?.enum ?? [];
    },
    /** Opens an NDJSON export as a scratch log: `{session, streams, events}`. */
    createSession: (file) => json('/sessions', { method: 'POST', body: file, contentType: NDJSON }),
    deleteSession: (id) => request(`/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    /** The server-sent-events address for one stream from `from` on. EventSource sends no headers, hence access_token. */
    subscribeURL: ({ stream, from }) => url('/events/subscribe', { stream, from, access_token: token() }).href,
  };
}

async function errorOf(response) {
  let code = `http${response.status}`;
  let message = `The server answered ${response.status} ${response.statusText}.`.replace(' .', '.');
  try {
    const body = await response.json();
    if (body?.error && typeof body.error.message === 'string') {
      code = body.error.code;
      message = body.error.message;
    }
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(response.status, code, message);
}
