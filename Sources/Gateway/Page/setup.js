// BlueDot set-up page: edits the venue file (floors and their plans, the geographic origin, anchors, rooms) and the
// device registry through the gateway's set-up routes, then saves them back. It also shows the predicted accuracy
// of the saved venue over the plan, and runs a quick calibration (record a few places, fit, apply). The venue object is edited in place,
// so members this page does not know (model, notes, an anchor's measuredPower) are saved as they came. The map is
// metric like the map page's (L.CRS.Simple: 1 unit = 1 m, lat = y, lng = x).
(function () {
  'use strict';

  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get('token');
  const AUTH = token ? { Authorization: 'Bearer ' + token } : {};
  const EMPTY_VENUE = { name: 'My venue', anchors: [], floors: [{ floor: 0, name: 'Ground floor', elevation: 0 }] };
  const SNAP_METRES = 0.4, SNAP_PIXELS = 10;
  const HEARD_EVERY_MS = 2000;
  const METRES_PER_PIXEL = 0.01;  // a new plan's scale until the user scales it
  const el = (id) => document.getElementById(id);
  const round = (value, digits = 2) => Number(value.toFixed(digits));
  const toLatLng = ([x, y]) => L.latLng(y, x);
  const copy = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

  const state = {
    ready: false, editable: false, venue: null, registry: { devices: [] }, floor: 0,
    mode: null,        // null, 'scale', 'align', 'place', 'room', 'room-name' or 'survey'
    pending: [],       // the points clicked for the mode: [x, y] in venue metres
    selected: null,    // the anchor id to place with the next click on the plan
    heard: [], strangers: 0,
    plans: new Map(),  // floor -> { image (its file name), url (a blob URL), width, height } as shown
    clicks: 0,
    gatewayMode: null, // the gateway's mode: 'self' or 'tag'
    accuracyOn: false,
    accuracy: null,    // GET /api/setup/accuracy's answer for the floor shown
    accuracyError: null,
    survey: { points: [], recording: false, busy: null, fit: null, target: '' },
  };
  let map, planOverlay = null, accuracyRenderer = null, legend = null;
  const anchorLayer = L.layerGroup(), roomLayer = L.layerGroup(), draftLayer = L.layerGroup();
  const accuracyLayer = L.layerGroup(), suggestionLayer = L.layerGroup(), surveyLayer = L.layerGroup();

  // ---- clicks: every press of the mouse and every Enter that commits a field, for "how many clicks to set up" ----
  const count = (event) => {
    if (event.isTrusted && (event.type === 'mousedown' ? event.button === 0 : event.key === 'Enter')) state.clicks += 1;
  };
  document.addEventListener('mousedown', count, true);
  document.addEventListener('keydown', count, true);

  // ---- HTTP ----
  async function api(method, path, body, type) {
    const headers = Object.assign({}, AUTH);
    const init = { method, headers };
    if (body !== undefined) {
      headers['Content-Type'] = type || 'application/json';
      init.body = type ? body : JSON.stringify(body, null, 1);
    }
    const response = await fetch(path, init);
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = { error: text }; }
    return { status: response.status, ok: response.ok, data: data || {} };
  }

  function setStatus(text, failed = false) {
    el('status').textContent = text;
    el('status').classList.toggle('bd-failed', failed);
  }

  // ---- errors: the JSON path in a message (anchors[3].x) names the field it is shown beside ----
  function clearErrors() {
    for (const field of document.querySelectorAll('.bd-field-error')) field.classList.remove('bd-field-error');
    for (const message of document.querySelectorAll('#panel .bd-error-message')) message.remove();
    el('setup-error').hidden = true;
  }

  function showTopError(text) {
    el('setup-error').textContent = text;
    el('setup-error').hidden = false;
  }

  function showFieldError(field, text) {
    field.classList.add('bd-field-error');
    const message = document.createElement('span');
    message.className = 'bd-error-message';
    message.textContent = text;
    if (field.tagName === 'TR') field.lastElementChild.appendChild(message);
    else field.insertAdjacentElement('afterend', message);
  }

  function fieldFor(path) {
    let m;
    if (path === 'name') return el('venue-name');
    if ((m = /^origin(?:\.(lat|lon|bearing))?$/.exec(path))) return el('origin-' + (m[1] || 'lat'));
    if ((m = /^(anchors|rooms|devices)\[(\d+)\](?:\.(\w+))?/.exec(path))) {
      const prefix = { anchors: 'anchor', rooms: 'room', devices: 'device' }[m[1]];
      return (m[3] && el(`${prefix}-${m[2]}-${m[3]}`)) || el(`${prefix}-row-${m[2]}`);
    }
    if ((m = /^floors\[(\d+)\](?:\.(\w+))?/.exec(path)) && state.venue.floors[Number(m[1])]) {
      selectFloor(state.venue.floors[Number(m[1])].floor);
      if (m[2] === 'plan') return el('plan-file');
      return (m[2] && el('floor-' + m[2])) || el('floor-select');
    }
    return null;
  }

  // Shows a server's error message beside the field that its JSON path names: the 400 body's `field` when it has
  // one, else the first part of the message naming a field on the page; at the top of the page when none does.
  function showError(message, path) {
    const text = String(message || 'unknown error');
    const parts = text.split(/:\s+/);
    const paths = (path ? [path] : []).concat(parts.map((part) => part.trim()));
    for (const candidate of paths) {
      const field = /^[A-Za-z]\w*/.test(candidate) && fieldFor(candidate);
      if (field) {
        const at = text.indexOf(candidate);
        showFieldError(field, at >= 0 ? text.slice(at) : text);
        return;
      }
    }
    showTopError(text);
  }

  // ---- the map: plan image, anchors, rooms and what is being drawn ----
  function floorEntry() { return state.venue.floors.find((f) => f.floor === state.floor); }
  const onFloor = (item) => (item.floor === undefined ? 0 : item.floor) === state.floor;

  function drawPlan() {
    if (planOverlay) planOverlay.remove();
    planOverlay = null;
    const f = floorEntry(), shown = state.plans.get(state.floor);
    const [low, high] = f && f.plan && f.plan.bounds ? f.plan.bounds : [];
    el('plan-size').textContent = low ? `${round(high[0] - low[0])} × ${round(high[1] - low[1])} m` : '';
    if (!low || !shown) return;
    planOverlay = L.imageOverlay(shown.url, L.latLngBounds(toLatLng(low), toLatLng(high))).addTo(map);
    planOverlay.bringToBack();
  }

  function drawAnchors() {
    anchorLayer.clearLayers();
    state.venue.anchors.forEach((anchor, index) => {
      if (!onFloor(anchor) || !Number.isFinite(anchor.x) || !Number.isFinite(anchor.y)) return;
      const icon = L.divIcon({ className: 'bd-setup-anchor', iconSize: [12, 12] });
      const marker = L.marker(toLatLng([anchor.x, anchor.y]), { icon, draggable: true, keyboard: false });
      const tip = document.createElement('span');
      tip.textContent = String(anchor.id);
      marker.bindTooltip(tip, { direction: 'top', offset: [0, -6] });
      marker.on('dragend', () => {
        const at = marker.getLatLng();
        anchor.x = round(at.lng);
        anchor.y = round(at.lat);
        renderAnchors();
      });
      marker.addTo(anchorLayer);
      if (marker.getElement()) marker.getElement().dataset.anchor = String(index);
    });
  }

  function drawRooms() {
    roomLayer.clearLayers();
    for (const room of state.venue.rooms || []) {
      if (!onFloor(room) || !Array.isArray(room.polygon)) continue;
      const className = room.exit ? 'bd-room bd-room-exit' : 'bd-room';
      const polygon = L.polygon(room.polygon.map(toLatLng), { className, weight: 1, interactive: false });
      const label = document.createElement('span');
      label.textContent = (room.name || room.id) + (room.exit ? ' (exit)' : '');
      polygon.bindTooltip(label, { permanent: true, direction: 'center', className: 'bd-room-label' });
      polygon.addTo(roomLayer);
    }
  }

  function drawDraft() {
    draftLayer.clearLayers();
    const points = state.pending.map(toLatLng);
    for (const point of points) {
      L.circleMarker(point, { radius: 4, className: 'bd-draft', interactive: false }).addTo(draftLayer);
    }
    if (points.length > 1) L.polyline(points, { className: 'bd-draft', interactive: false }).addTo(draftLayer);
  }

  function redraw() {
    drawPlan();
    drawRooms();
    drawAnchors();
    drawDraft();
  }

  // Everything on the floor: its plan, anchors and rooms; a 20 m x 15 m box when there is nothing yet.
  function fitFloor() {
    const points = [];
    const f = floorEntry();
    if (f && f.plan && f.plan.bounds) points.push(...f.plan.bounds);
    for (const a of state.venue.anchors.filter(onFloor)) {
      if (Number.isFinite(a.x) && Number.isFinite(a.y)) points.push([a.x, a.y]);
    }
    for (const r of (state.venue.rooms || []).filter(onFloor)) points.push(...(r.polygon || []));
    if (!points.length) points.push([0, 0], [20, 15]);
    // Clear of the zoom buttons (top left), so that the plan's corners can be clicked.
    map.invalidateSize(false);
    map.fitBounds(L.latLngBounds(points.map(toLatLng)),
      { paddingTopLeft: [60, 24], paddingBottomRight: [24, 24], animate: false });
  }

  // ---- modes: what the next click on the plan does ----
  const HINTS = {
    scale: ['Click the first of two points a known distance apart', 'Click the second point',
      'Type the real distance between the two points (on the right)'],
    align: ['Click a point whose venue coordinates you know', 'Type the venue coordinates of that point (on the right)'],
    room: ['Click the room\'s corners; click the first one again or press Finish to close it'],
    'room-name': ['Name the room (on the right)'],
  };

  function setMode(mode) {
    state.mode = mode;
    state.pending = [];
    if (mode !== 'place') state.selected = null;
    el('scale-form').hidden = true;
    el('align-form').hidden = true;
    el('room-form').hidden = mode !== 'room-name';
    showHint();
    drawDraft();
    renderHeard();
  }

  function showHint() {
    let text = 'Pick an anchor heard, draw a room, or scale the plan';
    if (state.mode === 'place') text = `Click the plan where ${state.selected} is`;
    else if (state.mode === 'survey') text = `Click the plan where you stand, then hold still for ${surveySeconds()} s`;
    else if (state.survey.busy) text = state.survey.busy.hint;
    else if (HINTS[state.mode]) text = HINTS[state.mode][Math.min(state.pending.length, HINTS[state.mode].length - 1)];
    el('hint-text').textContent = text;
    el('mode-cancel').hidden = !state.mode;
    el('room-finish').disabled = !(state.mode === 'room' && state.pending.length >= 3);
    el('survey-record').classList.toggle('bd-armed', state.mode === 'survey');
  }

  function onMapClick(event) {
    const at = [round(event.latlng.lng, 3), round(event.latlng.lat, 3)];
    if (state.mode === 'scale' && state.pending.length < 2) {
      state.pending.push(at);
      if (state.pending.length === 2) {
        el('scale-form').hidden = false;
        el('scale-distance').focus();
      }
      showHint();
    } else if (state.mode === 'align' && state.pending.length < 1) {
      state.pending.push(at);
      el('align-x').value = round(at[0]);
      el('align-y').value = round(at[1]);
      el('align-form').hidden = false;
      el('align-x').focus();
      showHint();
    } else if (state.mode === 'place') {
      placeAnchor(state.selected, [round(at[0]), round(at[1])]);
      return;
    } else if (state.mode === 'room') {
      addCorner(event.latlng);
      return;
    } else if (state.mode === 'survey') {
      recordAt([round(at[0]), round(at[1])]);
      return;
    }
    drawDraft();
  }

  // ---- floors and plans ----
  function renderFloors() {
    const select = el('floor-select');
    select.textContent = '';
    for (const f of state.venue.floors) {
      const option = document.createElement('option');
      option.value = String(f.floor);
      option.textContent = f.name || 'Floor ' + f.floor;
      select.appendChild(option);
    }
    select.value = String(state.floor);
    const f = floorEntry();
    el('floor-name').value = f && f.name !== undefined ? f.name : '';
    el('floor-elevation').value = f && f.elevation !== undefined ? f.elevation : '';
    el('plan-scale').disabled = el('plan-align').disabled = !(f && f.plan && state.plans.has(state.floor));
  }

  function selectFloor(floor) {
    if (state.floor === floor) return;
    state.floor = floor;
    setMode(null);
    renderFloors();
    redraw();
    fitFloor();
    drawSurvey();
    if (state.accuracyOn) loadAccuracy();
  }

  function addFloor() {
    const floors = state.venue.floors;
    const last = floors[floors.length - 1];
    const floor = last ? Math.max(...floors.map((f) => f.floor)) + 1 : 0;
    floors.push({ floor, name: 'Floor ' + floor, elevation: last ? (Number(last.elevation) || 0) + 3 : 0 });
    selectFloor(floor);
  }

  // The picture's size in pixels, decoded by the browser.
  function imageSize(url) {
    return new Promise((resolve, reject) => {
      const image = new Image();
      image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
      image.onerror = () => reject(new Error('cannot read the picture'));
      image.src = url;
    });
  }

  // Uploads a plan picture and shows it at once from the file. A new plan spans 1 cm per pixel from the old plan's
  // first corner (or 0, 0) until it is scaled.
  async function uploadPlan(file) {
    clearErrors();
    if (!file) return;
    const failed = (text) => { setStatus('plan not uploaded', true); showFieldError(el('plan-file'), text); };
    if (file.type !== 'image/png' && file.type !== 'image/jpeg') { failed('a PNG or JPEG picture, please'); return; }
    const url = URL.createObjectURL(file);
    let size;
    try { size = await imageSize(url); } catch (error) { failed(error.message); return; }
    setStatus('uploading the plan…');
    const floor = state.floor;
    const response = await api('PUT', '/api/venue/plan/' + floor, file, file.type);
    if (!response.ok) { failed(response.data.error || 'upload failed: HTTP ' + response.status); return; }
    const f = state.venue.floors.find((entry) => entry.floor === floor);
    const low = f.plan && f.plan.bounds ? f.plan.bounds[0] : [0, 0];
    f.plan = Object.assign(f.plan || {}, { image: response.data.image, bounds: [low,
      [round(low[0] + size.width * METRES_PER_PIXEL, 3), round(low[1] + size.height * METRES_PER_PIXEL, 3)]] });
    const old = state.plans.get(floor);
    if (old) URL.revokeObjectURL(old.url);
    state.plans.set(floor, { image: response.data.image, url, width: size.width, height: size.height });
    setStatus('plan uploaded: scale it, then save the venue');
    renderFloors();
    drawPlan();
    fitFloor();
  }

  // Scales the plan so that the two clicked points are the typed distance apart: metres per image pixel from the
  // points' distance in pixels; the plan keeps its aspect ratio and its first corner.
  function applyScale() {
    if (state.mode !== 'scale' || state.pending.length < 2) return;
    clearErrors();
    const distance = Number(el('scale-distance').value);
    if (!(distance > 0)) { showFieldError(el('scale-distance'), 'a distance in metres, above 0'); return; }
    const f = floorEntry(), shown = state.plans.get(state.floor);
    const [[x0, y0], [x1, y1]] = f.plan.bounds;
    const toPixels = ([x, y]) => [(x - x0) / (x1 - x0) * shown.width, (y - y0) / (y1 - y0) * shown.height];
    const [a, b] = state.pending.map(toPixels);
    const pixels = Math.hypot(a[0] - b[0], a[1] - b[1]);
    if (pixels < 1) { showFieldError(el('scale-distance'), 'the two points are the same: click two apart'); return; }
    const metresPerPixel = distance / pixels;
    const x = round(x0 + shown.width * metresPerPixel, 3), y = round(y0 + shown.height * metresPerPixel, 3);
    f.plan.bounds = [[x0, y0], [x, y]];
    setMode(null);
    setStatus(`plan scaled to ${round(shown.width * metresPerPixel)} m wide`);
    drawPlan();
    fitFloor();
  }

  // Shifts the plan so that the clicked point has the typed venue coordinates.
  function applyAlign() {
    if (state.mode !== 'align' || state.pending.length < 1) return;
    clearErrors();
    const [x, y] = ['align-x', 'align-y'].map((id) => (el(id).value.trim() === '' ? NaN : Number(el(id).value)));
    for (const [id, value] of [['align-x', x], ['align-y', y]]) {
      if (!Number.isFinite(value)) { showFieldError(el(id), 'a number of metres'); return; }
    }
    const f = floorEntry(), [at] = state.pending;
    const dx = x - at[0], dy = y - at[1];
    f.plan.bounds = f.plan.bounds.map(([px, py]) => [round(px + dx, 3), round(py + dy, 3)]);
    setMode(null);
    setStatus('plan aligned');
    drawPlan();
    fitFloor();
  }

  // ---- geographic origin: typed, checked against its ranges, set when all three are good ----
  const ORIGIN_RANGES = { lat: [-90, 90, '-90 … 90'], lon: [-180, 180, '-180 … 180'], bearing: [0, 360, '0 … 360'] };

  function renderOrigin() {
    for (const key of Object.keys(ORIGIN_RANGES)) {
      const origin = state.venue.origin || {};
      el('origin-' + key).value = origin[key] === undefined ? '' : origin[key];
    }
  }

  function editOrigin() {
    clearErrors();
    const values = {};
    const texts = Object.keys(ORIGIN_RANGES).map((key) => el('origin-' + key).value.trim());
    if (texts.every((text) => text === '')) { delete state.venue.origin; return; }
    let good = true;
    for (const [key, [low, high, range]] of Object.entries(ORIGIN_RANGES)) {
      const text = el('origin-' + key).value.trim(), value = Number(text);
      if (text === '' || !Number.isFinite(value) || value < low || value > high) {
        showFieldError(el('origin-' + key), `${key}: a number in ${range}`);
        good = false;
      }
      values[key] = value;
    }
    if (good) state.venue.origin = Object.assign(state.venue.origin || {}, values);
  }

  // ---- anchors: heard now (polled), placed by a click, listed for editing ----
  const heardItems = new Map();  // id -> its list item, kept across polls so that a pick is not lost

  async function pollHeard() {
    try {
      const response = await api('GET', '/api/heard');
      if (response.ok) {
        state.heard = (response.data.heard || []).slice().sort((a, b) => b.rssi - a.rssi);
        state.strangers = response.data.strangers || 0;
        renderHeard();
      }
    } catch (_) { /* the next poll tries again */ }
    setTimeout(pollHeard, HEARD_EVERY_MS);
  }

  // `placed`: an anchor of the venue being edited (the server's `placed` is the saved venue's).
  function renderHeard() {
    const list = el('heard');
    const placed = new Set(state.venue.anchors.map((a) => a.id));
    const shown = new Set();
    for (const entry of state.heard) {
      shown.add(entry.id);
      let item = heardItems.get(entry.id);
      if (!item) {
        item = document.createElement('li');
        item.className = 'bd-heard';
        item.dataset.id = entry.id;
        item.addEventListener('click', () => pickAnchor(item.dataset.id));
        heardItems.set(entry.id, item);
      }
      item.textContent = '';
      const add = (tag, className, text) => {
        const part = document.createElement(tag);
        part.className = className;
        part.textContent = text;
        item.appendChild(part);
      };
      add('span', 'bd-rssi', `${Math.round(entry.rssi)} dBm`);
      if (entry.name) add('b', 'bd-name', entry.name);
      add('code', 'bd-id', entry.id);
      add('span', 'bd-kind', entry.kind);
      if (placed.has(entry.id)) add('span', 'bd-placed', 'placed');
      item.classList.toggle('bd-selected', state.mode === 'place' && state.selected === entry.id);
      // In the order heard; an item moves only when its place changes, so that a click on it is not lost.
      const at = list.children[shown.size - 1];
      if (at !== item) list.insertBefore(item, at || null);
    }
    for (const [id, item] of heardItems) {
      if (!shown.has(id)) { item.remove(); heardItems.delete(id); }
    }
    el('heard-strangers').textContent = state.heard.length === 0 && !state.strangers ? 'nothing heard yet'
      : state.strangers ? `and ${state.strangers} reports from devices not enrolled` : '';
    renderSurveyTargets();
  }

  function pickAnchor(id) {
    if (state.mode === 'place' && state.selected === id) { setMode(null); return; }
    state.selected = id;
    setMode('place');
  }

  // Puts the anchor at a point of the current floor: a new one at the typed height, or an existing one moved.
  function placeAnchor(id, [x, y]) {
    let anchor = state.venue.anchors.find((a) => a.id === id);
    if (anchor) {
      Object.assign(anchor, { x, y, floor: state.floor });
    } else {
      const z = Number(el('anchor-z').value);
      const typed = el('anchor-z').value.trim() !== '' && Number.isFinite(z);
      anchor = { id, x, y, z: typed ? z : 2.0, floor: state.floor };
      state.venue.anchors.push(anchor);
    }
    setMode(null);
    setStatus(`placed ${id}: save the venue to use it`);
    renderAnchors();
  }

  // A field's text as the venue keeps it: a number when it reads as one, else the text (the server then names it).
  const fieldValue = (text) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

  function input(id, value, onChange, size) {
    const field = document.createElement('input');
    field.type = 'text';
    field.id = id;
    field.value = value === undefined || value === null ? '' : String(value);
    if (size) field.size = size;
    field.addEventListener('change', () => onChange(field.value, field));
    return field;
  }

  function button(id, text, onClick) {
    const b = document.createElement('button');
    b.id = id;
    b.textContent = text;
    b.addEventListener('click', onClick);
    return b;
  }

  function row(id, cells) {
    const tr = document.createElement('tr');
    tr.id = id;
    for (const cell of cells) {
      const td = document.createElement('td');
      if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell;
      tr.appendChild(td);
    }
    return tr;
  }

  function renderAnchors() {
    const body = el('anchors-table').tBodies[0];
    body.textContent = '';
    state.venue.anchors.forEach((anchor, i) => {
      const set = (key) => (text) => {
        anchor[key] = key === 'id' ? text.trim() : fieldValue(text);
        drawAnchors();
        renderHeard();
      };
      body.appendChild(row('anchor-row-' + i, [
        input(`anchor-${i}-id`, anchor.id, set('id'), 16),
        input(`anchor-${i}-floor`, anchor.floor, set('floor'), 2),
        input(`anchor-${i}-x`, anchor.x, set('x'), 5),
        input(`anchor-${i}-y`, anchor.y, set('y'), 5),
        input(`anchor-${i}-z`, anchor.z, set('z'), 4),
        button(`anchor-${i}-remove`, 'Remove', () => { state.venue.anchors.splice(i, 1); renderAnchors(); }),
      ]));
    });
    drawAnchors();
    renderHeard();
  }

  // ---- rooms: corners clicked on the plan, snapped to the corners already there ----
  function snapTargets() {
    const points = [];
    for (const room of (state.venue.rooms || []).filter(onFloor)) points.push(...(room.polygon || []));
    const f = floorEntry();
    if (f && f.plan && f.plan.bounds) {
      const [[x0, y0], [x1, y1]] = f.plan.bounds;
      points.push([x0, y0], [x1, y0], [x1, y1], [x0, y1]);
    }
    if (state.pending.length) points.push(state.pending[0]);
    return points;
  }

  // The corner nearest the click within 0.4 m or 10 px, or the click itself.
  function snap(latlng) {
    const clicked = map.latLngToContainerPoint(latlng);
    let best = null, bestMetres = Infinity;
    for (const point of snapTargets()) {
      const metres = Math.hypot(point[0] - latlng.lng, point[1] - latlng.lat);
      const pixels = clicked.distanceTo(map.latLngToContainerPoint(toLatLng(point)));
      if ((metres <= SNAP_METRES || pixels <= SNAP_PIXELS) && metres < bestMetres) {
        best = point;
        bestMetres = metres;
      }
    }
    return best ? [best[0], best[1]] : [round(latlng.lng), round(latlng.lat)];
  }

  function addCorner(latlng) {
    const point = snap(latlng);
    const first = state.pending[0];
    if (state.pending.length >= 3 && point[0] === first[0] && point[1] === first[1]) { finishRoom(); return; }
    state.pending.push(point);
    showHint();
    drawDraft();
  }

  function finishRoom() {
    if (state.pending.length < 3) return;
    const polygon = state.pending;
    setMode('room-name');
    state.pending = polygon;
    drawDraft();
    el('room-name').value = '';
    el('room-id').value = '';
    el('room-id').dataset.edited = '';
    el('room-exit').checked = false;
    el('room-name').focus();
  }

  // A room id from its name: lower case letters, digits and dashes ("Server room" -> "server-room").
  function slug(name) {
    return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
  }

  function addRoom() {
    clearErrors();
    const name = el('room-name').value.trim();
    if (!name) { showFieldError(el('room-name'), 'a name, please'); return; }
    const rooms = state.venue.rooms || (state.venue.rooms = []);
    const taken = new Set(rooms.map((r) => r.id));
    let id = el('room-id').value.trim() || slug(name) || 'room';
    if (taken.has(id)) { let n = 2; while (taken.has(`${id}-${n}`)) n += 1; id = `${id}-${n}`; }
    const room = { id, name, floor: state.floor, polygon: state.pending };
    if (el('room-exit').checked) room.exit = true;
    rooms.push(room);
    setMode(null);
    setStatus(`room ${name} added: save the venue to use it`);
    renderRooms();
  }

  function renderRooms() {
    const body = el('rooms-table').tBodies[0];
    body.textContent = '';
    (state.venue.rooms || []).forEach((room, i) => {
      const exit = document.createElement('input');
      exit.type = 'checkbox';
      exit.id = `room-${i}-exit`;
      exit.checked = !!room.exit;
      exit.addEventListener('change', () => { if (exit.checked) room.exit = true; else delete room.exit; drawRooms(); });
      body.appendChild(row('room-row-' + i, [
        input(`room-${i}-name`, room.name, (text) => { room.name = text; drawRooms(); }, 12),
        input(`room-${i}-id`, room.id, (text) => { room.id = text.trim(); }, 10),
        String(room.floor === undefined ? '' : room.floor),
        exit,
        button(`room-${i}-remove`, 'Remove', () => { state.venue.rooms.splice(i, 1); renderRooms(); }),
      ]));
    });
    drawRooms();
  }

  // ---- devices: the registry file, edited as rows ----
  function renderDevices() {
    const body = el('devices-table').tBodies[0];
    body.textContent = '';
    state.registry.devices.forEach((device, i) => {
      const set = (key) => (text) => {
        if (text.trim() === '' && key !== 'id') delete device[key]; else device[key] = text.trim();
      };
      body.appendChild(row('device-row-' + i, [
        input(`device-${i}-id`, device.id, set('id'), 12),
        input(`device-${i}-name`, device.name, set('name'), 14),
        input(`device-${i}-irk`, device.irk, set('irk'), 34),
        button(`device-${i}-remove`, 'Remove', () => { state.registry.devices.splice(i, 1); renderDevices(); }),
      ]));
    });
  }

  async function importBlueZ() {
    clearErrors();
    const response = await api('GET', '/api/devices/bluez');
    const list = el('bluez-list');
    list.textContent = '';
    if (!response.ok) { showTopError('Import from BlueZ: ' + (response.data.error || response.status)); return; }
    for (const note of response.data.notes || []) {
      const item = document.createElement('li');
      item.className = 'muted';
      item.textContent = note;
      list.appendChild(item);
    }
    (response.data.devices || []).forEach((found, i) => {
      const item = document.createElement('li');
      item.textContent = `${found.name || found.id} (${found.id}) `;
      const irk = String(found.irk || '').toLowerCase();
      const known = state.registry.devices.some((d) => irk && String(d.irk || '').toLowerCase() === irk);
      const add = button(`bluez-add-${i}`, known ? 'Added' : 'Add', () => {
        state.registry.devices.push(copy(found));
        add.disabled = true;
        add.textContent = 'Added';
        renderDevices();
      });
      add.disabled = known;
      item.appendChild(add);
      list.appendChild(item);
    });
    if (!list.children.length) list.textContent = 'BlueZ keeps no device keys here.';
  }

  async function saveDevices() {
    clearErrors();
    const response = await api('PUT', '/api/devices', state.registry);
    if (response.ok) { setStatus(`devices saved: ${response.data.devices}`); return; }
    setStatus('devices not saved', true);
    showError(response.data.error || 'HTTP ' + response.status, response.data.field);
  }

  // ---- the venue: load, save ----
  async function loadVenue() {
    const response = await api('GET', '/api/venue/file');
    if (response.status === 404) state.venue = copy(EMPTY_VENUE);
    else if (response.ok) state.venue = response.data;
    else throw new Error('GET /api/venue/file: ' + (response.data.error || response.status));
    const venue = state.venue;
    if (!Array.isArray(venue.anchors)) venue.anchors = [];
    if (!Array.isArray(venue.floors) || !venue.floors.length) venue.floors = copy(EMPTY_VENUE.floors);
    if (!floorEntry()) state.floor = venue.floors[0].floor;
    // The saved plans, unless the one shown is the same picture.
    for (const f of venue.floors) {
      const shown = state.plans.get(f.floor);
      if (shown && f.plan && shown.image === f.plan.image) continue;
      if (shown) URL.revokeObjectURL(shown.url);
      state.plans.delete(f.floor);
      if (!f.plan || !f.plan.image) continue;
      const image = await fetch('/api/venue/plan/' + f.floor, { headers: AUTH })
        .then((r) => (r.ok ? r.blob() : null)).catch(() => null);
      if (!image) continue;
      const url = URL.createObjectURL(image);
      const size = await imageSize(url).catch(() => null);
      if (size) state.plans.set(f.floor, Object.assign({ image: f.plan.image, url }, size));
    }
    el('venue-name').value = venue.name || '';
    renderFloors();
    renderOrigin();
    renderAnchors();
    renderRooms();
    redraw();
  }

  // Saves the venue; true when saved. The accuracy map, of the saved venue, is drawn again.
  async function saveVenue() {
    clearErrors();
    setStatus('saving…');
    const response = await api('PUT', '/api/venue', state.venue);
    if (!response.ok) {
      setStatus('venue not saved', true);
      showError(response.data.error || 'HTTP ' + response.status, response.data.field);
      return false;
    }
    await loadVenue();
    setStatus(`saved: ${response.data.anchors} anchors, ${response.data.rooms} rooms`);
    if (state.accuracyOn) await loadAccuracy();
    return true;
  }

  async function loadDevices() {
    const response = await api('GET', '/api/devices');
    state.registry = response.ok && Array.isArray(response.data.devices) ? response.data : { devices: [] };
    if (!response.ok) showTopError('GET /api/devices: ' + (response.data.error || response.status));
    renderDevices();
  }

  // ---- the predicted accuracy of the saved venue: a grid of cells over the plan, coloured by the bound ----
  const ACCURACY_CLASSES = [  // upper bound (m), colour, legend text
    [1, '#1e9e48', 'under 1 m'], [2, '#f2c12e', '1 – 2 m'], [4, '#f08424', '2 – 4 m'], [Infinity, '#d93025', 'over 4 m'],
  ];
  let accuracySequence = 0, hatch = null;

  // Where fewer than 2 anchors are heard: grey stripes (a canvas pattern is a fill style like a colour).
  function noFixFill() {
    if (hatch) return hatch;
    const tile = document.createElement('canvas');
    tile.width = tile.height = 6;
    const ctx = tile.getContext('2d');
    ctx.fillStyle = '#e8eaed';
    ctx.fillRect(0, 0, 6, 6);
    ctx.strokeStyle = '#80868b';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(-1, 7); ctx.lineTo(7, -1);
    ctx.moveTo(5, 7); ctx.lineTo(7, 5);
    ctx.moveTo(-1, 1); ctx.lineTo(1, -1);
    ctx.stroke();
    hatch = ctx.createPattern(tile, 'repeat') || '#9aa0a6';
    return hatch;
  }

  const accuracyColour = (crlb) => ACCURACY_CLASSES.find(([high]) => crlb < high)[1];
  const metres = (value) => (Number.isFinite(value) ? `${round(value, 1)} m` : '–');

  async function loadAccuracy() {
    const sequence = ++accuracySequence, floor = state.floor;
    el('accuracy-figures').textContent = 'loading…';
    let response;
    try { response = await api('GET', '/api/setup/accuracy?floor=' + floor); } catch (error) {
      response = { ok: false, status: 0, data: { error: error.message } };
    }
    if (sequence !== accuracySequence || !state.accuracyOn) return;
    state.accuracy = response.ok ? response.data : null;
    state.accuracyError = response.ok ? null : (response.data.error || 'HTTP ' + response.status);
    drawAccuracy();
  }

  function drawAccuracy() {
    accuracyLayer.clearLayers();
    suggestionLayer.clearLayers();
    const data = state.accuracyOn ? state.accuracy : null;
    const figures = el('accuracy-figures'), note = el('accuracy-note');
    note.hidden = true;
    if (legend) legend.remove();
    legend = null;
    if (!state.accuracyOn) { figures.textContent = ''; return; }
    if (!data) {
      figures.textContent = '';
      if (state.accuracyError) { note.textContent = 'No accuracy map: ' + state.accuracyError; note.hidden = false; }
      return;
    }
    const half = (Number(data.cellMeters) || 0.5) / 2;
    let cells = 0, noFix = 0;
    for (const cell of data.points || []) {
      if (!Number.isFinite(cell.x) || !Number.isFinite(cell.y)) continue;
      const known = Number.isFinite(cell.crlb);
      if (!known) noFix += 1;
      L.rectangle(L.latLngBounds(toLatLng([cell.x - half, cell.y - half]), toLatLng([cell.x + half, cell.y + half])), {
        renderer: accuracyRenderer, interactive: false, stroke: false,
        fillColor: known ? accuracyColour(cell.crlb) : noFixFill(), fillOpacity: known ? 0.42 : 0.5,
      }).addTo(accuracyLayer);
      cells += 1;
    }
    figures.textContent = `half the floor within ${metres(data.p50)}, 90 % within ${metres(data.p90)}`;
    figures.dataset.p50 = data.p50;
    figures.dataset.p90 = data.p90;
    const s = data.suggestion;
    let suggestion = '';
    if (s && Number.isFinite(s.x) && Number.isFinite(s.y)) {
      const fine = (value) => (Number.isFinite(value) ? `${round(value, 2)} m` : '–');
      suggestion = `One more anchor at (${round(s.x, 1)}, ${round(s.y, 1)}) would help most: 90 % within `
        + `${fine(s.p90After)} instead of ${fine(data.p90)}.`;
      const icon = L.divIcon({ className: 'bd-suggestion', iconSize: [20, 20], html: '+' });
      const marker = L.marker(toLatLng([s.x, s.y]), { icon, keyboard: false, interactive: true });
      marker.bindTooltip(`One more anchor here: p90 ${fine(data.p90)} → ${fine(s.p90After)}`,
        { direction: 'top', offset: [0, -10] });
      marker.addTo(suggestionLayer);
    }
    const cellsNote = `Cells of ${round(half * 2, 2)} m; ${noFix ? `${noFix} where fewer than 2 anchors reach (striped)` : 'no fix missing'}. `;
    note.textContent = cellsNote + suggestion + ' This is the saved venue: save to see a change.';
    note.hidden = false;
    legend = L.control({ position: 'bottomright' });
    legend.onAdd = () => {
      const box = L.DomUtil.create('div', 'bd-legend');
      box.id = 'accuracy-legend';
      const title = document.createElement('b');
      title.textContent = 'Predicted accuracy (saved venue)';
      box.appendChild(title);
      const line = (swatch, text) => {
        const row = document.createElement('div');
        const i = document.createElement('i');
        if (swatch) i.style.background = swatch; else i.className = 'bd-none';
        row.append(i, text);
        box.appendChild(row);
      };
      for (const [, colour, text] of ACCURACY_CLASSES) line(colour, text);
      line(null, 'no fix (< 2 anchors)');
      const summary = document.createElement('div');
      summary.textContent = `p50 ${metres(data.p50)} · p90 ${metres(data.p90)}`;
      box.appendChild(summary);
      return box;
    };
    legend.addTo(map);
    return cells;
  }

  function toggleAccuracy() {
    state.accuracyOn = el('accuracy-toggle').checked;
    if (state.accuracyOn) loadAccuracy(); else { accuracySequence += 1; state.accuracy = null; drawAccuracy(); }
  }

  // ---- quick calibration: points recorded where the user stands, a fit of the anchors' models, applied ----
  function surveySeconds() {
    const seconds = Number(el('survey-seconds').value);
    return Number.isFinite(seconds) && seconds >= 2 && seconds <= 30 ? seconds : 10;
  }

  function surveyProblem(text) {
    el('survey-error').textContent = text;
    el('survey-error').hidden = !text;
  }

  // Tag mode: the devices and beacons heard, one of which the user carries. The pick is kept while it is not heard.
  function renderSurveyTargets() {
    const tag = state.gatewayMode === 'tag';
    const select = el('survey-target');
    const heard = state.heard.filter((h) => h.kind === 'device' || h.kind === 'beacon');
    if (tag && !state.survey.target && heard.length === 1) state.survey.target = heard[0].id;
    const ids = heard.map((h) => h.id);
    if (state.survey.target && !ids.includes(state.survey.target)) ids.push(state.survey.target);
    el('survey-target-row').hidden = !tag || !ids.length;
    const none = el('survey-target-none');
    none.hidden = tag ? ids.length > 0 : false;
    none.textContent = tag
      ? 'No enrolled device is heard. Enrol the tag or phone you will carry in Devices (above), save the devices, '
        + 'and switch it on: it is listed here once heard.'
      : 'The gateway itself is recorded: carry it to each place.';
    const key = ids.join('\n') + '|' + heard.map((h) => h.name || '').join('\n');
    if (select.dataset.key !== key) {
      select.dataset.key = key;
      select.textContent = '';
      if (!state.survey.target) select.appendChild(new Option('pick the one you carry', ''));
      for (const id of ids) {
        const entry = heard.find((h) => h.id === id);
        const label = entry ? `${entry.name && entry.name !== id ? entry.name + ' · ' : ''}${id} (${entry.kind})`
          : `${id} (not heard now)`;
        select.appendChild(new Option(label, id));
      }
    }
    if (select.value !== state.survey.target) select.value = state.survey.target;
  }

  let surveyWatch = null;

  async function loadSurvey() {
    const response = await api('GET', '/api/setup/survey');
    if (!response.ok) { surveyProblem('Recorded places: ' + (response.data.error || 'HTTP ' + response.status)); return; }
    state.survey.points = Array.isArray(response.data.points) ? response.data.points : [];
    state.survey.recording = !!response.data.recording;
    renderSurvey();
    // A place recorded from elsewhere (another browser): its point is listed when it is done.
    if (state.survey.recording && !state.survey.busy && !surveyWatch) {
      surveyWatch = setTimeout(() => { surveyWatch = null; loadSurvey(); }, 2000);
    }
  }

  function armSurvey() {
    if (state.mode === 'survey') { setMode(null); return; }
    surveyProblem('');
    if (state.survey.busy) return;
    const text = el('survey-seconds').value.trim(), seconds = Number(text);
    if (!(Number.isFinite(seconds) && seconds >= 2 && seconds <= 30)) {
      surveyProblem('Recording time: 2 to 30 seconds');
      return;
    }
    if (state.gatewayMode === 'tag' && !state.survey.target) {
      surveyProblem('Pick the device you carry first (enrol it in Devices if it is not listed).');
      return;
    }
    setMode('survey');
  }

  // Records the place clicked: the request is held for the recording's seconds, a countdown meanwhile.
  async function recordAt([x, y]) {
    const seconds = surveySeconds();
    setMode(null);
    surveyProblem('');
    const body = { x, y, floor: state.floor, seconds };
    if (state.gatewayMode === 'tag') body.target = state.survey.target;
    const started = Date.now();
    const busy = state.survey.busy = { x, y, floor: state.floor, hint: '' };
    const countdown = el('survey-countdown');
    countdown.classList.remove('bd-empty');
    const tick = () => {
      const left = Math.ceil(seconds - (Date.now() - started) / 1000);
      busy.hint = left > 0 ? `Recording at (${x}, ${y}): hold still, ${left} s` : `Recording at (${x}, ${y}): finishing…`;
      countdown.textContent = left > 0 ? `hold still: ${left} s` : 'finishing…';
      showHint();
    };
    tick();
    const timer = setInterval(tick, 250);
    renderSurvey();
    let response;
    try { response = await api('PUT', '/api/setup/survey', body); } catch (error) {
      response = { ok: false, status: 0, data: { error: error.message } };
    }
    clearInterval(timer);
    state.survey.busy = null;
    countdown.textContent = '';
    showHint();
    if (!response.ok) {
      const reason = response.data.error || 'HTTP ' + response.status;
      surveyProblem(response.status === 409 ? `Not recorded: ${reason}. Wait for it to finish, then record again.`
        : `Not recorded: ${reason}`);
      await loadSurvey();
      return;
    }
    const point = response.data.point || body;
    if (!point.samples) {
      countdown.textContent = 'nothing heard there';
      countdown.classList.add('bd-empty');
      surveyProblem(`Nothing was heard at (${x}, ${y}) in ${seconds} s: is ${body.target || 'the gateway'} with you and on? `
        + 'The place is kept but adds nothing to the fit.');
    } else {
      countdown.textContent = `recorded: ${point.samples} samples from ${point.anchors} anchors`;
    }
    setStatus(response.data.points ? `place ${response.data.points} recorded` : 'place recorded');
    await loadSurvey();
  }

  function drawSurvey() {
    surveyLayer.clearLayers();
    const marker = (point, className, text) => {
      const m = L.circleMarker(toLatLng([point.x, point.y]), { radius: 7, className, interactive: true });
      m.bindTooltip(text, { direction: 'top', offset: [0, -6] });
      m.addTo(surveyLayer);
    };
    state.survey.points.forEach((point, i) => {
      if (!onFloor(point)) return;
      const empty = !point.samples;
      marker(point, 'bd-survey-point' + (empty ? ' bd-empty' : ''),
        `Place ${i + 1}: ${point.samples || 0} samples, ${point.anchors || 0} anchors` + (empty ? ' (nothing heard)' : ''));
    });
    const busy = state.survey.busy;
    if (busy && busy.floor === state.floor) marker(busy, 'bd-survey-point bd-recording', 'Recording here');
  }

  function renderSurvey() {
    const list = el('survey-points');
    list.textContent = '';
    state.survey.points.forEach((point, i) => {
      const item = document.createElement('li');
      item.id = 'survey-point-' + i;
      const empty = !point.samples;
      item.className = empty ? 'bd-empty' : '';
      item.textContent = `${i + 1}. (${round(point.x, 2)}, ${round(point.y, 2)}) floor ${point.floor}: `
        + (empty ? 'nothing heard: record it again' : `${point.samples} samples from ${point.anchors} anchors`);
      list.appendChild(item);
    });
    if (state.survey.recording && !state.survey.busy) {
      const item = document.createElement('li');
      item.className = 'muted';
      item.textContent = 'A place is being recorded from elsewhere…';
      list.appendChild(item);
    }
    el('survey-record').disabled = !!state.survey.busy;
    const enough = state.survey.points.length >= 3;
    el('survey-fit').disabled = !enough || !!state.survey.busy;
    el('survey-fit').title = enough ? 'Fit the anchors\' models from the places recorded'
      : `From 3 recorded places on (${state.survey.points.length} so far)`;
    drawSurvey();
  }

  async function fitSurvey() {
    surveyProblem('');
    el('survey-fit-summary').textContent = 'fitting…';
    const response = await api('GET', '/api/setup/fit');
    state.survey.fit = response.ok ? response.data : null;
    el('survey-fit-summary').textContent = '';
    if (!response.ok) {
      surveyProblem('Fit: ' + (response.data.error || 'HTTP ' + response.status));
      renderFit();
      return;
    }
    renderFit();
  }

  function renderFit() {
    const fit = state.survey.fit, table = el('fit-table'), body = table.tBodies[0];
    body.textContent = '';
    table.hidden = !fit;
    el('survey-apply').hidden = !fit;
    if (!fit) return;
    const results = fit.anchors || {};
    const ids = Object.keys(results).sort();
    for (const id of ids) {
      const r = results[id] || {};
      const flags = document.createElement('span');
      flags.className = r.flags && r.flags.length ? 'bd-flag' : 'muted';
      flags.textContent = r.flags && r.flags.length ? r.flags.join(', ') : 'ok';
      body.appendChild(row('fit-row-' + id, [id,
        Number.isFinite(r.measuredPower) ? `${round(r.measuredPower, 1)} dBm` : '–',
        Number.isFinite(r.pathLossExponent) ? String(round(r.pathLossExponent, 2)) : '–', flags]));
    }
    el('survey-fit-summary').textContent = `${ids.length} anchors from ${fit.points} places, ${fit.samples} samples`;
    el('survey-apply').disabled = false;
  }

  // Copies the fitted members into the edited venue's anchors of the same id, then saves the venue.
  async function applyFit() {
    const fit = state.survey.fit;
    if (!fit || !fit.venue || !Array.isArray(fit.venue.anchors)) return;
    surveyProblem('');
    const fitted = new Map(fit.venue.anchors.map((a) => [a.id, a]));
    let applied = 0;
    for (const anchor of state.venue.anchors) {
      const source = fitted.get(anchor.id);
      if (!source) continue;
      for (const key of ['measuredPower', 'pathLossExponent', 'shadowingSigma', 'calibration']) {
        if (source[key] !== undefined) anchor[key] = copy(source[key]);
      }
      applied += 1;
    }
    if (!applied) { surveyProblem('None of the fitted anchors is in the venue being edited.'); return; }
    el('survey-apply').disabled = true;
    if (await saveVenue()) {
      setStatus(`calibration applied to ${applied} anchors and saved`);
      el('survey-fit-summary').textContent = `applied to ${applied} anchors and saved`;
    } else {
      el('survey-apply').disabled = false;
      surveyProblem('Applied to the venue being edited, but it was not saved: see the error above.');
    }
  }

  // ---- wiring ----
  function wire() {
    const enter = (id, action) => el(id).addEventListener('keydown', (event) => {
      if (event.key === 'Enter') action();
    });
    el('venue-save').addEventListener('click', saveVenue);
    el('venue-name').addEventListener('change', () => { state.venue.name = el('venue-name').value; });
    el('floor-select').addEventListener('change', () => selectFloor(Number(el('floor-select').value)));
    el('floor-add').addEventListener('click', addFloor);
    el('floor-name').addEventListener('change', () => { floorEntry().name = el('floor-name').value; renderFloors(); });
    el('floor-elevation').addEventListener('change', () => {
      floorEntry().elevation = fieldValue(el('floor-elevation').value);
    });
    el('plan-file').addEventListener('change', (event) => {
      if (event.isTrusted) state.clicks += 1;  // picking the file in the browser's chooser
      uploadPlan(el('plan-file').files[0]);
    });
    el('plan-scale').addEventListener('click', () => setMode('scale'));
    el('plan-align').addEventListener('click', () => setMode('align'));
    el('scale-apply').addEventListener('click', applyScale);
    enter('scale-distance', applyScale);
    el('align-apply').addEventListener('click', applyAlign);
    enter('align-x', applyAlign);
    enter('align-y', applyAlign);
    for (const key of Object.keys(ORIGIN_RANGES)) el('origin-' + key).addEventListener('change', editOrigin);
    el('anchor-new').addEventListener('click', () => {
      const id = el('anchor-new-id').value.trim();
      if (id) pickAnchor(id);
    });
    enter('anchor-new-id', () => el('anchor-new').click());
    el('room-draw').addEventListener('click', () => setMode('room'));
    el('room-finish').addEventListener('click', finishRoom);
    el('room-name').addEventListener('input', () => {
      if (!el('room-id').dataset.edited) el('room-id').value = slug(el('room-name').value);
    });
    el('room-id').addEventListener('input', () => { el('room-id').dataset.edited = 'yes'; });
    el('room-add').addEventListener('click', addRoom);
    enter('room-name', addRoom);
    enter('room-id', addRoom);
    el('mode-cancel').addEventListener('click', () => setMode(null));
    document.addEventListener('keydown', (event) => { if (event.key === 'Escape' && state.mode) setMode(null); });
    el('device-add').addEventListener('click', () => {
      state.registry.devices.push({ id: '' });
      renderDevices();
      el(`device-${state.registry.devices.length - 1}-id`).focus();
    });
    el('devices-bluez').addEventListener('click', importBlueZ);
    el('devices-save').addEventListener('click', saveDevices);
    el('accuracy-toggle').addEventListener('change', toggleAccuracy);
    el('survey-target').addEventListener('change', () => { state.survey.target = el('survey-target').value; });
    el('survey-record').addEventListener('click', armSurvey);
    el('survey-fit').addEventListener('click', fitSurvey);
    el('survey-apply').addEventListener('click', applyFit);
  }

  async function start() {
    el('map-link').href = '/' + location.hash;
    const setup = await api('GET', '/api/setup');
    if (!setup.ok) throw new Error('GET /api/setup: ' + (setup.data.error || setup.status));
    state.editable = !!setup.data.editable;
    state.gatewayMode = setup.data.mode || null;
    if (!state.editable) {
      el('notice-how').textContent = setup.data.howToEnable || '';
      el('notice').hidden = false;
      state.ready = true;
      return;
    }
    el('editor').hidden = false;
    el('venue-save').hidden = false;
    map = L.map('map', { crs: L.CRS.Simple, minZoom: -3, maxZoom: 8, zoomSnap: 0.25, doubleClickZoom: false,
      attributionControl: false }).setView([7.5, 10], 4);  // a view at once: layers draw only on a map with one
    // The accuracy cells: one canvas above the plan and the rooms, under the markers; clicks go through it.
    map.createPane('bd-accuracy').style.zIndex = 450;
    accuracyRenderer = L.canvas({ pane: 'bd-accuracy', padding: 0.3 });
    accuracyLayer.addTo(map);
    roomLayer.addTo(map);
    anchorLayer.addTo(map);
    surveyLayer.addTo(map);
    suggestionLayer.addTo(map);
    draftLayer.addTo(map);
    map.on('click', onMapClick);
    wire();
    showHint();
    await loadVenue();
    fitFloor();
    await loadDevices();
    await loadSurvey();
    pollHeard();
    state.ready = true;
  }

  // For tests and debugging: read-only views of what the page edits, and the map's metres <-> pixels.
  window.bluedotSetup = {
    ready: () => state.ready,
    editable: () => state.editable,
    venue: () => copy(state.venue),
    registry: () => copy(state.registry),
    floor: () => state.floor,
    mode: () => state.mode,
    selected: () => state.selected,
    pending: () => copy(state.pending),
    clicks: () => state.clicks,
    heard: () => copy({ heard: state.heard, strangers: state.strangers }),
    counts: () => ({
      anchors: state.venue ? state.venue.anchors.length : 0,
      rooms: state.venue ? (state.venue.rooms || []).length : 0,
      floors: state.venue ? state.venue.floors.length : 0,
      devices: state.registry.devices.length,
      heard: state.heard.length,
      strangers: state.strangers,
      markers: anchorLayer.getLayers().length,
      roomShapes: roomLayer.getLayers().length,
      plan: !!planOverlay,
      accuracyCells: accuracyLayer.getLayers().length,
      suggestion: suggestionLayer.getLayers().length,
      surveyPoints: state.survey.points.length,
      surveyMarkers: surveyLayer.getLayers().length,
    }),
    gatewayMode: () => state.gatewayMode,
    // The accuracy map as drawn: its figures and cell count (null when off or not loaded).
    accuracy: () => (state.accuracyOn && state.accuracy ? {
      floor: state.accuracy.floor, p50: state.accuracy.p50, p90: state.accuracy.p90,
      cellMeters: state.accuracy.cellMeters, suggestion: copy(state.accuracy.suggestion),
      cells: accuracyLayer.getLayers().length, shown: el('accuracy-figures').textContent,
    } : null),
    accuracyError: () => state.accuracyError,
    // The quick calibration: the places recorded, whether one is being recorded here, the pick and the last fit.
    survey: () => copy({ points: state.survey.points, recording: !!state.survey.busy, target: state.survey.target,
      error: el('survey-error').hidden ? null : el('survey-error').textContent }),
    fit: () => copy(state.survey.fit),
    // A venue point (metres) as a point of the map's container and of the window (CSS pixels).
    containerPoint(x, y) { const p = map.latLngToContainerPoint(L.latLng(y, x)); return { x: p.x, y: p.y }; },
    clientPoint(x, y) {
      const p = map.latLngToContainerPoint(L.latLng(y, x)), box = map.getContainer().getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    },
    venuePoint(px, py) { const at = map.containerPointToLatLng(L.point(px, py)); return { x: at.lng, y: at.lat }; },
  };

  start().catch((error) => { state.ready = true; showTopError('Set-up cannot start: ' + error.message); });
})();
