/** "Find the first bad event": pick an invariant; the server bisects the stream. */
import { h, fill, byTestId } from './dom.js';
import { count, family } from './format.js';

/** `run(invariant)` bisects the stream on show; `onFound(result)` moves the timeline there. */
export function createBisect(root, { run, onFound }) {
  const select = byTestId(root, 'invariant-select');
  const button = byTestId(root, 'bisect-button');
  const result = byTestId(root, 'bisect-result');
  const hint = byTestId(root, 'invariant-summary');
  let summaries = new Map();

  function describe() {
    hint.textContent = summaries.get(select.value) ?? '';
  }

  button.addEventListener('click', async () => {
    const invariant = select.value;
    if (!invariant) return;
    button.disabled = true;
    result.dataset.state = 'running';
    fill(result, 'Bisecting…');
    try {
      const outcome = await run(invariant);
      if (outcome.found) {
        result.dataset.state = 'found';
        const event = outcome.event;
        fill(result,
          h('strong', null, 'First bad event: '),
          h('button', { type: 'button', class: 'link', onclick: () => onFound(outcome) }, `v${count(outcome.version)} (#${count(outcome.position)})`),
          ' ', h('span', { class: `type-name family-${family(event.type)}` }, event.type),
          h('span', { class: 'reason' }, outcome.reason),
          h('span', { class: 'muted' }, `found in ${count(outcome.reconstructions)} state reconstructions`));
        onFound(outcome);
      } else {
        result.dataset.state = 'clean';
        fill(result, h('strong', null, 'Nothing to find: '), `the stream’s final state keeps ${invariant === 'all' ? 'every invariant' : invariant}.`);
      }
    } catch (error) {
      result.dataset.state = 'error';
      fill(result, error.message);
    } finally {
      button.disabled = false;
    }
  });
  select.addEventListener('change', describe);

  return {
    setInvariants(invariants) {
      summaries = new Map(invariants.map((invariant) => [invariant.name, invariant.summary]));
      fill(select, invariants.map((invariant) => h('option', { value: invariant.name }, invariant.name)));
      button.disabled = !invariants.length;
      describe();
    },
    reset() {
      delete result.dataset.state;
      fill(result);
    },
  };
}
