// The door: checking tickets in on a phone. The page works without this
// script (a typed code is a form post); this adds the camera (the
// browser's BarcodeDetector, else the vendored barcode-detector polyfill
// and its WebAssembly, served by the app), answers without reloading, and
// keeps checking while the network is gone: it downloads the show's list
// and the keys that sign real tickets, answers scans itself, and sends
// them when the network is back (the server reports a ticket admitted on
// two phones meanwhile).
(function () {
  'use strict';

  var page = document.querySelector('[data-door]');
  if (!page) return;
  var show = page.getAttribute('data-door');
  var api = '/api/v1/admin/shows/' + show;
  var answer = page.querySelector('[data-door-answer]');
  var network = page.querySelector('[data-door-network]');
  var form = page.querySelector('[data-door-form]');
  var codeInput = form.querySelector('[name=code]');
  var gateInput = form.querySelector('[name=gate]');
  var listKey = 'marquee.door.' + show;
  var queueKey = 'marquee.door.queue.' + show;
  var door = load(listKey);
  var keys = {};
  var lastCode = '', lastAt = 0;

  function load(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || 'null'); } catch (e) { return null; }
  }
  function save(key, value) {
    try { window.localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: memory only */ }
  }
  function queue() { return load(queueKey) || []; }

  gateInput.value = gateInput.value || window.localStorage.getItem('marquee.door.gate') || '';
  gateInput.addEventListener('change', function () { window.localStorage.setItem('marquee.door.gate', gateInput.value); });

  function clock(iso) {
    var tz = door && door.timezone;
    try {
      // The pages' style: 24-hour, "21:05".
      return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: tz || undefined })
        .format(new Date(iso));
    } catch (e) { return iso; }
  }

  var colours = {
    admitted: 'bg-green-700 text-white', again: 'bg-amber-300 text-ink-900', 'other-show': 'bg-blue-800 text-white',
    cancelled: 'bg-red-700 text-white', unknown: 'bg-red-700 text-white', ready: 'bg-ink-100 text-ink-900'
  };
  function paint(kind, title, detail) {
    answer.className = 'flex min-h-[40vh] flex-col items-center justify-center gap-2 rounded-2xl p-6 text-center ' + colours[kind];
    answer.setAttribute('data-kind', kind);
    answer.innerHTML = '';
    var t = document.createElement('p');
    t.className = 'text-5xl font-black uppercase tracking-tight sm:text-6xl';
    t.setAttribute('data-door-title', '');
    t.textContent = title;
    var d = document.createElement('p');
    d.className = 'text-2xl font-semibold sm:text-3xl';
    d.setAttribute('data-door-detail', '');
    d.textContent = detail;
    answer.appendChild(t);
    answer.appendChild(d);
    if (navigator.vibrate) navigator.vibrate(kind === 'admitted' ? 80 : [200, 100, 200]);
  }

  // say shows an answer of the API (or the phone's own, in its shape).
  function say(r) {
    var seats = (r.seats || []).join(', ');
    switch (r.result || r.error) {
      case 'ADMITTED': paint('admitted', 'Admitted', seats + ' · ' + (r.name || '')); break;
      case 'already_admitted':
        paint('again', 'Already admitted', 'Already admitted at ' + clock(r.admitted_at) + (r.by ? ' by ' + r.by : '') +
          (r.gate ? ' at ' + r.gate : '') + (seats ? ' · ' + seats : ''));
        break;
      case 'wrong_show':
        paint('other-show', 'Another show', r.movie ? 'This ticket is for ' + r.movie + ', ' + clock(r.starts_at) +
          (r.screen ? ', ' + r.screen : '') : 'This ticket is for another show.');
        break;
      case 'ticket_cancelled': paint('cancelled', 'Cancelled', 'This ticket was cancelled or refunded' + (seats ? ' · ' + seats : '')); break;
      default: paint('unknown', 'Not a ticket', 'No ticket of ours has this code.');
    }
  }

  function counts() {
    if (!door) return;
    var admitted = 0, tickets = 0;
    door.tickets.forEach(function (t) {
      if (t.status === 'CONFIRMED') tickets++;
      if (t.admitted_at) admitted++;
    });
    page.querySelector('[data-door-admitted]').textContent = admitted;
    page.querySelector('[data-door-tickets]').textContent = tickets;
  }

  function status() {
    var waiting = queue().length;
    if (navigator.onLine && !waiting) { network.classList.add('hidden'); network.textContent = ''; return; }
    network.classList.remove('hidden');
    network.textContent = navigator.onLine
      ? 'Sending ' + waiting + ' scans made offline…'
      : 'Offline: checking tickets against the list on this phone' + (waiting ? ' (' + waiting + ' scans to send)' : '') + '.';
  }

  function refresh() {
    return fetch(api + '/door', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (d) { door = d; save(listKey, d); counts(); return importKeys(); })
      .catch(function () { /* keep the list we have */ });
  }

  function b64url(s) {
    s = s.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function importKeys() {
    if (!door || !window.crypto || !crypto.subtle) return Promise.resolve();
    return Promise.all(door.keys.map(function (k) {
      return crypto.subtle.importKey('raw', b64url(k.public_key), { name: 'Ed25519' }, false, ['verify'])
        .then(function (key) { keys[k.id] = key; }, function () { /* no Ed25519 here: the list alone decides */ });
    }));
  }

  // claim reads a scanned code offline: the short code and the show it is
  // for, or null for a forgery. A typed short code is taken as it is.
  function claim(code) {
    var parts = code.split('.');
    if (parts[0] !== 'MQ1') {
      return Promise.resolve({ short: code.replace(/[\s-]/g, '').toUpperCase(), show: null, signed: false });
    }
    if (parts.length !== 5) return Promise.resolve(null);
    var key = keys[parts[1]];
    if (!key) {
      // Without the key (or Ed25519) only the list can vouch for it.
      return Promise.resolve({ short: parts[2], show: parts[3], signed: false });
    }
    var body = new TextEncoder().encode(parts.slice(0, 4).join('.'));
    return crypto.subtle.verify({ name: 'Ed25519' }, key, b64url(parts[4]), body).then(function (ok) {
      return ok ? { short: parts[2], show: parts[3], signed: true } : null;
    }, function () { return null; });
  }

  function offline(code, gate) {
    return claim(code).then(function (c) {
      var at = new Date().toISOString();
      var answerNow;
      if (!c) {
        answerNow = { error: 'unknown_ticket' };
      } else if (c.show && c.show !== show) {
        answerNow = { error: 'wrong_show' };
      } else {
        var t = door && door.tickets.find(function (x) { return x.code === c.short; });
        if (!t && !c.signed) answerNow = { error: 'unknown_ticket' };
        else if (t && t.status !== 'CONFIRMED') answerNow = { error: 'ticket_cancelled', seats: t.seats };
        else if (t && t.admitted_at) answerNow = { error: 'already_admitted', admitted_at: t.admitted_at, seats: t.seats, by: '' };
        else {
          // Admitted by this phone; a ticket sold after the list was
          // downloaded is vouched for by its signature.
          if (t) t.admitted_at = at;
          else if (door) door.tickets.push({ code: c.short, seats: [], name: '', status: 'CONFIRMED', admitted_at: at });
          save(listKey, door);
          answerNow = { result: 'ADMITTED', seats: t ? t.seats : [], name: t ? t.name : 'sold after this list was taken' };
        }
      }
      var q = queue();
      q.push({ code: code, gate: gate, scanned_at: at, answer: answerNow.result || answerNow.error });
      save(queueKey, q);
      say(answerNow);
      counts();
      status();
    });
  }

  function check(code) {
    code = code.trim();
    if (!code) return;
    var gate = gateInput.value.trim();
    if (!navigator.onLine) { offline(code, gate); return; }
    fetch(api + '/checkins', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code: code, gate: gate })
    }).then(function (r) {
      if (r.status >= 500 || r.status === 429) throw new Error(r.status);
      return r.json().then(function (body) {
        say(body);
        if (body.result === 'ADMITTED' && door) {
          var t = door.tickets.find(function (x) { return x.booking_id === body.booking_id; });
          if (t) t.admitted_at = body.admitted_at;
          save(listKey, door);
          counts();
        }
        if (body.result === 'ADMITTED') codeInput.value = '';
      });
    }).catch(function () { offline(code, gate); });
  }

  var syncing = false;
  function sync() {
    var q = queue();
    if (!q.length || !navigator.onLine || syncing) { status(); return; }
    syncing = true;
    status();
    fetch(api + '/checkins/sync', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ scans: q })
    }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (body) {
      save(queueKey, queue().slice(q.length));
      var twice = body.results.filter(function (r, i) { return r.error === 'already_admitted' && q[i] && q[i].answer === 'ADMITTED'; });
      if (twice.length) {
        paint('again', 'Admitted twice', twice.length + (twice.length === 1 ? ' ticket was' : ' tickets were') +
          ' admitted on another phone too while offline: ' + twice.map(function (r) { return (r.seats || []).join(', '); }).join('; '));
      }
      return refresh();
    }).catch(function () { /* try again later */ }).then(function () { syncing = false; status(); });
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    check(codeInput.value);
  });
  window.addEventListener('online', sync);
  window.addEventListener('offline', status);
  window.setInterval(sync, 10000);

  // The camera.
  var camera = page.querySelector('[data-door-camera]');
  var video = camera.querySelector('video');
  var start = camera.querySelector('[data-door-start]');
  if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) camera.hidden = false;

  function polyfill() {
    return new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = '/static/vendor/barcode-detector.js';
      s.onload = function () {
        window.BarcodeDetectionAPI.setZXingModuleOverrides({
          locateFile: function (path, prefix) { return path.endsWith('.wasm') ? '/static/vendor/' + path : prefix + path; }
        });
        resolve(new window.BarcodeDetectionAPI.BarcodeDetector({ formats: ['qr_code'] }));
      };
      s.onerror = reject;
      document.head.appendChild(s);
    });
  }

  function detector() {
    if ('BarcodeDetector' in window) {
      return window.BarcodeDetector.getSupportedFormats().then(function (f) {
        return f.indexOf('qr_code') >= 0 ? new window.BarcodeDetector({ formats: ['qr_code'] }) : polyfill();
      }, polyfill);
    }
    return polyfill();
  }

  start.addEventListener('click', function () {
    start.disabled = true;
    start.textContent = 'Starting the camera…';
    Promise.all([
      navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false }),
      detector()
    ]).then(function (got) {
      video.srcObject = got[0];
      return video.play().then(function () { return got[1]; });
    }).then(function (d) {
      start.textContent = 'Camera on: hold a ticket up to it';
      page.setAttribute('data-door-scanning', '');
      function tick() {
        d.detect(video).then(function (codes) {
          var now = Date.now();
          codes.forEach(function (c) {
            // The same code in front of the camera is one scan.
            if (c.rawValue === lastCode && now - lastAt < 4000) return;
            lastCode = c.rawValue;
            lastAt = now;
            check(c.rawValue);
          });
        }).catch(function () {}).then(function () { window.setTimeout(tick, 250); });
      }
      tick();
    }).catch(function () {
      start.disabled = false;
      start.textContent = 'Start the camera';
      paint('unknown', 'No camera', 'This browser cannot use the camera here. Type the ticket codes below.');
    });
  });

  refresh().then(function () { counts(); sync(); });
  status();
})();
