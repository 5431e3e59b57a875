// The real relay for the browser tests: started on a port the OS picks
// (--listen 127.0.0.1:0 --port-file), under `setpriv --pdeathsig KILL` so that
// it dies with the test process however that ends, and ready once /healthz
// answers 200.

import { spawn } from 'node:child_process';
import { get as httpsGet } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './lib.mjs';

// GET url over https, verified against the PEM certificate ca: the status.
function httpsStatus(url, ca) {
  return new Promise((done, fail) => {
    httpsGet(url, { ca }, (res) => { res.resume(); done(res.statusCode); }).on('error', fail);
  });
}

// Resolves to {proc, base, log, exited} or, when the relay exits or never
// becomes healthy, to {failed: true, log}. tls: {ca} when the relay serves
// HTTPS with that certificate (base is then https://).
export async function startRelay(bin, args, env = {}, tls = null) {
  const dir = mkdtempSync(join(tmpdir(), 'cr-browser-'));
  const portFile = join(dir, 'port');
  const log = [];
  const proc = spawn('setpriv', ['--pdeathsig', 'KILL', '--', bin, ...args,
    '--listen', '127.0.0.1:0', '--port-file', portFile],
  { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const r = { proc, base: null, log, exited: null, dir };
  proc.stdout.on('data', (d) => log.push(String(d)));
  proc.stderr.on('data', (d) => log.push(String(d)));
  proc.on('exit', (code, sig) => { r.exited = { code, sig }; });
  const healthy = await waitFor(async () => {
    if (r.exited) return 'exited';
    if (!r.base) {
      try {
        const port = parseInt(readFileSync(portFile, 'utf8'), 10);
        if (port > 0) r.base = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
      } catch (e) {
        return false;
      }
    }
    try {
      const status = tls ? await httpsStatus(`${r.base}/healthz`, tls.ca)
        : (await fetch(`${r.base}/healthz`)).status;
      return status === 200 ? 'ok' : false;
    } catch (e) {
      return false;
    }
  }, 20000, 50);
  if (healthy !== 'ok') {
    await stopRelay(r);
    return { failed: true, log: log.join('') };
  }
  return r;
}

export async function stopRelay(r) {
  if (!r.exited) {
    r.proc.kill('SIGTERM');
    await waitFor(() => r.exited, 5000);
    if (!r.exited) r.proc.kill('SIGKILL');
    await waitFor(() => r.exited, 5000);
  }
  rmSync(r.dir, { recursive: true, force: true });
}
