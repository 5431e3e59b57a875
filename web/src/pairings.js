// The pairings file as the relay publishes it (/pairings.json,
// docs/protocol.md): players, every round's boards and results, byes and
// round dates. Fetched when a page needs it and again at most once a
// minute; null when the relay has no pairings file.

import { cachedJson } from './cached-json.js';

const doc = cachedJson('/pairings.json', 60000);

export function pairings() {
  return doc.get();
}

// Fetches /pairings.json when the copy is older than maxAgeMs; calls
// onChange() when what it holds changed.
export function refreshPairings(onChange, maxAgeMs) {
  return doc.refresh(onChange, maxAgeMs);
}
