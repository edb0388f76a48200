import { render } from 'preact';
import '../shared/styles.css';
import { JoinApp } from './app.js';
import { JoinController } from './controller.js';

/** `/join` (type a PIN) and `/join/{pin}` (the QR code's address: the PIN filled in). */
const pin = safeDecode(/^\/join\/([^/]+)\/?$/.exec(location.pathname)?.[1] ?? '');
const root = document.getElementById('app');
if (root) render(<JoinApp controller={new JoinController(pin)} />, root);

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
