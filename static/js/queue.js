// The waiting room's page: it follows the room's front over a websocket.
// Every message says how far admission has got (through: everyone numbered
// up to it is in) and the rate achieved; this page knows its own number,
// so it works out its place and wait by itself, and goes on to the seat
// map when the front reaches it. A screen reader is told the place now and
// then, politely, never every second. Without script the page reloads
// itself (a <noscript> refresh).
(function () {
  "use strict";
  var root = document.querySelector("[data-queue]");
  if (!root) return;
  var number = Number(root.getAttribute("data-queue-number") || 0);
  var showURL = root.getAttribute("data-show-url");
  var liveURL = root.getAttribute("data-live-url");
  var posEl = root.querySelector("[data-queue-position]");
  var aheadEl = root.querySelector("[data-queue-ahead]");
  var waitEl = root.querySelector("[data-queue-wait]");
  var statusEl = root.querySelector("[data-queue-status]");
  var announcer = document.getElementById("sr-status");
  var grouped = new Intl.NumberFormat("en");
  var lastSaid = { at: 0, position: 0 };
  var backoff = 1000;
  var failures = 0;
  var reloading = false;

  function plural(n, noun) {
    return n === 1 ? "1 " + noun : n + " " + noun + "s";
  }
  // The same words as the server's (pages.Wait).
  function wait(seconds) {
    if (seconds < 60) return "less than a minute";
    var minutes = Math.ceil(seconds / 60);
    if (minutes < 60) return "about " + plural(minutes, "minute");
    if (minutes % 60 === 0) return "about " + plural(minutes / 60, "hour");
    return "about " + plural(Math.floor(minutes / 60), "hour") + " " + plural(minutes % 60, "minute");
  }

  // say tells a screen reader the place: at most once a minute, sooner
  // only when the turn is near, and never the same twice.
  function say(position, eta) {
    var now = Date.now();
    var near = position <= 10;
    if (position === lastSaid.position) return;
    if (!near && now - lastSaid.at < 60000) return;
    lastSaid = { at: now, position: position };
    if (announcer) {
      announcer.textContent = "Your place in line: " + grouped.format(position) + ". Estimated wait " + wait(eta) + ".";
    }
  }

  function goOn() {
    if (statusEl) statusEl.textContent = "It’s your turn. Opening the seat map…";
    window.location.assign(showURL);
  }

  function onFront(f) {
    if (!f.enabled) return goOn();
    if (!number) {
      // In the pre-queue: the page learns its number once sales open, by
      // reloading. Not all at once: every page of the pre-queue hears the
      // opening in the same second, so each waits a moment of its own.
      if (f.open && !reloading) {
        reloading = true;
        window.setTimeout(function () { window.location.reload(); }, Math.random() * 10000);
      }
      return;
    }
    if (f.through >= number) return goOn();
    var position = Math.max(1, number - f.through);
    var rate = f.per_minute > 0 ? f.per_minute : 1;
    var eta = Math.ceil((position * 60) / rate);
    if (posEl) posEl.textContent = grouped.format(position);
    if (aheadEl) aheadEl.textContent = grouped.format(position - 1);
    if (waitEl) waitEl.textContent = wait(eta);
    say(position, eta);
  }

  function connect() {
    var url = new URL(liveURL, window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    // Far back in the line the server sends the front less often.
    if (number) url.searchParams.set("n", String(number));
    var ws;
    try {
      ws = new WebSocket(url.toString());
    } catch (e) {
      return retry();
    }
    ws.onopen = function () {
      backoff = 1000;
      failures = 0;
    };
    ws.onmessage = function (ev) {
      try {
        onFront(JSON.parse(ev.data));
      } catch (e) {
        /* a message this page cannot read: the next one will do */
      }
    };
    ws.onclose = function () {
      retry();
    };
  }

  function retry() {
    failures++;
    if (failures > 6) {
      // The socket keeps failing: fall back to reloading, which keeps the
      // place and asks the server.
      window.setTimeout(function () { window.location.reload(); }, 20000);
      return;
    }
    window.setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 15000);
  }

  connect();
})();
