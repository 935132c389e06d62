// Marquee's own script: the seat selection, keyboard navigation of the seat
// map, the hold countdown and a few small page helpers. No inline scripts,
// no eval: the CSP allows neither. The server renders every state; this file
// only keeps the shopper's local intent (which seats they picked) and time.
(function () {
  'use strict';

  // ---------------------------------------------------------------- money

  var formatters = {};
  function money(minor, currency) {
    var f = formatters[currency];
    if (!f) {
      try {
        f = new Intl.NumberFormat('en-IN', { style: 'currency', currency: currency, currencyDisplay: 'narrowSymbol', minimumFractionDigits: 0, maximumFractionDigits: 2 });
      } catch (e) {
        f = { format: function (v) { return currency + ' ' + v.toFixed(2); } };
      }
      formatters[currency] = f;
    }
    return f.format(minor / 100);
  }

  // ---------------------------------------------------------------- seat map

  function seatsOf(map) {
    return Array.prototype.slice.call(map.querySelectorAll('button.seat'));
  }

  function isSelectable(seat) {
    return seat.getAttribute('data-status') === 'available';
  }

  function selected(map) {
    return seatsOf(map).filter(function (s) { return s.getAttribute('aria-pressed') === 'true'; });
  }

  // announce says msg in the page's polite live region (#sr-status).
  function announce(msg) {
    var region = document.getElementById('sr-status');
    if (!region) return;
    region.textContent = '';
    window.setTimeout(function () { region.textContent = msg; }, 50);
  }

  // syncSelection writes the selection into the hold form (hidden inputs),
  // the summary and the running total, and enables the hold button.
  function syncSelection(map) {
    var form = map.closest('form');
    if (!form) return;
    var picked = selected(map);
    var inputs = form.querySelector('[data-selected-inputs]');
    if (inputs) {
      inputs.textContent = '';
      picked.forEach(function (s) {
        var i = document.createElement('input');
        i.type = 'hidden';
        i.name = 'seat';
        i.value = s.getAttribute('data-seat');
        inputs.appendChild(i);
      });
    }
    var currency = map.getAttribute('data-currency') || 'INR';
    var total = picked.reduce(function (sum, s) { return sum + Number(s.getAttribute('data-price') || 0); }, 0);
    var names = picked.map(function (s) { return s.getAttribute('data-seat'); });
    var summary = form.querySelector('[data-selection-summary]');
    if (summary) {
      summary.textContent = picked.length === 0
        ? 'No seats selected yet.'
        : (picked.length === 1 ? '1 seat: ' : picked.length + ' seats: ') + names.join(', ');
    }
    var totalEl = form.querySelector('[data-selection-total]');
    if (totalEl) totalEl.textContent = money(total, currency);
    var button = form.querySelector('[data-hold-button]');
    if (button) button.disabled = picked.length === 0;
  }

  function toggleSeat(map, seat) {
    if (!isSelectable(seat)) {
      announce(seat.getAttribute('aria-label') + '. This seat cannot be selected.');
      return;
    }
    var on = seat.getAttribute('aria-pressed') !== 'true';
    var max = Number(map.getAttribute('data-max') || 10);
    if (on && selected(map).length >= max) {
      announce('You can pick at most ' + max + ' seats at a time.');
      var note = map.closest('form') && map.closest('form').querySelector('[data-limit-note]');
      if (note) { note.hidden = false; }
      return;
    }
    seat.setAttribute('aria-pressed', on ? 'true' : 'false');
    seat.removeAttribute('data-taken');
    syncSelection(map);
    var total = map.closest('form') && map.closest('form').querySelector('[data-selection-total]');
    announce((on ? 'Selected ' : 'Removed ') + seat.getAttribute('data-seat') + '. ' +
      selected(map).length + ' selected' + (total ? ', total ' + total.textContent : '') + '.');
  }

  // Roving tabindex: the map is one tab stop; arrow keys move between seats.
  function setRover(map, seat) {
    seatsOf(map).forEach(function (s) { s.tabIndex = s === seat ? 0 : -1; });
  }

  function initMap(map) {
    if (map.getAttribute('data-ready') === 'true') return;
    map.setAttribute('data-ready', 'true');
    var seats = seatsOf(map);
    if (seats.length === 0) return;
    var start = selected(map)[0] || seats.filter(isSelectable)[0] || seats[0];
    setRover(map, start);
    syncSelection(map);
    // A hall wider than the phone opens centred, as seen from the middle.
    var scroller = map.querySelector('[data-seatmap-scroller]');
    if (scroller && scroller.scrollWidth > scroller.clientWidth) {
      scroller.scrollLeft = (scroller.scrollWidth - scroller.clientWidth) / 2;
    }
  }

  function position(seat) {
    return { row: Number(seat.getAttribute('data-r')), col: Number(seat.getAttribute('data-c')) };
  }

  // neighbour finds the seat to move to from seat for an arrow key.
  function neighbour(map, seat, key) {
    var here = position(seat);
    var seats = seatsOf(map);
    var rows = [];
    seats.forEach(function (s) { var r = position(s).row; if (rows.indexOf(r) < 0) rows.push(r); });
    rows.sort(function (a, b) { return a - b; });
    function inRow(r) { return seats.filter(function (s) { return position(s).row === r; }); }
    var row = inRow(here.row);
    var i = row.indexOf(seat);
    switch (key) {
      case 'ArrowLeft': return row[i - 1] || null;
      case 'ArrowRight': return row[i + 1] || null;
      case 'Home': return row[0];
      case 'End': return row[row.length - 1];
      case 'ArrowUp':
      case 'ArrowDown': {
        var ri = rows.indexOf(here.row) + (key === 'ArrowUp' ? -1 : 1);
        if (ri < 0 || ri >= rows.length) return null;
        var best = null, bestDist = Infinity;
        inRow(rows[ri]).forEach(function (s) {
          var d = Math.abs(position(s).col - here.col);
          if (d < bestDist) { best = s; bestDist = d; }
        });
        return best;
      }
    }
    return null;
  }

  document.addEventListener('click', function (ev) {
    var seat = ev.target.closest && ev.target.closest('button.seat');
    if (seat) {
      var map = seat.closest('[data-seatmap]');
      if (!map || map.getAttribute('data-selectable') !== 'true') return;
      ev.preventDefault();
      setRover(map, seat);
      toggleSeat(map, seat);
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

  document.addEventListener('keydown', function (ev) {
    var seat = ev.target.closest && ev.target.closest('button.seat');
    if (!seat) return;
    var map = seat.closest('[data-seatmap]');
    if (!map) return;
    var next = neighbour(map, seat, ev.key);
    if (ev.key.indexOf('Arrow') === 0 || ev.key === 'Home' || ev.key === 'End') {
      ev.preventDefault();
      if (next) {
        setRover(map, next);
        next.focus();
      }
    }
  });

  // The live seat map (websocket, htmx out-of-band swaps) replaces single
  // seats by id. A replaced seat keeps the shopper's pick while it is still
  // available, and its place in the tab order and focus; a picked seat that
  // someone else just took leaves the selection, and the shopper is told.
  var liveTaken = [];
  var liveFocus = null;
  document.addEventListener('htmx:oobBeforeSwap', function (ev) {
    var old = ev.detail && ev.detail.target;
    if (!old || !old.matches || !old.matches('button.seat')) return;
    var frag = ev.detail.fragment;
    var incoming = frag && frag.querySelector ? frag.querySelector('button.seat') : null;
    var map = old.closest('[data-seatmap]');
    if (!incoming || !map) return;
    incoming.tabIndex = old.tabIndex;
    if (document.activeElement === old) liveFocus = incoming.id;
    var picked = old.getAttribute('aria-pressed') === 'true';
    var available = incoming.getAttribute('data-status') === 'available';
    if (map.getAttribute('data-selectable') === 'true' && available) {
      incoming.setAttribute('aria-pressed', picked ? 'true' : 'false');
      incoming.removeAttribute('aria-disabled');
    } else {
      incoming.removeAttribute('aria-pressed');
      incoming.setAttribute('aria-disabled', 'true');
      if (picked) liveTaken.push(incoming.getAttribute('data-seat'));
    }
  });
  document.addEventListener('htmx:oobAfterSwap', function (ev) {
    var seat = ev.target;
    var map = seat && seat.closest && seat.closest('[data-seatmap]');
    if (!map) return;
    syncSelection(map);
    if (liveFocus) {
      var f = document.getElementById(liveFocus);
      liveFocus = null;
      if (f) f.focus();
    }
    if (liveTaken.length) {
      announce('Seat ' + liveTaken.join(', ') + ' was just taken by someone else and left your selection.');
      liveTaken = [];
    }
  });

  // The hold form sends only when seats are picked; a second click while
  // the first request runs does nothing (and the idempotency key makes even
  // a repeated request harmless).
  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (!form.matches || !form.matches('[data-hold-form]')) return;
    var map = form.querySelector('[data-seatmap]');
    if (map && selected(map).length === 0) {
      ev.preventDefault();
      announce('Pick at least one seat first.');
    }
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
  // Coming back (browser back button, page cache): the buttons work again.
  window.addEventListener('pageshow', function () {
    Array.prototype.forEach.call(document.querySelectorAll('button[data-sent]'), function (b) {
      b.disabled = false;
      b.removeAttribute('data-sent');
    });
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
