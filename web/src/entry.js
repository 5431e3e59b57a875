// The bundle's entry: the OBS overlays (/overlay/game/<id>,
// /overlay/round/<r>: overlay.js) or the viewer (main.js). The relay serves
// index.html for both paths.
if (location.pathname.startsWith('/overlay/')) {
  import('./overlay.js').then((m) => m.startOverlay());
} else {
  import('./main.js');
}
