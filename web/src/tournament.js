// What the relay gives viewers of its tournament file (/tournament.json,
// docs/protocol.md): the event, the public delay, the streams and the
// players' photos. Fetched once, then at most every five minutes; null
// when the relay has none (an older relay answers 404).

let data = null;
let fetchedAt = 0;
let pending = null;

export function tournament() {
  return data;
}

export function refreshTournament(onChange, maxAgeMs = 300000) {
  if (pending || (fetchedAt && Date.now() - fetchedAt < maxAgeMs)) return pending;
  pending = fetch('/tournament.json', { cache: 'no-store' })
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null)
    .then((next) => {
      fetchedAt = Date.now();
      pending = null;
      if (JSON.stringify(next) !== JSON.stringify(data)) {
        data = next && typeof next === 'object' ? next : null;
        if (onChange) onChange();
      }
    });
  return pending;
}
