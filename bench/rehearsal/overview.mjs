// The rehearsal's Chromium page (bench/rehearsal/run --browser): the web
// viewer's overview of round 1 on an edge, kept open through the round.
//   node bench/rehearsal/overview.mjs URL SECONDS
// Prints JSON: first render (navigation to the cards on screen drawn),
// frame times while scrolling (rAF intervals, scrolling a fifth of a
// screen a frame, at the start and at the end), the live moves the page
// took, and its JS heap.
import { launch } from '../../tests/browser/lib.mjs';

const [url, seconds] = [process.argv[2], Number(process.argv[3] || 60)];
const onScreen = () => {
  const cards = [...document.querySelectorAll('.card')];
  return cards.length > 0 && cards.every((c) => c.querySelectorAll('piece').length >= 2) ? cards.length : 0;
};
async function frames(page) {
  return page.evaluate(async () => {
    const dts = [];
    let last = performance.now();
    for (let i = 0; i < 120; i++) {
      window.scrollBy(0, window.innerHeight / 5);
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      dts.push(now - last);
      last = now;
    }
    window.scrollTo(0, 0);
    dts.sort((a, b) => a - b);
    const q = (p) => Math.round(dts[Math.min(dts.length - 1, Math.floor(p * dts.length))] * 10) / 10;
    return { frames: dts.length, p50_ms: q(0.5), p95_ms: q(0.95), max_ms: q(1), over_50ms: dts.filter((d) => d > 50).length };
  });
}
const out = {};
const { context, close } = await launch();
try {
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(`${url}#/round/1`);
  await page.waitForFunction(onScreen, null, { timeout: 120000 });
  out.first_render_ms = Date.now() - t0;
  out.cards_on_screen = await page.evaluate(onScreen);
  out.scroll_start = await frames(page);
  const seq0 = await page.evaluate(() => window.__cr?.store?.lastSeq ?? 0);
  await new Promise((r) => setTimeout(r, Math.max(0, seconds * 1000 - (Date.now() - t0))));
  out.events_followed = (await page.evaluate(() => window.__cr?.store?.lastSeq ?? 0)) - seq0;
  out.scroll_end = await frames(page);
  out.games = await page.evaluate(() => window.__cr?.store?.games?.size ?? 0);
  const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
  out.js_heap_mib = Math.round((heap / 1048576) * 10) / 10;
} catch (e) {
  out.error = String(e);
} finally {
  await close();
}
console.log(JSON.stringify(out));
