// What the relay gives viewers of its tournament file (/tournament.json,
// docs/protocol.md): the event, the public delay, the streams and the
// players' photos. Fetched once, then at most every five minutes; null
// when the relay has none (an older relay answers 404).

import { cachedJson } from './cached-json.js';

const doc = cachedJson('/tournament.json', 300000);

export function tournament() {
  return doc.get();
}

export function refreshTournament(onChange, maxAgeMs) {
  return doc.refresh(onChange, maxAgeMs);
}
