// Marquee's own script: the seat selection, keyboard navigation of the seat
// map, the hold countdown and a few small page helpers. No inline scripts,
// no eval: the CSP allows neither. The server renders every state; this file
// only keeps the shopper's local intent (which seats they picked) and time.
(function () {
  'use strict';

  // ---------------------------------------------------------------- money

  // money writes minor units of the map's currency as the server does
  // (money.Format: ₹12,34,567.89 for rupees, $1,234,567.89, ¥1,500, KWD
  // 1.250; decimals only when there are some), by the pattern the map
  // carries (money.PatternOf). Not Intl.NumberFormat: its first use costs a
  // long task on a slow phone, when the page loads or a seat is tapped.
  function money(map, minor) {
    var digits = Number(map.getAttribute('data-money-digits') || 0);
    var group = Number(map.getAttribute('data-money-group') || 3);
    var unit = Math.pow(10, digits);
    var sign = minor < 0 ? '-' : '';
    minor = Math.abs(minor);
    var whole = String(Math.floor(minor / unit));
    var frac = String(minor % unit);
    var head = whole.slice(0, -3), grouped = whole.slice(-3);
    while (head.length > group) {
      grouped = head.slice(-group) + ',' + grouped;
      head = head.slice(0, -group);
    }
    if (head) grouped = head + ',' + grouped;
    while (frac.length < digits) frac = '0' + frac;
    return sign + (map.getAttribute('data-money-prefix') || '') + grouped +
      (minor % unit ? '.' + frac : '') + (map.getAttribute('data-money-suffix') || '');
  }

  // ---------------------------------------------------------------- seat map

  // A map's picks are an ordered list of seat ids kept on the map element.
  // Every handler works on the picks and the seats named in an update, never
  // on all the seats of the map: a 1,000-seat hall costs what a 60-seat room
  // does once it has loaded.
  function picksOf(map) {
    if (!map._picks) {
      map._picks = Array.prototype.map.call(
        map.querySelectorAll('button.seat[aria-pressed="true"]'),
        function (s) { return s.getAttribute('data-seat'); });
    }
    return map._picks;
  }

  function seatByID(id) {
    return document.getElementById('seat-' + id);
  }

  function isSelectable(seat) {
    return seat.getAttribute('data-status') === 'available';
  }

  // announce says msg in the page's polite live region (#sr-status).
  function announce(msg) {
    var region = document.getElementById('sr-status');
    if (!region) return;
    region.textContent = '';
    window.setTimeout(function () { region.textContent = msg; }, 50);
  }

  function seatWord(n) { return n === 1 ? '1 seat' : n + ' seats'; }

  // partsOf finds, once per map, the parts of its hold form that a pick
  // changes. They sit after the seats in the form, so every querySelector
  // from the form walks the whole seat map first: with 1,000 seats that is
  // several milliseconds of a tap on a slow phone, each time.
  function partsOf(map) {
    if (!map._parts) {
      var form = map.closest('form');
      var bar = form && (form.querySelector('[data-selection-bar]') || form);
      var q = function (sel) { return bar ? bar.querySelector(sel) : null; };
      map._parts = {
        form: form,
        inputs: form ? form.querySelector('[data-selected-inputs]') : null,
        summary: q('[data-selection-summary]'),
        total: q('[data-selection-total]'),
        button: q('[data-hold-button]'),
        label: q('[data-hold-label]'),
        limit: q('[data-limit-note]'),
        taken: q('[data-taken-notice]')
      };
    }
    return map._parts;
  }

  // syncSelection writes the picks into the hold form (hidden inputs), the
  // summary, the running total and the hold button, and into the address
  // (?seats=), so a refresh keeps them.
  function syncSelection(map) {
    var parts = partsOf(map);
    var picks = picksOf(map);
    if (parts.form) {
      var inputs = parts.inputs;
      if (inputs) {
        inputs.textContent = '';
        picks.forEach(function (id) {
          var i = document.createElement('input');
          i.type = 'hidden';
          i.name = 'seat';
          i.value = id;
          inputs.appendChild(i);
        });
      }
      var total = picks.reduce(function (sum, id) {
        var s = seatByID(id);
        return sum + Number((s && s.getAttribute('data-price')) || 0);
      }, 0);
      if (parts.summary) {
        parts.summary.textContent = picks.length === 0
          ? 'No seats selected yet.'
          : seatWord(picks.length) + ': ' + picks.join(', ');
      }
      if (parts.total) parts.total.textContent = money(map, total);
      var button = parts.button;
      if (button) {
        button.disabled = picks.length === 0;
        if (parts.label && button.getAttribute('data-guest') !== 'true') {
          parts.label.textContent = picks.length === 0 ? 'Hold seats' : 'Hold ' + seatWord(picks.length);
        }
      }
    }
    rememberPicks(map, picks);
  }

  // rememberPicks keeps a selectable map's picks for this tab (session
  // storage), so a refresh shows them again; a map that cannot be picked
  // from (the checkout panel's, a closed show's) forgets them, so the map
  // after a hold ends starts empty. Not in the address: changing it holds
  // the next frame back, so a tapped seat would show late.
  function picksKey(map) { return 'marquee:picks:' + map.getAttribute('data-show'); }

  function rememberPicks(map, picks) {
    try {
      if (map.getAttribute('data-selectable') === 'true' && picks.length) {
        window.sessionStorage.setItem(picksKey(map), picks.join(','));
      } else {
        window.sessionStorage.removeItem(picksKey(map));
      }
    } catch (e) { /* storage off: picks last as long as the page */ }
  }

  // restorePicks picks again what this tab had picked before a refresh,
  // and names the seats someone else took meanwhile.
  function restorePicks(map) {
    var stored = '';
    try { stored = window.sessionStorage.getItem(picksKey(map)) || ''; } catch (e) { return; }
    if (!stored || map.getAttribute('data-selectable') !== 'true' || picksOf(map).length) return;
    var picks = picksOf(map), lost = [];
    stored.split(',').forEach(function (id) {
      var seat = seatByID(id);
      if (seat && isSelectable(seat) && picks.length < Number(map.getAttribute('data-max') || 10)) {
        picks.push(id);
        seat.setAttribute('aria-pressed', 'true');
      } else if (seat) {
        seat.setAttribute('data-taken', 'true');
        lost.push(id);
      }
    });
    if (lost.length) takenNotice(map, lost);
  }

  function toggleSeat(map, seat) {
    if (!isSelectable(seat)) {
      announce(seat.getAttribute('aria-label') + '. This seat cannot be selected.');
      return;
    }
    var picks = picksOf(map);
    var id = seat.getAttribute('data-seat');
    var at = picks.indexOf(id);
    var max = Number(map.getAttribute('data-max') || 10);
    if (at < 0 && picks.length >= max) {
      announce('You can pick at most ' + max + ' seats at a time.');
      var note = partsOf(map).limit;
      if (note) { note.hidden = false; }
      return;
    }
    if (at < 0) picks.push(id); else picks.splice(at, 1);
    seat.setAttribute('aria-pressed', at < 0 ? 'true' : 'false');
    seat.removeAttribute('data-taken');
    syncSelection(map);
    var total = partsOf(map).total;
    announce((at < 0 ? 'Selected ' : 'Removed ') + id + '. ' +
      picks.length + ' selected' + (total ? ', total ' + total.textContent : '') + '.');
  }

  // Roving tabindex: the map is one tab stop; arrow keys move between seats.
  // The map keeps its rover, rather than looking for it among the seats.
  function setRover(map, seat) {
    var old = map._rover;
    if (old === undefined) old = map.querySelector('button.seat[tabindex="0"]');
    if (old && old !== seat) old.tabIndex = -1;
    seat.tabIndex = 0;
    map._rover = seat;
  }

  // stampSeats puts a map's rows in place from the template they are served
  // in (see SeatMap in components/show.templ), once.
  function stampSeats(map) {
    if (map._stamped) return;
    map._stamped = true;
    var tpl = map.querySelector('template[data-seat-rows]');
    if (tpl) tpl.parentNode.replaceChild(tpl.content, tpl);
  }

  // stampAll stamps every map under root still waiting for its seats: a
  // live message or the socket's first one can come before the page's
  // init has run on a map just swapped in.
  function stampAll(root) {
    Array.prototype.forEach.call(root.querySelectorAll('template[data-seat-rows]'), function (tpl) {
      var map = tpl.closest('[data-seatmap]');
      if (map) stampSeats(map);
    });
  }

  function initMap(map) {
    stampSeats(map);
    if (map.getAttribute('data-ready') === 'true') return;
    map.setAttribute('data-ready', 'true');
    map._picks = null;
    map._parts = null;
    var start = map.querySelector('button.seat[aria-pressed="true"]') ||
      map.querySelector('button.seat[data-status="available"]') || map.querySelector('button.seat');
    if (!start) return;
    restorePicks(map);
    setRover(map, start);
    syncSelection(map);
    initZoom(map);
  }

  function position(seat) {
    return { row: Number(seat.getAttribute('data-r')), col: Number(seat.getAttribute('data-c')) };
  }

  // neighbour finds the seat to move to from seat for an arrow key: along
  // its row group, or the nearest seat by grid column in the next row group.
  function neighbour(map, seat, key) {
    var rowEl = seat.closest('[data-row]');
    if (!rowEl) return null;
    var row = Array.prototype.slice.call(rowEl.querySelectorAll('button.seat'));
    var i = row.indexOf(seat);
    switch (key) {
      case 'ArrowLeft': return row[i - 1] || null;
      case 'ArrowRight': return row[i + 1] || null;
      case 'Home': return row[0];
      case 'End': return row[row.length - 1];
      case 'ArrowUp':
      case 'ArrowDown': {
        var next = key === 'ArrowUp' ? rowEl.previousElementSibling : rowEl.nextElementSibling;
        while (next && !next.querySelector('button.seat')) {
          next = key === 'ArrowUp' ? next.previousElementSibling : next.nextElementSibling;
        }
        if (!next) return null;
        var col = position(seat).col;
        var best = null, bestDist = Infinity;
        Array.prototype.forEach.call(next.querySelectorAll('button.seat'), function (s) {
          var d = Math.abs(position(s).col - col);
          if (d < bestDist) { best = s; bestDist = d; }
        });
        return best;
      }
    }
    return null;
  }

  // ------------------------------------------------------------ zoom

  // A hall wider than its box opens as an overview that fits the width. Where
  // the overview's seats are too small to tap (a phone), a tap zooms into
  // that part of the hall at full size (32 px seats); a button zooms out.
  // The smallest seat that may be picked directly: 24 px for a finger, 14
  // for a mouse.
  function tapMin() {
    return window.matchMedia && window.matchMedia('(pointer: coarse)').matches ? 24 : 14;
  }

  function initZoom(map) {
    var scroller = map.querySelector('[data-seatmap-scroller]');
    var grid = map.querySelector('[data-seatmap-grid]');
    if (!scroller || !grid) return;
    map._zoom = { scroller: scroller, grid: grid, fit: 1 };
    fitZoom(map);
    grid.setAttribute('data-fitted', 'true');
    if (!map._zoom.zoomed && map._zoom.fit === 1) return;
    setZoomed(map, false);
  }

  // The grid's width at full size, from its column count and the sizes in
  // app.css (32 px cells 4 px apart, a 24 px row label at each end, 4 px
  // from the seats): the grid is not laid out until it is fitted (the
  // stylesheet hides it while a script may still fit it), so a big hall is
  // laid out once, at the size it is shown, not once more to be measured.
  var cell = 32, gap = 4, label = 24;

  function fitZoom(map) {
    var z = map._zoom;
    var cols = Number(map.getAttribute('data-cols')) || 0;
    var natural = cols * (cell + gap) - gap + 2 * (label + gap);
    var room = z.scroller.clientWidth;
    z.fit = natural > room && room > 0 ? Math.max(0.2, room / natural) : 1;
    z.seat = cell;
    if (!z.zoomed) z.grid.style.zoom = z.fit === 1 ? '' : String(z.fit);
  }

  // overviewOnly: the overview's seats are too small to pick.
  function overviewOnly(map) {
    var z = map._zoom;
    return !!z && !z.zoomed && z.fit < 1 && z.seat * z.fit < tapMin();
  }

  function setZoomed(map, zoomed, at) {
    var z = map._zoom;
    if (!z) return;
    z.zoomed = zoomed;
    z.grid.style.zoom = zoomed || z.fit === 1 ? '' : String(z.fit);
    map.setAttribute('data-zoom', zoomed ? 'in' : (overviewOnly(map) ? 'overview' : 'fit'));
    var out = map.querySelector('[data-zoom-out]');
    if (out) out.hidden = !zoomed;
    var hint = map.querySelector('[data-zoom-hint]');
    if (hint) hint.hidden = !overviewOnly(map);
    if (zoomed && at) {
      // Keep the tapped spot under the finger: it was at (x, y) of the
      // overview, it is at (x, y) / fit now.
      z.scroller.scrollLeft = at.x / z.fit - z.scroller.clientWidth / 2;
      var top = z.scroller.getBoundingClientRect().top + window.scrollY;
      window.scrollTo(window.scrollX, Math.max(0, top + at.y / z.fit - window.innerHeight / 2));
    }
  }

  window.addEventListener('resize', function () {
    Array.prototype.forEach.call(document.querySelectorAll('[data-seatmap][data-zoom]'), function (map) {
      fitZoom(map);
      setZoomed(map, map._zoom.zoomed);
    });
  });

  document.addEventListener('click', function (ev) {
    var out = ev.target.closest && ev.target.closest('[data-zoom-out]');
    if (out) {
      var m = out.closest('[data-seatmap]');
      ev.preventDefault();
      setZoomed(m, false);
      var scroller = m.querySelector('[data-seatmap-scroller]');
      if (scroller) scroller.scrollIntoView({ block: 'nearest' });
      return;
    }
    var seat = ev.target.closest && ev.target.closest('button.seat');
    if (seat) {
      var map = seat.closest('[data-seatmap]');
      if (!map || map.getAttribute('data-selectable') !== 'true' && !overviewOnly(map)) return;
      ev.preventDefault();
      // A pointer tap on the overview zooms in (a keyboard's click, detail
      // 0, picks as usual).
      if (overviewOnly(map) && ev.detail > 0) {
        var box = map._zoom.grid.getBoundingClientRect();
        setZoomed(map, true, { x: (ev.clientX - box.left), y: (ev.clientY - box.top) });
        announce('Zoomed in. Tap a seat to pick it.');
        return;
      }
      if (map.getAttribute('data-selectable') !== 'true') return;
      setRover(map, seat);
      toggleSeat(map, seat);
      return;
    }
    var grid = ev.target.closest && ev.target.closest('[data-seatmap-grid]');
    if (grid) {
      var gm = grid.closest('[data-seatmap]');
      if (gm && overviewOnly(gm)) {
        var b = grid.getBoundingClientRect();
        setZoomed(gm, true, { x: ev.clientX - b.left, y: ev.clientY - b.top });
      }
      return;
    }
    var keep = ev.target.closest && ev.target.closest('[data-keep-choosing]');
    if (keep) {
      keepChoosing(keep.closest('[data-orphan-offer]'));
      return;
    }
    var dismiss = ev.target.closest && ev.target.closest('[data-dismiss]');
    if (dismiss) {
      var toast = dismiss.closest('[data-toast]');
      if (toast) toast.remove();
      return;
    }
    var close = ev.target.closest && ev.target.closest('[data-close-preview]');
    if (close) {
      var slot = close.closest('[data-cancel-slot]');
      if (slot) {
        ev.preventDefault();
        var card = slot.closest('li');
        slot.textContent = '';
        var again = card && card.querySelector('[hx-get]');
        if (again) again.focus();
      }
      return;
    }
    var print = ev.target.closest && ev.target.closest('[data-print]');
    if (print) {
      window.print();
    }
  });

  // keepChoosing puts away the offer of other seats (the orphan rule's) and
  // takes the shopper back to the seat map, the seats they picked still
  // picked.
  function keepChoosing(offer) {
    if (!offer) return;
    var section = offer.closest('#booking') || document;
    offer.remove();
    var seat = section.querySelector('#seatmap button.seat[tabindex="0"]');
    if (seat) seat.focus();
    announce('Your seats are still picked. Change them on the seat map, then hold them.');
  }

  document.addEventListener('keydown', function (ev) {
    var seat = ev.target.closest && ev.target.closest('button.seat');
    if (!seat) return;
    var map = seat.closest('[data-seatmap]');
    if (!map) return;
    if (ev.key.indexOf('Arrow') === 0 || ev.key === 'Home' || ev.key === 'End') {
      ev.preventDefault();
      var next = neighbour(map, seat, ev.key);
      if (next) {
        setRover(map, next);
        next.focus();
      }
    }
  });
  // A keyboard on the overview reads seats at full size.
  document.addEventListener('focusin', function (ev) {
    var seat = ev.target.closest && ev.target.closest('button.seat');
    var map = seat && seat.closest('[data-seatmap]');
    if (map && overviewOnly(map) && seat.matches(':focus-visible')) {
      setZoomed(map, true);
      seat.scrollIntoView({ block: 'nearest', inline: 'center' });
    }
  });

  // ------------------------------------------------------------ live seat map

  // The live seat map's messages are htmx out-of-band seat buttons. The page
  // applies them itself, in place: each named seat takes the new status,
  // label and content, and keeps its element, its place in the tab order,
  // focus and the shopper's pick while it is still available. A picked seat
  // that someone else just took leaves the selection, and the shopper is
  // told on the page, not only by the screen reader.
  function applyLive(message) {
    var tpl = document.createElement('template');
    tpl.innerHTML = message;
    var changed = {};
    var lost = [];
    Array.prototype.forEach.call(tpl.content.children, function (incoming) {
      if (!incoming.matches('button.seat')) return;
      var seat = document.getElementById(incoming.id);
      if (!seat) {
        stampAll(document);
        seat = document.getElementById(incoming.id);
      }
      var map = seat && seat.closest('[data-seatmap]');
      if (!map) return;
      var status = incoming.getAttribute('data-status');
      var label = incoming.getAttribute('aria-label');
      if (seat.getAttribute('data-status') !== status || seat.getAttribute('aria-label') !== label) {
        seat.setAttribute('data-status', status);
        seat.setAttribute('aria-label', label);
        seat.setAttribute('data-price', incoming.getAttribute('data-price') || '0');
        seat.setAttribute('data-category', incoming.getAttribute('data-category') || '');
        if (seat.innerHTML !== incoming.innerHTML) seat.innerHTML = incoming.innerHTML;
      }
      var id = seat.getAttribute('data-seat');
      var picks = picksOf(map);
      var at = picks.indexOf(id);
      if (map.getAttribute('data-selectable') === 'true' && status === 'available') {
        seat.setAttribute('aria-pressed', at >= 0 ? 'true' : 'false');
        seat.removeAttribute('aria-disabled');
      } else {
        seat.removeAttribute('aria-pressed');
        seat.setAttribute('aria-disabled', 'true');
        if (at >= 0) {
          picks.splice(at, 1);
          seat.setAttribute('data-taken', 'true');
          lost.push(id);
        }
      }
      changed[map.id] = map;
    });
    // Only a pick lost changes the form: otherwise the selection bar is
    // left as it is, not redrawn 20 times a second on a busy show.
    if (!lost.length) return;
    Object.keys(changed).forEach(function (k) {
      var map = changed[k];
      syncSelection(map);
      takenNotice(map, lost);
    });
  }

  // takenNotice shows, next to the hold button, which picks someone else
  // took, and what is left: the shopper decides what to hold.
  function takenNotice(map, lost) {
    var box = partsOf(map).taken;
    var rest = picksOf(map);
    var msg = (lost.length === 1 ? 'Seat ' + lost[0] + ' was' : 'Seats ' + lost.join(', ') + ' were') +
      ' just taken by someone else and left your selection. ' +
      (rest.length ? 'You still have ' + rest.join(', ') + ': pick another seat, or hold ' + (rest.length === 1 ? 'that one alone.' : 'those.')
        : 'Pick other seats to continue.');
    if (box) {
      box.textContent = msg;
      box.hidden = false;
    }
    announce(msg);
  }

  // What the page shows, sent as the socket's first message: the server
  // answers with only the seats that differ (nothing when none do), on the
  // first connection and on every reconnection alike.
  function pageState(root) {
    stampAll(root);
    var seats = {};
    Array.prototype.forEach.call(root.querySelectorAll('button.seat:not([data-status="available"])'), function (s) {
      seats[s.getAttribute('data-seat')] = s.getAttribute('data-status');
    });
    return JSON.stringify({ seats: seats });
  }

  function liveIndicator(root, state) {
    var el = root.querySelector('[data-live-status]');
    if (!el || el.getAttribute('data-live-status') === state) return;
    el.setAttribute('data-live-status', state);
    var text = el.querySelector('[data-live-text]');
    if (text) {
      text.textContent = {
        live: 'Live: seats update as others book',
        connecting: 'Connecting to live updates…',
        reconnecting: 'Reconnecting… seats may be out of date',
        closed: 'Live updates stopped. Reload for the latest seats.'
      }[state];
    }
  }

  document.addEventListener('htmx:wsOpen', function (ev) {
    var root = ev.target;
    liveIndicator(root, 'live');
    if (ev.detail && ev.detail.socketWrapper) ev.detail.socketWrapper.send(pageState(root));
  });
  document.addEventListener('htmx:wsClose', function (ev) {
    var code = ev.detail && ev.detail.event ? ev.detail.event.code : 0;
    liveIndicator(ev.target, [1006, 1011, 1012, 1013].indexOf(code) >= 0 ? 'reconnecting' : 'closed');
  });
  document.addEventListener('htmx:wsError', function (ev) {
    liveIndicator(ev.target, 'reconnecting');
  });
  document.addEventListener('htmx:wsBeforeMessage', function (ev) {
    ev.preventDefault(); // applied here, not swapped by htmx
    applyLive(ev.detail.message);
  });

  // The hold form sends only when seats are picked; a second click while
  // the first request runs does nothing (and the idempotency key makes even
  // a repeated request harmless). A key names one intent: sent again with
  // other seats (a page come back to with Back, a pick changed after an
  // error) it is replaced, so a new request is never mistaken for a retry.
  var sentKeys = {};
  function randomKey() {
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    return 'page-' + Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join('');
  }
  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (!form.matches || !form.matches('[data-hold-form]')) return;
    var map = form.querySelector('[data-seatmap]');
    if (map && picksOf(map).length === 0) {
      ev.preventDefault();
      announce('Pick at least one seat first.');
      return;
    }
    var key = form.querySelector('input[name="key"]');
    if (!key || !map) return;
    var intent = picksOf(map).slice().sort().join(',');
    if (sentKeys[key.value] !== undefined && sentKeys[key.value] !== intent) key.value = randomKey();
    sentKeys[key.value] = intent;
  }, true);

  // A plain form (log in, sign up, log out, pay) sends once: its buttons are
  // disabled right after the browser has taken the form's data, so a
  // double click cannot send it twice. htmx forms use hx-disabled-elt.
  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (ev.defaultPrevented || !form.matches || form.matches('[hx-post],[hx-get],[data-hold-form]')) return;
    window.setTimeout(function () {
      Array.prototype.forEach.call(form.querySelectorAll('button[type=submit],button:not([type])'), function (b) {
        b.disabled = true;
        b.setAttribute('data-sent', 'true');
      });
    }, 0);
  });
  // A file field with data-max-bytes says at once that the file chosen is
  // larger than the server takes, rather than after a long upload (the
  // server tells the same at the field without this script): the message
  // goes under the field (#<id>-size-error), and the form is not sent.
  function fileFits(input) {
    var max = Number(input.getAttribute('data-max-bytes'));
    var box = document.getElementById(input.id + '-size-error');
    var file = input.files && input.files[0];
    var tooBig = !!file && max > 0 && file.size > max;
    if (box) {
      box.textContent = tooBig ? 'This image is ' + (file.size / 1048576).toFixed(1) + ' MiB: a poster is at most ' +
        (max / 1048576) + ' MiB. Choose a smaller image.' : '';
      box.hidden = !tooBig;
    }
    if (tooBig) input.setAttribute('aria-invalid', 'true');
    else if (box && input.getAttribute('aria-invalid') === 'true' && !document.getElementById(input.id + '-error')) input.removeAttribute('aria-invalid');
    return !tooBig;
  }
  document.addEventListener('change', function (ev) {
    var input = ev.target;
    if (input.matches && input.matches('input[type=file][data-max-bytes]')) fileFits(input);
  });
  document.addEventListener('submit', function (ev) {
    var input = ev.target.querySelector && ev.target.querySelector('input[type=file][data-max-bytes]');
    if (input && !fileFits(input)) {
      ev.preventDefault();
      input.focus();
    }
  }, true);

  // Coming back (browser back button, page cache): a page whose state moves
  // on without it (the seat map, a hold's countdown) is fetched again rather
  // than shown as it was; on other pages the buttons work again.
  window.addEventListener('pageshow', function (ev) {
    if (ev.persisted && document.querySelector('[data-always-fresh]')) {
      window.location.reload();
      return;
    }
    Array.prototype.forEach.call(document.querySelectorAll('button[data-sent]'), function (b) {
      b.disabled = false;
      b.removeAttribute('data-sent');
    });
  });

  // A swapped-in seat map has its seats at once, as a served page has them
  // by its first frame: htmx runs its load handlers (and so init) only
  // after the settle delay.
  document.addEventListener('htmx:afterSwap', function (ev) {
    var root = ev.target;
    stampAll(root && root.querySelectorAll && document.body.contains(root) ? root : document);
  });

  // After a step swaps the booking section (hold, release, a hold that ran
  // out), focus goes to what changed: the notice saying what happened, else
  // the checkout panel's heading, else the seat map.
  document.addEventListener('htmx:afterSettle', function (ev) {
    var section = ev.detail && ev.detail.elt;
    if (!section || section.id !== 'booking' || !document.body.contains(section)) return;
    var to = section.querySelector('[data-notice]') || section.querySelector('#checkout-title') ||
      section.querySelector('button.seat[tabindex="0"]');
    if (to) to.focus();
  });

  // ---------------------------------------------------------------- countdown

  var timers = [];

  function two(n) { return (n < 10 ? '0' : '') + n; }

  function startCountdown(el) {
    if (el.getAttribute('data-ready') === 'true') return;
    el.setAttribute('data-ready', 'true');
    var expires = Date.parse(el.getAttribute('data-expires-at'));
    var serverNow = Date.parse(el.getAttribute('data-server-now'));
    // Trust the server's clock: offset is how far ours is behind it.
    var offset = isNaN(serverNow) ? 0 : serverNow - Date.now();
    var display = el.querySelector('[data-countdown-display]');
    var alertRegion = el.querySelector('[data-countdown-alert]');
    var warned = false;
    var finished = false;
    function tick() {
      if (!document.body.contains(el)) { window.clearInterval(timer); return; }
      var left = Math.max(0, Math.ceil((expires - (Date.now() + offset)) / 1000));
      if (display) display.textContent = Math.floor(left / 60) + ':' + two(left % 60);
      if (!warned && left <= 60 && left > 0) {
        warned = true;
        el.setAttribute('data-urgent', 'true');
        if (alertRegion) alertRegion.textContent = 'One minute left to pay for your seats.';
      }
      if (left === 0 && !finished) {
        finished = true;
        window.clearInterval(timer);
        expired(el);
      }
    }
    var timer = window.setInterval(tick, 1000);
    timers.push(timer);
    tick();
  }

  function expired(el) {
    var alertRegion = el.querySelector('[data-countdown-alert]');
    var msg = 'Your hold expired and the seats were released. Pick seats again to continue.';
    if (alertRegion) alertRegion.textContent = msg;
    el.setAttribute('data-expired', 'true');
    var url = el.getAttribute('data-refresh-url');
    var target = el.getAttribute('data-refresh-target') || '#booking';
    if (!url || !window.htmx) return;
    // A moment's grace: the server decides expiry by its own clock.
    window.setTimeout(function () {
      window.htmx.ajax('GET', url, { target: target, swap: 'outerHTML' });
    }, 1200);
  }

  // ---------------------------------------------------------------- wiring

  function init(root) {
    var scope = root && root.querySelectorAll ? root : document;
    var maps = [];
    if (scope.matches && scope.matches('[data-seatmap]')) maps.push(scope);
    Array.prototype.push.apply(maps, scope.querySelectorAll('[data-seatmap]'));
    maps.forEach(initMap);
    var counters = [];
    if (scope.matches && scope.matches('[data-countdown]')) counters.push(scope);
    Array.prototype.push.apply(counters, scope.querySelectorAll('[data-countdown]'));
    counters.forEach(startCountdown);
  }

  function ready() {
    if (window.htmx) {
      window.htmx.onLoad(init);
    } else {
      init(document);
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', ready);
  } else {
    ready();
  }
})();
