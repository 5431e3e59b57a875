// Players' federations and titles: FIDE's three-letter federation codes to
// the ISO 3166 codes of the bundled flag images (flag-icons, copied to
// /flags/<iso>.svg by build.mjs), and FIDE titles with their long names.

// FIDE code -> flag-icons file name (ISO 3166-1 alpha-2, or gb-eng/-sct/-wls).
export const FED_ISO = {
  AFG: 'af', AHO: 'cw', ALB: 'al', ALG: 'dz', AND: 'ad', ANG: 'ao', ANT: 'ag', ARG: 'ar', ARM: 'am', ARU: 'aw',
  AUS: 'au', AUT: 'at', AZE: 'az', BAH: 'bs', BAN: 'bd', BAR: 'bb', BDI: 'bi', BEL: 'be', BER: 'bm', BHU: 'bt',
  BIH: 'ba', BIZ: 'bz', BLR: 'by', BOL: 'bo', BOT: 'bw', BRA: 'br', BRN: 'bh', BRU: 'bn', BUL: 'bg', BUR: 'bf',
  CAF: 'cf', CAM: 'kh', CAN: 'ca', CAY: 'ky', CGO: 'cg', CHA: 'td', CHI: 'cl', CHN: 'cn', CIV: 'ci', CMR: 'cm',
  COD: 'cd', COL: 'co', COM: 'km', CPV: 'cv', CRC: 'cr', CRO: 'hr', CUB: 'cu', CYP: 'cy', CZE: 'cz', DEN: 'dk',
  DJI: 'dj', DMA: 'dm', DOM: 'do', ECU: 'ec', EGY: 'eg', ENG: 'gb-eng', ERI: 'er', ESA: 'sv', ESP: 'es', EST: 'ee',
  ETH: 'et', FAI: 'fo', FIJ: 'fj', FIN: 'fi', FRA: 'fr', GAB: 'ga', GAM: 'gm', GCI: 'gg', GEO: 'ge', GEQ: 'gq',
  GER: 'de', GHA: 'gh', GRE: 'gr', GRN: 'gd', GUA: 'gt', GUI: 'gn', GUM: 'gu', GUY: 'gy', HAI: 'ht', HKG: 'hk',
  HON: 'hn', HUN: 'hu', INA: 'id', IND: 'in', IOM: 'im', IRI: 'ir', IRL: 'ie', IRQ: 'iq', ISL: 'is', ISR: 'il',
  ISV: 'vi', ITA: 'it', IVB: 'vg', JAM: 'jm', JCI: 'je', JOR: 'jo', JPN: 'jp', KAZ: 'kz', KEN: 'ke', KGZ: 'kg',
  KOR: 'kr', KOS: 'xk', KSA: 'sa', KUW: 'kw', LAO: 'la', LAT: 'lv', LBA: 'ly', LBN: 'lb', LBR: 'lr', LCA: 'lc',
  LES: 'ls', LIE: 'li', LTU: 'lt', LUX: 'lu', MAC: 'mo', MAD: 'mg', MAR: 'ma', MAS: 'my', MAW: 'mw', MDA: 'md',
  MDV: 'mv', MEX: 'mx', MGL: 'mn', MKD: 'mk', MLI: 'ml', MLT: 'mt', MNC: 'mc', MNE: 'me', MOZ: 'mz', MRI: 'mu',
  MTN: 'mr', MYA: 'mm', NAM: 'na', NCA: 'ni', NED: 'nl', NEP: 'np', NGR: 'ng', NIG: 'ne', NOR: 'no', NRU: 'nr',
  NZL: 'nz', OMA: 'om', PAK: 'pk', PAN: 'pa', PAR: 'py', PER: 'pe', PHI: 'ph', PLE: 'ps', PLW: 'pw', PNG: 'pg',
  POL: 'pl', POR: 'pt', PUR: 'pr', QAT: 'qa', ROU: 'ro', RSA: 'za', RUS: 'ru', RWA: 'rw', SAM: 'ws', SCO: 'gb-sct',
  SEN: 'sn', SEY: 'sc', SGP: 'sg', SKN: 'kn', SLE: 'sl', SLO: 'si', SMR: 'sm', SOL: 'sb', SOM: 'so', SRB: 'rs',
  SRI: 'lk', SSD: 'ss', STP: 'st', SUD: 'sd', SUI: 'ch', SUR: 'sr', SVK: 'sk', SWE: 'se', SWZ: 'sz', SYR: 'sy',
  TAN: 'tz', TGA: 'to', THA: 'th', TJK: 'tj', TKM: 'tm', TLS: 'tl', TOG: 'tg', TPE: 'tw', TTO: 'tt', TUN: 'tn',
  TUR: 'tr', UAE: 'ae', UGA: 'ug', UKR: 'ua', URU: 'uy', USA: 'us', UZB: 'uz', VAN: 'vu', VEN: 've', VIE: 'vn',
  VIN: 'vc', WLS: 'gb-wls', YEM: 'ye', ZAM: 'zm', ZIM: 'zw',
};

// The flag image of a federation ("NOR" -> "/flags/no.svg"), null when unknown
// (FIDE's own "FID", a typo): the code is shown as text then.
export function flagUrl(fed) {
  const iso = FED_ISO[String(fed || '').trim().toUpperCase()];
  return iso ? `/flags/${iso}.svg` : null;
}

export const TITLES = {
  GM: 'Grandmaster', IM: 'International Master', FM: 'FIDE Master', CM: 'Candidate Master',
  WGM: 'Woman Grandmaster', WIM: 'Woman International Master', WFM: 'Woman FIDE Master', WCM: 'Woman Candidate Master',
  AGM: 'Arena Grandmaster', AIM: 'Arena International Master', AFM: 'Arena FIDE Master', ACM: 'Arena Candidate Master',
};

// "gm", "GM " -> "GM"; a title FIDE does not know -> "" (not shown).
export function normTitle(t) {
  const s = String(t || '').trim().toUpperCase();
  return TITLES[s] ? s : '';
}

// The player's FIDE rating page, or null without a plausible FIDE id.
export function fideProfileUrl(id) {
  const s = String(id ?? '').trim();
  return /^[1-9]\d{0,11}$/.test(s) ? `https://ratings.fide.com/profile/${s}` : null;
}
