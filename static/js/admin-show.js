// The admin's show page: picking seats on the live seat map to block or
// unblock them. The map is the moviegoer's (components.SeatMap, kept live by
// app.js); here an available or blocked seat is a toggle button, and the
// picks are written into the form's seat field, which also works typed by
// hand (and without this script). No inline script: the CSP forbids it.
(function () {
  'use strict';

  function pickable(seat) {
    var s = seat.getAttribute('data-status');
    return s === 'available' || s === 'blocked';
  }

  function announce(msg) {
    var region = document.getElementById('sr-status');
    if (!region) return;
    region.textContent = '';
    window.setTimeout(function () { region.textContent = msg; }, 50);
  }

  function parts() {
    var page = document.querySelector('[data-admin-show]');
    if (!page) return null;
    return {
      page: page,
      map: page.querySelector('[data-seatmap]'),
      input: page.querySelector('[data-block-seats]'),
      clear: page.querySelector('[data-clear-picks]')
    };
  }

  // picks are the seat ids in the field, in order, upper-cased.
  function picks(p) {
    if (!p.input) return [];
    return p.input.value.split(/[\s,;]+/).filter(Boolean).map(function (s) { return s.toUpperCase(); })
      .filter(function (id, i, all) { return all.indexOf(id) === i; });
  }

  function writePicks(p, ids) {
    if (p.input) p.input.value = ids.join(', ');
    if (p.clear) p.clear.hidden = ids.length === 0;
  }

  // sync makes every seat of the map say whether it is picked; a picked seat
  // someone has just held or bought leaves the picks.
  function sync(p, fromLive) {
    if (!p.map) return;
    var ids = picks(p);
    var lost = [];
    Array.prototype.forEach.call(p.map.querySelectorAll('button.seat'), function (seat) {
      var id = seat.getAttribute('data-seat');
      var at = ids.indexOf(id);
      if (pickable(seat)) {
        seat.removeAttribute('aria-disabled');
        seat.setAttribute('aria-pressed', at >= 0 ? 'true' : 'false');
      } else {
        seat.removeAttribute('aria-pressed');
        seat.setAttribute('aria-disabled', 'true');
        if (at >= 0 && fromLive) lost.push(id);
      }
    });
    if (lost.length) {
      writePicks(p, ids.filter(function (id) { return lost.indexOf(id) < 0; }));
      announce((lost.length === 1 ? 'Seat ' + lost[0] + ' was' : 'Seats ' + lost.join(', ') + ' were') +
        ' just held or sold and left your selection.');
    } else if (p.clear) {
      p.clear.hidden = ids.length === 0;
    }
  }

  function toggle(p, seat) {
    var id = seat.getAttribute('data-seat');
    if (!pickable(seat)) {
      announce(seat.getAttribute('aria-label') + '. Held and sold seats cannot be blocked.');
      return;
    }
    var ids = picks(p);
    var at = ids.indexOf(id);
    if (at < 0) ids.push(id); else ids.splice(at, 1);
    writePicks(p, ids);
    seat.setAttribute('aria-pressed', at < 0 ? 'true' : 'false');
    announce((at < 0 ? 'Selected ' : 'Removed ') + id + '. ' + ids.length + ' selected.');
  }

  document.addEventListener('click', function (ev) {
    var p = parts();
    if (!p || !ev.target.closest) return;
    if (ev.target.closest('[data-clear-picks]')) {
      writePicks(p, []);
      sync(p, false);
      announce('Selection cleared.');
      return;
    }
    var seat = ev.target.closest('button.seat');
    if (!seat || !p.map || !p.map.contains(seat)) return;
    // A tap on a hall's overview zooms in (app.js): it picks nothing.
    if (ev.defaultPrevented && ev.detail > 0) return;
    toggle(p, seat);
  });

  // Typing in the field shows the picks on the map.
  document.addEventListener('input', function (ev) {
    var p = parts();
    if (p && ev.target === p.input) sync(p, false);
  });

  // recount writes the seat figures of the occupancy panel from the map,
  // which the live messages keep current: they change with the seats, in
  // the task that changed them, not at the panel's next poll.
  function recount(p) {
    var panel = document.getElementById('occupancy');
    if (!panel || !p.map) return;
    var n = { available: 0, held: 0, booked: 0, blocked: 0 };
    Array.prototype.forEach.call(p.map.querySelectorAll('button.seat'), function (seat) {
      var s = seat.getAttribute('data-status');
      if (s === 'mine') s = 'held';
      if (n.hasOwnProperty(s)) n[s]++;
    });
    Object.keys(n).forEach(function (k) {
      var el = panel.querySelector('[data-count="' + k + '"]');
      if (el && el.textContent !== String(n[k])) el.textContent = String(n[k]);
    });
  }

  // The money (revenue, refunds) is the server's to add up: the panel asks
  // for itself again after the seats change, at most once a second on a
  // busy show (see OccupancyCountsPanel).
  var moneyTimer = 0, moneyNext = 0;
  function refreshMoney() {
    if (moneyTimer || !window.htmx) return;
    moneyTimer = window.setTimeout(function () {
      moneyTimer = 0;
      moneyNext = Date.now() + 1000;
      var panel = document.getElementById('occupancy');
      if (panel) window.htmx.trigger(panel, 'seats-changed');
    }, Math.max(0, moneyNext - Date.now()));
  }

  // app.js applies each live message to the map (in its own listener, which
  // runs first), as for a map nothing can be picked from; the figures are
  // counted again at once, and the picks are put back after it, once for a
  // burst of messages.
  var pending = false;
  document.addEventListener('htmx:wsBeforeMessage', function () {
    var p = parts();
    if (p) recount(p);
    refreshMoney();
    if (pending) return;
    pending = true;
    window.setTimeout(function () {
      pending = false;
      var p = parts();
      if (p) sync(p, true);
    }, 0);
  });

  function init() {
    var p = parts();
    if (!p || !p.map) return;
    // The seats are stamped from their template by app.js's init, which
    // htmx runs on load; wait for it.
    if (p.map.querySelector('template[data-seat-rows]')) {
      window.setTimeout(init, 30);
      return;
    }
    sync(p, false);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
