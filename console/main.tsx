// The console's entry: its style sheet and the app in #app.
import { render } from 'preact';
import { App } from './app.js';
import './style.css';

render(<App />, document.getElementById('app')!);
