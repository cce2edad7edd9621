// BlueDot web map. Draws what the gateway's feed says: each target's fix and its drawing state (symbol,
// accuracy circle, course, ping) as the display engine decided it. Follow modes mirror the display engine's
// auto-pan (off, recenter with a wander extent, navigation with the dot pinned near the bottom and the map
// turned by the engine's navigation rotation); a user pan or zoom turns follow off and the map back to north
// up. The map is metric (L.CRS.Simple: 1 unit = 1 m, lat = y, lng = x).
(function () {
  'use strict';

  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get('token');
  const fetchOptions = token ? { headers: { Authorization: 'Bearer ' + token } } : {};
  const feedQuery = token ? '?access_token=' + encodeURIComponent(token) : '';
  // The set-up page takes the token the same way.
  document.getElementById('setup-link').href = '/setup.html' + location.hash;

  // The display engine's auto-pan settings, replaced by GET /api/display (LocationDisplaySettings).
  const AUTO_PAN = { wanderExtentFactor: 0.5, navigationPointHeightFactor: 0.125, initialZoomScale: null };
  const SELF = 'self';
  // Display names by target id, from the device registry (GET /api/display's targetNames); the id where none.
  const NAMES = new Map();
  const nameOf = (id) => NAMES.get(id) || id;

  // The page opens on the whole venue (loadVenue fits it) and the first fixes keep that view: the initial zoom
  // scale waits until the user switches follow on or picks another target.
  // A campus view (GET /api/sites lists sites) draws one site at a time: `site` is the one picked, null on a gateway.
  const state = {
    venue: null, floor: null, follow: 'recenter', followTarget: SELF, pendingInitialZoom: false,
    targets: new Map(), events: 0, connected: false, reconnects: 0, sites: [], site: null,
  };
  const map = L.map('map', {
    crs: L.CRS.Simple, minZoom: -3, maxZoom: 7, zoomSnap: 0.25, attributionControl: false,
  });
  // The zoom buttons live outside the turning wrapper, so they stay upright and on screen.
  document.getElementById('map-controls').appendChild(map.zoomControl.getContainer());
  const floorLayers = new Map();   // floor -> L.layerGroup (plan + anchors)
  const anchorMarkers = new Map(); // anchor id -> { marker, anchor }, restyled by the site's receiver states
  const roomShapes = new Map();    // room id -> { polygon, label, room }, labelled with their occupancy
  const el = (id) => document.getElementById(id);
  const toLatLng = (x, y) => L.latLng(y, x);

  function showError(message) {
    const box = el('error');
    box.textContent = message;
    box.hidden = false;
  }

  // Local metres -> WGS84 by the gateway's own projection (GeographicOrigin): the venue document carries the
  // origin's metres per degree, so the page applies the server's tangent plane and has no Earth model of its own.
  function geographic(x, y) {
    const o = state.venue && state.venue.origin;
    if (!o) return null;
    const b = o.bearing * Math.PI / 180;
    const north = y * Math.cos(b) - x * Math.sin(b), east = y * Math.sin(b) + x * Math.cos(b);
    return { lat: o.lat + north / o.metersPerDegreeLat, lon: o.lon + east / o.metersPerDegreeLon };
  }

  // The Leaflet zoom showing the map at 1:N on a 96 dpi screen (CRS.Simple: 2^zoom pixels per metre).
  function zoomForScale(n) {
    return Math.log2(96 / (0.0254 * n));
  }

  // ---- venue, floors, plans, anchors ----
  async function loadVenue() {
    const settings = await fetch('/api/display', fetchOptions).then((r) => (r.ok ? r.json() : null));
    if (settings) {
      const { targetNames, ...autoPan } = settings;
      Object.assign(AUTO_PAN, autoPan);
      for (const [id, name] of Object.entries(targetNames || {})) NAMES.set(id, name);
    }
    const path = state.site ? `/api/sites/${encodeURIComponent(state.site)}/venue` : '/api/venue';
    const response = await fetch(path, fetchOptions);
    if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
    const venue = await response.json();
    state.venue = venue;
    el('venue-name').textContent = venue.name + (venue.origin ? ' (geographic origin set)' : '');
    map.fitBounds(venueExtent(venue), { padding: [20, 20] });
    for (const floor of venue.floors) {
      const group = L.layerGroup();
      if (floor.plan) {
        const bounds = floor.planBounds || venue.bounds;
        const image = await fetch(floor.plan, fetchOptions).then((r) => (r.ok ? r.blob() : null));
        if (image) {
          L.imageOverlay(URL.createObjectURL(image), [[bounds[0][1], bounds[0][0]], [bounds[1][1], bounds[1][0]]])
            .addTo(group);
        }
      }
      for (const room of (venue.rooms || []).filter((r) => r.floor === floor.floor)) {
        const rings = [room.polygon, ...room.holes].map((ring) => ring.map(([x, y]) => toLatLng(x, y)));
        // Exits (front door, porch, garage): where presence ends a silence sooner (docs/formats.md, "Rooms").
        const className = room.exit ? 'bd-room bd-room-exit' : 'bd-room';
        const polygon = L.polygon(rings, { className, weight: 1, interactive: false }).addTo(group);
        const label = document.createElement('span');
        label.className = 'bd-room-label bd-upright';
        label.dataset.room = room.id;
        polygon.bindTooltip(label, { permanent: true, direction: 'center', className: 'bd-tip' });
        roomShapes.set(room.id, { polygon, label, room });
        showOccupancy(room.id, 0, []);
      }
      for (const anchor of venue.anchors.filter((a) => a.floor === floor.floor)) {
        const icon = L.divIcon({ className: 'bd-anchor', iconSize: [8, 8] });
        const where = anchor.lat !== undefined && anchor.lat !== null
          ? `<br>${anchor.lat.toFixed(7)}, ${anchor.lon.toFixed(7)}` : '';
        const marker = L.marker(toLatLng(anchor.x, anchor.y), { icon, interactive: true, keyboard: false })
          .bindTooltip(anchorTip(anchor, where, null), { className: 'bd-tip' })
          .addTo(group);
        anchorMarkers.set(anchor.id, { marker, anchor, where });
      }
      floorLayers.set(floor.floor, group);
      const button = document.createElement('button');
      button.textContent = floor.name || 'Floor ' + floor.floor;
      button.dataset.floor = floor.floor;
      button.addEventListener('click', () => selectFloor(floor.floor));
      el('floors').appendChild(button);
    }
    selectFloor(venue.floors.length ? venue.floors[0].floor : 0);
  }

  // Takes the venue off the map: its floors' layers, their buttons and what they hold.
  function clearVenue() {
    for (const group of floorLayers.values()) group.remove();
    floorLayers.clear();
    roomShapes.clear();
    anchorMarkers.clear();
    el('floors').replaceChildren();
    state.floor = undefined;
  }

  // The venue was saved or reloaded on the gateway: drawn again, on the floor shown.
  async function reloadVenue() {
    const shown = state.floor;
    clearVenue();
    await loadVenue();
    if (floorLayers.has(shown)) selectFloor(shown);
    state.venueReloads = (state.venueReloads || 0) + 1;
  }

  // Everything the venue draws, on every floor: its bounds, the plans' bounds, the anchors and the rooms' outlines.
  function venueExtent(venue) {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    const add = ([x, y]) => {
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    };
    venue.bounds.forEach(add);
    for (const floor of venue.floors) (floor.planBounds || []).forEach(add);
    for (const anchor of venue.anchors) add([anchor.x, anchor.y]);
    for (const room of venue.rooms || []) room.polygon.forEach(add);
    return L.latLngBounds(toLatLng(minX, minY), toLatLng(maxX, maxY));
  }

  function anchorTip(anchor, where, receiver) {
    let site = '';
    if (receiver) {
      const offset = receiver.clockOffset === null ? '' : `, clock ${(receiver.clockOffset * 1000).toFixed(0)} ms off`;
      site = `<br>${receiver.online ? 'online' : 'offline'} (${receiver.kind}), ${receiver.sightingsPerSecond.toFixed(1)}/s${offset}`;
    }
    return `<span class="bd-tip-box bd-upright">${anchor.id}<br>x ${anchor.x} m, y ${anchor.y} m${where}${site}</span>`;
  }

  // ---- campus view: the sites (GET /api/sites), one drawn at a time, picked in #site and kept in the URL ----
  // A gateway or a solver lists none (or has no such route): then the page is a gateway's, with its own venue.
  async function fetchSites() {
    const response = await fetch('/api/sites', fetchOptions).catch(() => null);
    const document_ = response && response.ok ? await response.json().catch(() => null) : null;
    return document_ && Array.isArray(document_.sites) ? document_.sites : [];
  }

  // The picker's options follow the list (sorted by site): each names its site and says when it is stale (its
  // solver offline or its bridge down), updated in place so that an open picker stays open.
  function showSites(sites) {
    state.sites = sites;
    const picker = el('site');
    const names = new Set(sites.map((s) => s.site));
    for (const option of [...picker.options]) if (!names.has(option.value)) option.remove();
    sites.forEach((s, i) => {
      let option = picker.options[i];
      if (!option || option.value !== s.site) {
        option = new Option(s.site, s.site);
        picker.add(option, i);
      }
      option.textContent = s.site + (s.stale ? ' (stale)' : '');
      option.dataset.stale = String(s.stale);
      option.title = `${s.venue || 'no venue yet'}: solver ${s.solver}, bridge ${s.bridge || 'unknown'}, ` +
        `${s.targets} targets`;
    });
    picker.value = state.site;
  }

  // At start: a campus view shows the picker on the site named in the URL (#site=...), else the first.
  async function loadSites() {
    const sites = await fetchSites();
    if (!sites.length) return false;
    const wanted = hash.get('site');
    state.site = sites.some((s) => s.site === wanted) ? wanted : sites[0].site;
    showSites(sites);
    el('site').hidden = false;
    return true;
  }

  // Every 5 s: the sites' states; the picked site's venue is drawn again when it was missing or is another now.
  async function refreshSites() {
    const sites = await fetchSites();
    if (!sites.length) return;
    showSites(sites);
    const picked = sites.find((s) => s.site === state.site);
    if (picked && picked.venue && (!state.venue || state.venue.name !== picked.venue)) showSite(state.site);
  }

  // Draws a site's venue in place of the one shown, with that site's targets only (the others stay in state, so
  // switching back is instant). Loads run one after another; a pick overtaken by a newer one draws nothing.
  let siteLoads = Promise.resolve();
  function showSite(name) {
    state.site = name;
    hash.set('site', name);
    history.replaceState(null, '', '#' + hash);
    siteLoads = siteLoads.then(async () => {
      if (name !== state.site) return;
      clearVenue();
      state.venue = null;
      el('venue-name').textContent = 'loading venue…';
      try {
        await loadVenue();
        el('error').hidden = true;
      } catch (error) {
        showError(`Cannot load the venue of ${name}: ${error.message}`);
      }
      for (const t of state.targets.values()) placeOnFloor(t);
    });
    return siteLoads;
  }
  el('site').addEventListener('change', (event) => showSite(event.target.value));

  // ---- a site's receivers (solver role): online/offline and rates on the anchors, every 3 s ----
  async function refreshReceivers() {
    const response = await fetch('/api/receivers', fetchOptions).catch(() => null);
    if (!response || !response.ok) return;
    const document_ = await response.json();
    if (!document_.site) return;
    const byID = new Map(document_.receivers.map((r) => [r.id, r]));
    for (const [id, { marker, anchor, where }] of anchorMarkers) {
      const receiver = byID.get(id) || null;
      const element = marker.getElement();
      if (element) {
        element.classList.toggle('bd-online', !!receiver && receiver.online);
        element.classList.toggle('bd-offline', !receiver || !receiver.online);
      }
      marker.setTooltipContent(anchorTip(anchor, where, receiver || { online: false, kind: 'never heard', sightingsPerSecond: 0, clockOffset: null }));
    }
    const online = document_.receivers.filter((r) => r.online && r.known).length;
    el('venue-name').dataset.receivers = `${online}/${anchorMarkers.size}`;
    el('venue-name').title = `site ${document_.site}: ${online} of ${anchorMarkers.size} receivers online`;
  }

  // ---- rooms: who is in each (GET /api/rooms), on every enter or leave and every 5 s ----
  function showOccupancy(id, occupancy, targets) {
    const shape = roomShapes.get(id);
    if (!shape) return;
    shape.label.textContent = `${shape.room.name || shape.room.id}${shape.room.exit ? ' (exit)' : ''} · ${occupancy}`;
    shape.label.title = targets.join(', ');
    shape.label.dataset.occupancy = String(occupancy);
    const element = shape.polygon.getElement();
    if (element) element.classList.toggle('bd-room-occupied', occupancy > 0);
  }
  let roomsPending = null;
  function refreshRooms() {
    if (!roomShapes.size || roomsPending) return;
    roomsPending = fetch('/api/rooms', fetchOptions).then((r) => (r.ok ? r.json() : []))
      .then((rooms) => { for (const r of rooms) showOccupancy(r.id, r.occupancy, r.targets); })
      .catch(() => {}).finally(() => { roomsPending = null; });
  }

  function selectFloor(floor) {
    if (state.floor === floor) return;
    state.floor = floor;
    for (const [level, group] of floorLayers) {
      if (level === floor) group.addTo(map); else group.remove();
    }
    for (const button of el('floors').children) {
      button.classList.toggle('active', Number(button.dataset.floor) === floor);
    }
    for (const target of state.targets.values()) placeOnFloor(target);
    if (trail.on) drawTrail();
  }

  // ---- targets: marker, accuracy circle, label, drawn from the feed's drawing state ----
  function targetEntry(id) {
    let t = state.targets.get(id);
    if (t) return t;
    const isSelf = id === SELF;
    const icon = L.divIcon({
      className: 'bd-icon', iconSize: [0, 0],
      html: `<div class="bd-marker ${isSelf ? 'bd-self' : 'bd-tag'}" data-target="${id.replace(/"/g, '')}">` +
        '<div class="bd-wedge"></div><div class="bd-arrow"></div><div class="bd-dot"></div></div>',
    });
    t = {
      id, fix: null, display: null,
      circle: L.circle([0, 0], { radius: 1, color: isSelf ? '#1a73e8' : '#d93f87', weight: 1, fillOpacity: 0.15 }),
      marker: L.marker([0, 0], { icon, keyboard: false, zIndexOffset: isSelf ? 1000 : 0 }),
    };
    if (!isSelf) {
      const label = document.createElement('span');
      label.className = 'bd-label bd-upright';
      label.textContent = nameOf(id);
      t.marker.bindTooltip(label, { permanent: true, direction: 'right', offset: [8, 0], className: 'bd-tip' });
    }
    state.targets.set(id, t);
    const option = document.createElement('option');
    option.value = id;
    option.textContent = isSelf ? 'self (this gateway)' : 'tag ' + nameOf(id);
    el('follow-target').appendChild(option);
    t.option = option;
    if (isSelf) el('follow-target').value = SELF;
    return t;
  }

  // Whether a fix belongs on the map shown: in a campus view, only the picked site's.
  const onSiteShown = (fix) => !state.site || fix.site === state.site;

  // A target is drawn on its floor (when it has one) of its site (in a campus view). A marker put back on the map
  // gets a new element, drawn again from the target's drawing state.
  function placeOnFloor(t) {
    const onSite = Boolean(t.fix) && onSiteShown(t.fix);
    const visible = onSite && (t.fix.floor === undefined || t.fix.floor === null || t.fix.floor === state.floor);
    t.option.hidden = !onSite;
    if (!visible) { t.circle.remove(); t.marker.remove(); return; }
    const shownBefore = map.hasLayer(t.marker);
    t.circle.addTo(map);
    t.marker.addTo(map);
    if (!shownBefore) { draw(t, false); fade(t); }
  }

  function draw(t, ping) {
    const element = t.marker.getElement();
    const box = element && element.querySelector('.bd-marker');
    if (!box || !t.display) return;
    box.classList.toggle('bd-course', t.display.symbol === 'course' || t.display.symbol === 'heading');
    box.classList.toggle('bd-acquiring', t.display.symbol === 'acquiring');
    t.circle.setStyle({ color: t.display.symbol === 'acquiring' ? '#9aa0a6' : (t.id === SELF ? '#1a73e8' : '#d93f87') });
    if (typeof t.display.rotation === 'number') {
      // The display engine's arrow direction, degrees clockwise from the plan's +y (screen up).
      box.querySelector('.bd-arrow').style.transform = `rotate(${t.display.rotation}deg)`;
    }
    // The heading wedge: where the device points (a compass, gpsd's ATT), degrees clockwise from the plan's +y.
    const wedge = box.querySelector('.bd-wedge');
    const hasHeading = typeof t.display.heading === 'number';
    box.classList.toggle('bd-has-heading', hasHeading);
    wedge.style.transform = hasHeading ? `rotate(${t.display.heading}deg)` : '';
    if (ping && t.display.ping) {
      const ring = document.createElement('div');
      ring.className = 'bd-ping';
      ring.addEventListener('animationend', () => ring.remove());
      box.appendChild(ring);
    }
  }

  function onFix(message) {
    const fix = message.fix;
    const t = targetEntry(fix.target);
    t.fix = fix;
    t.display = message.display;
    t.reportedAt = message.reportedAt;
    // A heading (a compass, gpsd's ATT) makes compass navigation possible.
    if (typeof message.display.heading === 'number') {
      const compass = el('follow').querySelector('[data-mode="compassNavigation"]');
      if (compass.disabled) { compass.disabled = false; compass.title = "Compass navigation: the map turns with the target's heading"; }
    }
    const at = toLatLng(fix.x, fix.y);
    t.marker.setLatLng(at);
    t.circle.setLatLng(at);
    t.circle.setRadius(Math.max(0.1, message.display.accuracy));
    placeOnFloor(t);
    draw(t, true);
    // Presence: a silent target stays where it was last heard, greying with its silence; not_home, hollow.
    t.silentSince = typeof fix.silentFor === 'number' ? Date.now() - fix.silentFor * 1000 : null;
    t.away = fix.presence === 'not_home';
    fade(t);
    state.events += 1;
    if (fix.target === state.followTarget && onSiteShown(fix)) { autoPan(fix); showInfo(t); }
  }

  // Greys a silent target with its silence: full at first, down to a third after 30 minutes.
  function fade(t) {
    const element = t.marker.getElement();
    const box = element && element.querySelector('.bd-marker');
    if (!box) return;
    box.classList.toggle('bd-away', Boolean(t.away));
    const silent = t.silentSince ? (Date.now() - t.silentSince) / 1000 : 0;
    const opacity = t.silentSince ? Math.max(0.35, 1 - 0.65 * Math.min(1, silent / 1800)) : 1;
    box.style.opacity = String(opacity);
    box.dataset.silentFor = t.silentSince ? String(Math.round(silent)) : '';
    t.circle.setStyle({ opacity, fillOpacity: 0.15 * opacity });
  }

  function onDisplay(message) {
    const t = state.targets.get(message.target);
    if (!t) return;
    t.display = message.display;
    draw(t, false);
    if (t.id === state.followTarget && onSiteShown(t.fix)) { showInfo(t); if (turn.on) turnTo(t.display); }
  }

  function onRemoved(message) {
    const t = state.targets.get(message.target);
    if (!t) return;
    t.marker.remove();
    t.circle.remove();
    state.targets.delete(message.target);
    for (const option of el('follow-target').options) if (option.value === message.target) option.remove();
  }

  function showInfo(t) {
    const f = t.fix;
    const silent = t.silentSince ? Math.round((Date.now() - t.silentSince) / 60000) : null;
    el('info-target').textContent = (t.id === SELF ? 'self' : 'tag ' + nameOf(t.id)) +
      (t.away ? ' (away)' : silent !== null ? ` (silent ${silent} min)`
        : t.display.symbol === 'acquiring' ? ' (last known)' : '');
    el('info-xy').textContent = `${f.x.toFixed(2)}, ${f.y.toFixed(2)} m` + (f.floor !== undefined ? `, floor ${f.floor}` : '');
    el('info-latlon').textContent = f.lat !== undefined ? `${f.lat.toFixed(7)}, ${f.lon.toFixed(7)}` : 'local venue';
    el('info-accuracy').textContent = `± ${f.horizontalAccuracy.toFixed(1)} m (68%)`;
    el('info-motion').textContent = f.speed !== undefined
      ? `${f.speed.toFixed(2)} m/s` + (f.course !== undefined ? `, ${f.course.toFixed(0)}°` : '') : '—';
    el('info-anchors').textContent = String(f.anchors);
    // Only the hand-over stamps a source; every other fix comes from Bluetooth (beacons, or a site's receivers).
    el('info-source').textContent = f.source === 'gnss' ? 'GNSS (gpsd)' : 'beacons';
    el('info-heading').textContent = f.heading !== undefined ? `${f.heading.toFixed(0)}°` : '—';
    const room = f.room !== undefined ? roomShapes.get(f.room) : null;
    el('info-room').textContent = f.roomProbability === undefined ? '—'
      : (room ? (room.room.name || room.room.id) : 'none') + ` (${Math.round(f.roomProbability * 100)}%)`;
  }

  // ---- trail: the followed target's history (GET /api/history) up to the time the slider picks ----
  const trail = { on: false, target: null, points: [], line: null, head: null, live: true, timer: null };
  async function loadTrail(from) {
    // Pages of up to 1,000 fixes, at most 20 pages: the first time the newest 20,000 (a day of one tag at 1 Hz is
    // 86,400 fixes), newest first and turned round; then what came after the last one, oldest first.
    let cursor = null, pages = 0;
    const points = [];
    const order = from === undefined ? 'newest' : 'oldest';
    do {
      const query = new URLSearchParams({ target: trail.target, order, limit: '1000' });
      if (from !== undefined) query.set('from', String(from));
      if (cursor) query.set('cursor', cursor);
      const response = await fetch('/api/history?' + query, fetchOptions).catch(() => null);
      if (!response || !response.ok) break;
      const page = await response.json();
      for (const f of page.fixes) points.push({ t: f.t, x: f.x, y: f.y, floor: f.floor });
      cursor = page.next;
      pages += 1;
    } while (cursor && pages < 20);
    return order === 'newest' ? points.reverse() : points;
  }
  function formatTime(t) {
    return new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
  }
  function drawTrail() {
    const slider = el('trail-time');
    const until = Number(slider.value);
    const shown = trail.points.filter((p) => p.t <= until &&
      (p.floor === undefined || p.floor === null || p.floor === state.floor));
    const latLngs = shown.map((p) => toLatLng(p.x, p.y));
    if (!trail.line) {
      trail.line = L.polyline(latLngs, { className: 'bd-trail', weight: 3, interactive: false }).addTo(map);
      trail.head = L.circleMarker([0, 0], { className: 'bd-trail-head', radius: 5, interactive: false });
    } else {
      trail.line.setLatLngs(latLngs);
    }
    if (latLngs.length) trail.head.setLatLng(latLngs[latLngs.length - 1]).addTo(map); else trail.head.remove();
    el('trail-label').textContent = trail.points.length
      ? `${formatTime(until)} · ${shown.length} fixes` : 'no history yet';
    el('trail-controls').dataset.points = String(shown.length);
  }
  async function refreshTrail() {
    if (!trail.on) return;
    const last = trail.points.length ? trail.points[trail.points.length - 1].t : undefined;
    const fresh = await loadTrail(last);
    for (const p of fresh) if (last === undefined || p.t > last) trail.points.push(p);
    const slider = el('trail-time');
    if (trail.points.length) {
      slider.min = String(trail.points[0].t);
      slider.max = String(trail.points[trail.points.length - 1].t);
      if (trail.live) slider.value = slider.max;
    }
    drawTrail();
  }
  async function setTrail(on) {
    trail.on = on;
    el('trail-toggle').classList.toggle('active', on);
    el('trail-controls').hidden = !on;
    clearInterval(trail.timer);
    if (trail.line) { trail.line.remove(); trail.head.remove(); trail.line = null; trail.head = null; }
    trail.points = [];
    if (!on) return;
    trail.target = state.followTarget;
    trail.live = true;
    await refreshTrail();
    trail.timer = setInterval(refreshTrail, 5000);
  }
  el('trail-toggle').addEventListener('click', () => setTrail(!trail.on));
  el('trail-time').addEventListener('input', () => {
    const slider = el('trail-time');
    trail.live = Number(slider.value) >= Number(slider.max);
    drawTrail();
  });

  // ---- follow modes: the display engine's auto-pan ----
  // ---- map rotation (navigation): a CSS rotation of #rotor, the wrapper of Leaflet's container ----
  // While navigating, #rotor is a square centred on the pin (the dot's place on screen), with a half side of the
  // pin's distance to the farthest corner of #viewport, so the turned map covers every corner; it turns about
  // its centre. Otherwise it fills #viewport unturned, and Leaflet works on a plain map.
  const viewport = el('viewport'), rotor = el('rotor');
  const turn = { on: false, degrees: 0, changedAt: 0, box: { left: 0, top: 0, width: 0, height: 0 } };

  function pinInViewport() {
    const w = viewport.clientWidth, h = viewport.clientHeight;
    return { x: w / 2, y: h * (1 - AUTO_PAN.navigationPointHeightFactor), w, h };
  }

  // Lays #rotor out for navigation (on) or plain (off), keeping what is on screen where it is.
  function layoutRotor(on) {
    map.stop();  // a pan in flight would overwrite the compensating pan below
    const before = turn.box, p = pinInViewport();
    let box = { left: 0, top: 0, width: p.w, height: p.h };
    if (on) {
      const r = Math.ceil(Math.hypot(Math.max(p.x, p.w - p.x), Math.max(p.y, p.h - p.y)));
      box = { left: Math.round(p.x) - r, top: Math.round(p.y) - r, width: 2 * r, height: 2 * r };
    }
    turn.on = on;
    turn.box = box;
    const px = (n) => (on ? n + 'px' : '');  // off: the stylesheet's full size, which follows the window
    Object.assign(rotor.style, { left: px(box.left), top: px(box.top), width: px(box.width), height: px(box.height) });
    map.invalidateSize({ pan: false });
    // The container moved on screen by the change of its corner; move the content back by as much.
    const dx = box.left - before.left, dy = box.top - before.top;
    if (dx || dy) map.panBy(L.point(dx, dy), { animate: false });
  }

  // Turns the map by `degrees` clockwise on screen (CSS), the short way round, smoothly unless `animate` is false.
  function setRotation(degrees, animate) {
    const delta = (((degrees - turn.degrees) % 360) + 540) % 360 - 180;
    if (Math.abs(delta) < 1e-6 && animate) return;
    turn.degrees = animate ? turn.degrees + delta : degrees;
    turn.changedAt = performance.now();
    rotor.classList.toggle('bd-turning', animate);
    rotor.style.transform = turn.degrees ? `rotate(${turn.degrees}deg)` : '';
    rotor.style.setProperty('--bd-upright', `${-turn.degrees}deg`);
    if (!animate) void rotor.offsetWidth;  // apply now, so that the next animated turn starts from here
  }

  // The display engine's navigation rotation puts the plan direction `navigationRotation` up on screen: the map
  // turns counter-clockwise by it.
  // Compass navigation puts the heading up instead (the direction the device points, plan degrees), and keeps
  // the map as it is until a heading comes.
  function turnTo(display) {
    if (!turn.on) return;
    if (state.follow === 'compassNavigation') {
      if (display && typeof display.heading === 'number') setRotation(-display.heading, true);
    } else {
      setRotation(-(display && display.navigationRotation || 0), true);
    }
  }

  // The plan point under a screen point, undoing the rotation (Leaflet's own event positions assume none).
  function latLngAtClient(clientX, clientY) {
    const v = viewport.getBoundingClientRect(), b = turn.box;
    const dx = clientX - (v.left + b.left + b.width / 2), dy = clientY - (v.top + b.top + b.height / 2);
    const a = -turn.degrees * Math.PI / 180;
    const ux = dx * Math.cos(a) - dy * Math.sin(a), uy = dx * Math.sin(a) + dy * Math.cos(a);
    return map.containerPointToLatLng(L.point(ux + b.width / 2, uy + b.height / 2));
  }

  function setFollow(mode, reason) {
    const switchedOn = state.follow === 'off' && mode !== 'off';
    const turning = mode === 'navigation' || mode === 'compassNavigation';
    if (turning && !turn.on) layoutRotor(true);
    if (!turning && turn.on) {
      setRotation(0, false);  // at once: Leaflet's input handling must see an unturned map
      layoutRotor(false);
    }
    state.follow = mode;
    if (switchedOn) state.pendingInitialZoom = true;
    for (const button of el('follow').children) button.classList.toggle('active', button.dataset.mode === mode);
    if (reason) console.info('auto-pan', mode, reason);
    const t = state.targets.get(state.followTarget);
    if (mode !== 'off' && t && t.fix) autoPan(t.fix);
  }

  function autoPan(fix) {
    if (state.follow === 'off') return;
    if (fix.floor !== undefined && fix.floor !== null && fix.floor !== state.floor) selectFloor(fix.floor);
    const at = toLatLng(fix.x, fix.y);
    if (state.pendingInitialZoom) {
      state.pendingInitialZoom = false;
      const zoom = AUTO_PAN.initialZoomScale ? zoomForScale(AUTO_PAN.initialZoomScale) : map.getZoom();
      map.setView(at, zoom, { animate: false });
    }
    if (state.follow === 'recenter') {
      // Recentre when the dot leaves the wander extent: the visible extent scaled about its centre.
      const bounds = map.getBounds(), centre = bounds.getCenter();
      const halfWidth = (bounds.getEast() - bounds.getWest()) / 2 * AUTO_PAN.wanderExtentFactor;
      const halfHeight = (bounds.getNorth() - bounds.getSouth()) / 2 * AUTO_PAN.wanderExtentFactor;
      if (Math.abs(at.lng - centre.lng) > halfWidth || Math.abs(at.lat - centre.lat) > halfHeight) {
        map.panTo(at, { animate: true, duration: 0.5 });
      }
    } else if (state.follow === 'navigation' || state.follow === 'compassNavigation') {
      // The dot pinned at horizontal centre, navigationPointHeightFactor of the height up from the bottom.
      // The map is laid out about the pin (layoutRotor), so the pin is the container's centre.
      const size = map.getSize();
      const wanted = L.point(size.x / 2, size.y / 2);
      const now = map.latLngToContainerPoint(at);
      map.panBy(now.subtract(wanted), { animate: true, duration: 0.5 });
      const t = state.targets.get(state.followTarget);
      turnTo(t && t.display);
    }
  }

  for (const button of el('follow').children) {
    button.addEventListener('click', () => setFollow(button.dataset.mode, 'user choice'));
  }
  el('follow-target').addEventListener('change', (event) => {
    state.followTarget = event.target.value;
    state.pendingInitialZoom = state.follow !== 'off';
    const t = state.targets.get(state.followTarget);
    if (t && t.fix) { autoPan(t.fix); showInfo(t); }
    if (trail.on) setTrail(true);  // the trail follows the followed target
  });
  // A user pan or zoom turns follow off (the display engine's rule); programmatic pans do not fire these. The
  // listeners capture on #viewport, so they run before Leaflet's: on a turned map, pressing on it (the start of
  // a drag) already ends navigation and turns the map back, and Leaflet only ever handles an unturned map.
  const userMoved = (reason) => { if (state.follow !== 'off') setFollow('off', reason); };
  map.on('dragstart', () => userMoved('user drag'));
  const capture = { capture: true, passive: true };
  viewport.addEventListener('wheel', () => userMoved('user zoom'), capture);
  viewport.addEventListener('dblclick', () => userMoved('user zoom'), capture);
  viewport.addEventListener('touchstart', (event) => {
    if (event.touches.length > 1) userMoved('user zoom');
    else if (turn.on && rotor.contains(event.target)) userMoved('user drag');
  }, capture);
  viewport.addEventListener('mousedown', (event) => {
    if (turn.on && rotor.contains(event.target)) userMoved('user drag');
  }, capture);
  el('map-controls').addEventListener('click', () => userMoved('user zoom'), capture);
  viewport.addEventListener('mousemove', (event) => {
    if (!rotor.contains(event.target)) return;
    const at = latLngAtClient(event.clientX, event.clientY);
    const x = at.lng, y = at.lat, geo = geographic(x, y);
    el('info-pointer').textContent = `${x.toFixed(1)}, ${y.toFixed(1)} m` +
      (geo ? ` (${geo.lat.toFixed(6)}, ${geo.lon.toFixed(6)})` : '');
  });
  window.addEventListener('resize', () => { if (turn.on) layoutRotor(true); });

  // ---- the push feed, reconnected with exponential backoff ----
  let backoffMs = 1000;
  function setStatus(kind, text) {
    const status = el('status');
    status.className = 'status ' + kind;
    status.textContent = text;
  }
  function connect() {
    setStatus('connecting', 'connecting');
    const source = new EventSource('/api/feed' + feedQuery);
    source.onopen = () => { backoffMs = 1000; state.connected = true; setStatus('live', 'live'); };
    source.addEventListener('fix', (event) => onFix(JSON.parse(event.data)));
    source.addEventListener('display', (event) => onDisplay(JSON.parse(event.data)));
    source.addEventListener('removed', (event) => onRemoved(JSON.parse(event.data)));
    source.addEventListener('enter', refreshRooms);
    source.addEventListener('leave', refreshRooms);
    source.addEventListener('venue', reloadVenue);
    source.onerror = () => {
      source.close();
      state.connected = false;
      state.reconnects += 1;
      const wait = backoffMs;
      setStatus('reconnecting', `reconnecting in ${Math.round(wait / 1000)} s`);
      setTimeout(connect, wait);
      backoffMs = Math.min(backoffMs * 2, 30000);
    };
  }

  // For tests and debugging: where a target's marker is on the screen and on the plan.
  window.bluedot = {
    map, state, turn,
    // The rotation #rotor shows now, degrees clockwise on screen, from its computed transform (-180 ... 180].
    shownRotation() {
      const shown = getComputedStyle(rotor).transform;
      const m = shown === 'none' ? new DOMMatrixReadOnly() : new DOMMatrixReadOnly(shown);
      return Math.atan2(m.b, m.a) * 180 / Math.PI;
    },
    // Where a target's dot is as a fraction of #viewport's width and height.
    markerViewportFraction(id) {
      const t = state.targets.get(id);
      const element = t && t.marker.getElement();
      if (!element) return null;
      const r = element.getBoundingClientRect(), v = viewport.getBoundingClientRect();
      return [(r.left - v.left) / v.width, (r.top - v.top) / v.height];
    },
    markerScreenPosition(id) {
      const t = state.targets.get(id);
      const element = t && t.marker.getElement();
      if (!element) return null;
      const r = element.getBoundingClientRect();
      return { x: r.left, y: r.top };
    },
    markerPlanPosition(id) {
      const t = state.targets.get(id);
      return t && t.fix ? { x: t.fix.x, y: t.fix.y } : null;
    },
    // Each room's label as drawn: { id: occupancy } for the rooms the page shows.
    roomOccupancy() {
      const shown = {};
      for (const [id, shape] of roomShapes) shown[id] = Number(shape.label.dataset.occupancy);
      return shown;
    },
    setFollow,
    setTrail,
    // The trail as drawn: how many fixes the line has and the slider's time.
    trailShown() {
      return { on: trail.on, target: trail.target, points: trail.line ? trail.line.getLatLngs().length : 0,
        loaded: trail.points.length, until: Number(el('trail-time').value) };
    },
  };

  setFollow('recenter');
  // A campus view draws the picked site's venue (a site without one yet shows an error until it comes); a gateway
  // its own, without which the page cannot start.
  loadSites().then((campus) => (campus ? showSite(state.site) : loadVenue())).then(() => {
    if (state.site) setInterval(refreshSites, 5000);
    connect();
    refreshReceivers();
    setInterval(refreshReceivers, 3000);
    refreshRooms();
    setInterval(refreshRooms, 5000);
    setInterval(() => { for (const t of state.targets.values()) fade(t); }, 5000);
  }).catch((error) => showError('Cannot load the venue: ' + error.message));
})();
