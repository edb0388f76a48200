import { render } from 'preact';
import '../shared/styles.css';
import { PresentApp } from './app.js';
import { PresenterController, takeHostToken } from './controller.js';

/** `/present/{sessionId}#hostToken=…`: the fragment never leaves the browser, so no server log holds the token. */
const sessionId = /^\/present\/([^/]+)\/?$/.exec(location.pathname)?.[1] ?? '';
const root = document.getElementById('app');
if (root) render(<PresentApp controller={new PresenterController(sessionId, takeHostToken(sessionId))} />, root);
