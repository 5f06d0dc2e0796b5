/** The selected event's envelope: what happened, who did it, when, and its data. */
import { h, fill } from './dom.js';
import { count, dateTime, family } from './format.js';

const ONE_LINE = 90; // data this short stays on one line

export function createEventDetails(root) {
  return {
    show(event) {
      if (!event) {
        fill(root,
          h('h3', { class: 'event-title' }, h('span', { class: 'badge' }, 'v0'), 'Initial state'),
          h('p', { class: 'muted' }, 'No event yet: every stream starts here.'));
        return;
      }
      const data = JSON.stringify(event.data);
      fill(root,
        h('h3', { class: 'event-title' },
          h('span', { class: 'badge' }, `v${count(event.version)}`),
          h('span', { class: `type-name family-${family(event.type)}` }, event.type),
          h('span', { class: 'event-meta' },
            h('span', { class: `actor actor-${event.actor}` }, event.actor), ` · position #${count(event.position)} · schema ${event.schemaVersion}`)),
        h('dl', { class: 'facts' },
          h('dt', null, 'Time'), h('dd', null, h('time', { datetime: event.timestamp }, dateTime(event.timestamp))),
          h('dt', null, 'Event id'), h('dd', null, h('code', null, event.eventId)),
          event.causationId && [h('dt', null, 'Command id'), h('dd', null, h('code', null, event.causationId))],
          event.correlationId && [h('dt', null, 'Correlation'), h('dd', null, h('code', null, event.correlationId))],
          // The trace id a trace viewer searches for; the whole traceparent (with the span) on hover.
          event.traceparent && [h('dt', null, 'Trace id'),
            h('dd', null, h('code', { class: 'trace-id', title: event.traceparent }, event.traceparent.split('-')[1] || event.traceparent))],
          h('dt', null, 'Data'),
          h('dd', null, data.length <= ONE_LINE
            ? h('code', { class: 'event-data' }, data)
            : h('pre', { class: 'code event-data' }, JSON.stringify(event.data, null, 2)))));
    },
  };
}
