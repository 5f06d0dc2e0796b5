/**
 * The inspector's composition root: builds the components, and keeps the one piece of state
 * they share (which log, which stream, which version) in `view`, changed only here.
 *
 * The address bar mirrors it (#stream=S&v=N, plus &session=ID for a dropped file), so a link
 * reopens the same step.
 */
import { createClient } from './api.js';
import { byTestId, debounce } from './dom.js';
import { count, plural } from './format.js';
import { createStreamList } from './streams.js';
import { createTimeline } from './timeline.js';
import { createEventDetails } from './details.js';
import { createDiffList } from './diff.js';
import { createStatePanel } from './state.js';
import { createJsonTree } from './json-tree.js';
import { createBisect } from './bisect.js';
import { createLive } from './live.js';
import { createDropZone, saveBlob } from './files.js';

const TOKEN_KEY = 'flowlog.inspector.token';
const page = (id) => byTestId(document, id);

const client = createClient({ token: () => sessionStorage.getItem(TOKEN_KEY) });

const view = {
  log: client.log(''), // the server's log, or a session's
  session: null, // {session, streams, events, name} for a dropped file
  stream: null, // the summary of the stream on show: {stream, version, firstPosition, lastPosition, lastTimestamp}
};

// ---------------------------------------------------------------------------- components

const streams = createStreamList(page('streams-panel'), {
  onSelect: (summary) => openStream(summary),
  onError: report,
});

const timeline = createTimeline(page('timeline'), {
  onSelect: (version) => showVersion(version),
  onError: report,
});

const details = createEventDetails(page('event-details'));
const tree = createJsonTree(page('json-tree'), { searchBox: page('json-search'), searchCount: page('json-search-count') });
const diff = createDiffList(page('diff-list'), page('diff-summary'), { onReveal: (path) => tree.reveal(path) });
const statePanel = createStatePanel(page('state-panel'));

const bisect = createBisect(page('bisect'), {
  run: (invariant) => view.log.bisect(view.stream.stream, invariant),
  onFound: (result) => {
    timeline.mark(result.version);
    timeline.select(result.version);
  },
});

const live = createLive(page('stream-header'), {
  address: () => (view.log.isSession || !view.stream
    ? null
    : client.subscribeURL({ stream: view.stream.stream, from: view.stream.lastPosition + 1 })),
  onEvent: onLiveEvent,
});

createDropZone(page('file-drop-zone'), { onFile: openFile });

page('download-button').addEventListener('click', downloadStream);
page('close-session').addEventListener('click', () => closeSession());
page('error-dismiss').addEventListener('click', () => { page('error-banner').hidden = true; });
page('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, page('token-input').value.trim());
  page('token-form').hidden = true;
  start();
});

window.addEventListener('hashchange', () => followRoute());

// ←/→/Home/End work anywhere that is not a field of its own.
document.addEventListener('keydown', (event) => {
  const target = event.target;
  if (target !== document.body && !page('inspect').contains(target)) return;
  if (target.closest?.('input, select, textarea, button, summary')) return;
  if (view.stream) timeline.handleKey(event);
});

// ---------------------------------------------------------------------------- flows

async function start() {
  showSource();
  client.invariants().then(bisect.setInvariants, report);
  client.eventTypes().then(timeline.setEventTypes, () => {});
  await followRoute({ relist: true });
}

/** Shows what the address names: a session, a stream, a version. */
async function followRoute({ relist = false } = {}) {
  const route = readRoute();
  if ((route.session ?? null) !== (view.session?.session ?? null)) {
    const base = route.session ? `/sessions/${encodeURIComponent(route.session)}` : '';
    useLog(client.log(base), route.session ? { session: route.session, name: null } : null);
    closeStream();
    relist = true;
  }
  try {
    if (relist) await streams.show(view.log.streams);
    if (!route.stream) {
      if (view.stream) closeStream();
    } else if (route.stream === view.stream?.stream) {
      if (route.version != null) timeline.select(route.version);
    } else {
      await openStream(await view.log.summary(route.stream), route.version);
    }
  } catch (error) {
    if (route.session && error.code === 'sessionNotFound') {
      report(new Error('That file’s session is gone (sessions last an hour). Drop the file again to inspect it.'));
      await closeSession({ remote: false });
      return;
    }
    report(error);
  }
}

async function openStream(summary, version = summary.version) {
  view.stream = summary;
  page('empty-state').hidden = true;
  page('stream-view').hidden = false;
  page('stream-title').textContent = summary.stream;
  page('inspect').scrollTop = 0;
  showStreamMeta();
  streams.mark(summary.stream);
  bisect.reset();
  timeline.show({
    total: summary.version,
    fetchPage: (options) => view.log.events(summary.stream, options),
    version: Math.min(version, summary.version),
  });
  live.restart();
  showVersion(timeline.selected());
}

