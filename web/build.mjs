// Bundles the viewer into dist/: index.html, assets/ (the JS and CSS under
// content-hashed names), flags/, and assets.json (logical name -> served
// path). Everything the page needs (chessground, its CSS, the piece and board
// images as data URLs) ends up in these files, so the relay serves the page
// without any outside request. Every compressible file gets .gz and .br
// copies beside it for the relay to send (docs/protocol.md, "HTTP").
import * as esbuild from 'esbuild';
import { optimize } from 'svgo';
import { Resvg } from '@resvg/resvg-js';
import { brotliCompressSync, gzipSync, constants as zc } from 'node:zlib';
import { existsSync, mkdirSync, readdirSync, rmSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

function fail(msg) {
  console.error(`build: ${msg}`);
  process.exit(1);
}

// Everything under assets/ has a content hash in its name: the relay serves
// that folder as immutable (a year's cache), so nothing else may go there.
const result = await esbuild.build({
  entryPoints: { app: join(here, 'src/entry.js') },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'iife',
  target: ['es2020'],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.svg': 'dataurl', '.png': 'dataurl', '.woff2': 'dataurl' },
  logLevel: 'warning',
  metafile: true,
});

// Logical name (app.js) -> the path the page loads (/assets/app-HASH.js).
const assets = {};
for (const [file, o] of Object.entries(result.metafile.outputs)) {
  const served = '/' + relative(out, file).split('\\').join('/');
  const logical = served.replace(/^\/assets\//, '').replace(/-[A-Z0-9]{8}(\.[a-z0-9]+)$/, '$1');
  if (logical === served.slice('/assets/'.length)) fail(`${served} has no content hash in its name`);
  assets[logical] = served;
  if (o.entryPoint === undefined && !logical.endsWith('.css')) fail(`unexpected output ${served}`);
}
for (const need of ['app.js', 'app.css']) if (!assets[need]) fail(`esbuild made no ${need}`);

// index.html names the hashed files; the overlays (/overlay/...) and every
// client route are served this same page by the relay.
const html = readFileSync(join(here, 'src/index.html'), 'utf8');
let page = html;
for (const name of ['app.js', 'app.css']) {
  const ref = `"/${name}"`;
  if (!page.includes(ref)) fail(`src/index.html does not load ${ref}`);
  page = page.replace(ref, `"${assets[name]}"`);
}
writeFileSync(join(out, 'index.html'), page);
writeFileSync(join(out, 'assets.json'), JSON.stringify(assets, null, 2) + '\n');

// The federation flags the viewer names (feds.js), from flag-icons: only
// those, as files under /flags/ (a page loads the few its players need). The
// page shows them at 20x15 px: svgo trims them; a flag still over FLAG_MAX
// bytes (a coat of arms drawn in detail, up to 180 KB) becomes a raster of
// 60x45 px (three device pixels a CSS pixel) inside the same SVG name.
const FLAG_MAX = 3000;
const { FED_ISO } = await import('./src/feds.js');
const flagSrc = join(here, 'node_modules/flag-icons/flags/4x3');
mkdirSync(join(out, 'flags'), { recursive: true });
for (const iso of new Set(Object.values(FED_ISO))) {
  const from = join(flagSrc, `${iso}.svg`);
  if (!existsSync(from)) fail(`no flag image for ${iso} in flag-icons`);
  const svg = readFileSync(from, 'utf8');
  // flag-icons' files are trimmed already (svgo takes off about 10%): one
  // four times over the bound goes straight to the raster, svgo's slowest.
  let small = svg.length > 4 * FLAG_MAX ? svg : optimize(svg, { path: from, multipass: true, floatPrecision: 2 }).data;
  if (small.length > FLAG_MAX) {
    const png = new Resvg(svg, { fitTo: { mode: 'width', value: 60 } }).render().asPng();
    small = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
      'viewBox="0 0 60 45"><image width="60" height="45" ' +
      `xlink:href="data:image/png;base64,${png.toString('base64')}"/></svg>`;
    if (small.length > FLAG_MAX * 2) fail(`flag ${iso} is ${small.length} bytes even as a 60x45 raster`);
  }
  writeFileSync(join(out, 'flags', `${iso}.svg`), small);
}
writeFileSync(join(out, 'flags', 'LICENSE.txt'), readFileSync(join(here, 'node_modules/flag-icons/LICENSE')));

// Refuse a bundle that would reach outside the relay's origin.
for (const f of [assets['app.js'], assets['app.css'], '/index.html']) {
  const text = readFileSync(join(out, f), 'utf8');
  const ext = text.match(/url\(\s*['"]?(https?:)?\/\/[^)]*\)|@import\s+['"]?(https?:)?\/\//);
  if (ext) fail(`${f} refers to an outside resource: ${ext[0].slice(0, 80)}`);
}

// Precompressed copies beside every compressible file: gzip at level 9 and
// brotli at its best, both with the relay's ordinary file serving.
const COMPRESS = /\.(html|js|css|svg|json|map|txt)$/;
function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}
let raw = 0, gz = 0, br = 0;
for (const f of [...files(out)]) {
  if (!COMPRESS.test(f)) continue;
  const data = readFileSync(f);
  const g = gzipSync(data, { level: 9 });
  const b = brotliCompressSync(data, {
    params: { [zc.BROTLI_PARAM_QUALITY]: zc.BROTLI_MAX_QUALITY, [zc.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
  writeFileSync(`${f}.gz`, g);
  writeFileSync(`${f}.br`, b);
  raw += data.length; gz += g.length; br += b.length;
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const sizes = ['app.js', 'app.css'].map((name) => {
  const p = join(out, assets[name]);
  return `${name} ${kib(statSync(p).size)} (gzip ${kib(statSync(`${p}.gz`).size)}, br ${kib(statSync(`${p}.br`).size)})`;
});
sizes.push(`all compressible ${kib(raw)} (gzip ${kib(gz)}, br ${kib(br)})`);
writeFileSync(join(out, 'build.txt'), sizes.join('\n') + '\n');
console.log('web build:', sizes.join(', '));
