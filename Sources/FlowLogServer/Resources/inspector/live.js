/** Live mode: new events of the stream on show appear as they commit (server-sent events). */
import { byTestId } from './dom.js';

/** `address()` gives the subscription URL, or null when live mode cannot apply; `onEvent(envelope)`. */
export function createLive(root, { address, onEvent }) {
  const toggle = byTestId(root, 'live-toggle');
  const status = byTestId(root, 'live-status');
  let source = null;

  function stop() {
    source?.close();
    source = null;
    status.textContent = '';
    delete status.dataset.state;
  }

  function start() {
    stop();
    const url = address();
    if (!url) return;
    source = new EventSource(url);
    setState('connecting', 'Connecting…');
    source.addEventListener('open', () => setState('live', 'Live'));
    source.addEventListener('error', () => {
      // EventSource reconnects by itself, resuming after the last id it saw (Last-Event-ID).
      if (source?.readyState === EventSource.CLOSED) setState('error', 'Disconnected');
      else setState('connecting', 'Reconnecting…');
    });
    source.addEventListener('event', (message) => {
      try {
        onEvent(JSON.parse(message.data));
      } catch {
        setState('error', 'The server sent an event that is not JSON');
      }
    });
  }

  function setState(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  toggle.addEventListener('change', () => (toggle.checked ? start() : stop()));

  return {
    /** Follows the stream now on show, if live mode is on. */
    restart() {
      if (toggle.checked) start(); else stop();
    },
    /** Live mode only follows the server's log, not a dropped file. */
    setAvailable(available) {
      toggle.disabled = !available;
      toggle.title = available ? 'Show new events as they are committed' : 'Live mode follows the server’s log, not a file';
      if (!available) {
        toggle.checked = false;
        stop();
      }
    },
    stop,
  };
}