function closeStream() {
  view.stream = null;
  live.stop();
  timeline.clear();
  page('stream-view').hidden = true;
  page('empty-state').hidden = false;
  writeRoute();
}

function showStreamMeta() {
  const { version, firstPosition, lastPosition } = view.stream;
  page('stream-meta').textContent = `${plural(version, 'event')} · positions #${count(firstPosition)} to #${count(lastPosition)}`;
}

let versionRequest = null;

function showVersion(version) {
  writeRoute();
  loadVersion(view.stream.stream, version);
}

// Holding an arrow key asks for many versions; only the last one is fetched, and a newer request cancels an older one.
const loadVersion = debounce(async (stream, version) => {
  versionRequest?.abort();
  const request = new AbortController();
  versionRequest = request;
  const inspect = page('inspect');
  const problem = page('inspect-error');
  inspect.setAttribute('aria-busy', 'true');
  try {
    const step = await view.log.version(stream, version, request.signal);
    problem.hidden = true;
    details.show(step.event);
    diff.show(step.changes, version);
    statePanel.show(step.state, step.changes);
    tree.show(step.state, step.changes);
  } catch (error) {
    if (error.name === 'AbortError') return;
    problem.textContent = error.message;
    problem.hidden = false;
  } finally {
    if (versionRequest === request) inspect.removeAttribute('aria-busy');
  }
}, 40);

async function openFile(file) {
  const status = page('file-status');
  status.textContent = `Opening ${file.name}…`;
  try {
    const created = await client.createSession(file);
    status.textContent = '';
    useLog(client.log(`/sessions/${encodeURIComponent(created.session)}`), { ...created, name: file.name });
    closeStream();
    await streams.show(view.log.streams);
    const first = (await view.log.streams({ limit: 1 })).streams[0];
    if (first) await openStream(first);
  } catch (error) {
    status.textContent = `${file.name}: ${error.message}`;
    report(error, { quiet: true });
  }
}

async function closeSession({ remote = true } = {}) {
  const id = view.session?.session;
  useLog(client.log(''), null);
  closeStream();
  if (remote && id) client.deleteSession(id).catch(() => {});
  await streams.show(view.log.streams).catch(report);
}

function useLog(log, session) {
  view.log = log;
  view.session = session;
  live.setAvailable(!log.isSession);
  showSource();
}

async function showSource() {
  const label = page('source-label');
  page('close-session').hidden = !view.session;
  if (view.session) {
    const { name, streams: streamCount, events } = view.session;
    label.textContent = name
      ? `File ${name} · ${plural(streamCount, 'stream')} · ${plural(events, 'event')}`
      : 'A dropped file';
    return;
  }
  try {
    const health = await client.health();
    if (!view.session) label.textContent = `Server log · ${plural(health.headPosition, 'event')}`;
  } catch (error) {
    label.textContent = 'Server unreachable';
    report(error);
  }
}

async function downloadStream() {
  const button = page('download-button');
  const name = view.stream.stream;
  button.disabled = true;
  try {
    saveBlob(await view.log.download(name), `${name}.ndjson`);
  } catch (error) {
    report(error);
  } finally {
    button.disabled = false;
  }
}

async function onLiveEvent(event) {
  if (!view.stream || event.stream !== view.stream.stream || event.version <= timeline.total()) return;
  if (timeline.append(event)) {
    view.stream = { ...view.stream, version: event.version, lastPosition: event.position, lastTimestamp: event.timestamp };
    showStreamMeta();
    return;
  }
  // Events went missing (a gap in versions): read the stream again, keeping the selected version.
  try {
    const summary = await view.log.summary(view.stream.stream);
    await openStream(summary, timeline.selected());
  } catch (error) {
    report(error);
  }
}

/** Shows what went wrong; a 401 asks for a token instead. */
function report(error, { quiet = false } = {}) {
  if (error?.name === 'AbortError') return;
  if (error?.status === 401) {
    page('token-form').hidden = false;
    page('token-input').focus();
    return;
  }
  if (quiet) return;
  page('error-message').textContent = error?.message ?? String(error);
  page('error-banner').hidden = false;
}

// ---------------------------------------------------------------------------- the address

function readRoute() {
  const params = new URLSearchParams(location.hash.slice(1));
  const version = Number.parseInt(params.get('v') ?? '', 10);
  return {
    stream: params.get('stream'),
    version: Number.isFinite(version) && version >= 0 ? version : undefined,
    session: params.get('session'),
  };
}

function writeRoute() {
  const params = new URLSearchParams();
  if (view.session) params.set('session', view.session.session);
  if (view.stream) {
    params.set('stream', view.stream.stream);
    params.set('v', String(timeline.selected()));
  }
  const hash = params.toString();
  history.replaceState(null, '', hash ? `#${hash}` : location.pathname + location.search);
}

start();
