// Bundles the viewer into dist/: index.html, app.js, app.css, flags/. Everything the
// page needs (chessground, its CSS, the piece and board images as data URLs)
// ends up in these files, so the relay serves the page without any outside
// request.
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await esbuild.build({
  entryPoints: { app: join(here, 'src/entry.js') },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'iife',
  target: ['es2020'],
  outdir: out,
  loader: { '.svg': 'dataurl', '.png': 'dataurl', '.woff2': 'dataurl' },
  logLevel: 'warning',
  metafile: true,
});
copyFileSync(join(here, 'src/index.html'), join(out, 'index.html'));

// The federation flags the viewer names (feds.js), from flag-icons: only
// those, as files under /flags/ (a page loads the few its players need).
const { FED_ISO } = await import('./src/feds.js');
const flagSrc = join(here, 'node_modules/flag-icons/flags/4x3');
mkdirSync(join(out, 'flags'), { recursive: true });
for (const iso of new Set(Object.values(FED_ISO))) {
  const from = join(flagSrc, `${iso}.svg`);
  if (!existsSync(from)) {
    console.error(`build: no flag image for ${iso} in flag-icons`);
    process.exit(1);
  }
  copyFileSync(from, join(out, 'flags', `${iso}.svg`));
}
copyFileSync(join(here, 'node_modules/flag-icons/LICENSE'), join(out, 'flags', 'LICENSE.txt'));

// Refuse a bundle that would reach outside the relay's origin.
for (const f of ['app.js', 'app.css', 'index.html']) {
  const text = readFileSync(join(out, f), 'utf8');
  const ext = text.match(/url\(\s*['"]?(https?:)?\/\/[^)]*\)|@import\s+['"]?(https?:)?\/\//);
  if (ext) {
    console.error(`build: ${f} refers to an outside resource: ${ext[0].slice(0, 80)}`);
    process.exit(1);
  }
}
const sizes = Object.entries(result.metafile.outputs).map(([f, o]) => `${f.replace(/^.*\//, '')} ${(o.bytes / 1024).toFixed(1)} KiB`);
writeFileSync(join(out, 'build.txt'), sizes.join('\n') + '\n');
console.log('web build:', sizes.join(', '));
