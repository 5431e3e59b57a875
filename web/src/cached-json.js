// A JSON document of the relay (/pairings.json, /tournament.json): fetched
// when a page needs it and again at most every maxAgeMs; null when the relay
// has none (404) or it is not an object. refresh(onChange) calls onChange()
// when what it holds changed.
export function cachedJson(url, defaultMaxAgeMs) {
  let data = null;
  let fetchedAt = 0;
  let pending = null;
  return {
    get: () => data,
    refresh(onChange, maxAgeMs = defaultMaxAgeMs) {
      if (pending || (fetchedAt && Date.now() - fetchedAt < maxAgeMs)) return pending;
      pending = fetch(url, { cache: 'no-store' })
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
    },
  };
}
