// The pairings file as the relay publishes it (/pairings.json,
// docs/protocol.md): players, every round's boards and results, byes and
// round dates. Fetched when a page needs it and again at most once a
// minute; null when the relay has no pairings file.

let data = null;
let fetchedAt = 0;
let pending = null;

export function pairings() {
  return data;
}

// Fetches /pairings.json when the copy is older than maxAgeMs; calls
// onChange() when what it holds changed.
export function refreshPairings(onChange, maxAgeMs = 60000) {
  if (pending || Date.now() - fetchedAt < maxAgeMs) return pending;
  pending = fetch('/pairings.json', { cache: 'no-store' })
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null)
    .then((next) => {
      fetchedAt = Date.now();
      pending = null;
      if (JSON.stringify(next) !== JSON.stringify(data)) {
        data = next;
        if (onChange) onChange();
      }
    });
  return pending;
}
