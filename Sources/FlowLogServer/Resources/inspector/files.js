/**
 * Files in and out: drop (or pick) an NDJSON export to inspect it as a scratch session, and
 * download the stream on show as NDJSON to attach to a bug report.
 */
import { byTestId, h } from './dom.js';

/** `onFile(file)` opens a dropped or picked file. */
export function createDropZone(zone, { onFile }) {
  const input = byTestId(zone, 'file-input');
  let depth = 0; // dragenter/dragleave pairs, so moving over children does not flicker

  const hasFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
  const setDragging = (on) => document.body.classList.toggle('dragging-file', on);

  document.addEventListener('dragenter', (event) => {
    if (!hasFiles(event)) return;
    depth += 1;
    setDragging(true);
  });
  document.addEventListener('dragleave', (event) => {
    if (!hasFiles(event)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) setDragging(false);
  });
  // Anywhere on the page takes the file: the zone only shows where.
  document.addEventListener('dragover', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('drop', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    setDragging(false);
    const [file] = event.dataTransfer.files;
    if (file) onFile(file);
  });
  input.addEventListener('change', () => {
    const [file] = input.files;
    input.value = '';
    if (file) onFile(file);
  });
}

/** Saves a Blob under `name` through the browser's download. */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
