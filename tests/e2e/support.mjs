// What the browser tests share: linkpath started on a free loopback port,
// and headless Chromium.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const binary = process.env.LINKPATH_BIN || join(root, 'target', 'release', 'linkpath');

// Starts linkpath on 127.0.0.1:0 with games in memory and `env` added, and
// reads the bound address from its first JSON log line.
export function startServer(env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve'], {
      env: {
        ...process.env, LINKPATH_LISTEN: '127.0.0.1:0', LINKPATH_LOG_FORMAT: 'json', LINKPATH_STORE: 'memory', RUST_LOG: 'info', ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const timer = setTimeout(() => reject(new Error('linkpath did not start within 10 s')), 10000);
    let buffered = '';
    child.stderr.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const event = JSON.parse(line);
          if (event.message === 'linkpath serving') {
            clearTimeout(timer);
            resolve({ child, base: `http://${event.listen}` });
          }
        } catch (_) { /* not a JSON line */ }
      }
    });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`linkpath exited with ${code}`)); });
  });
}

// Debian's Chromium (or $CHROMIUM), headless, with nothing reaching out.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,
  });
}
