// Sandbox Pay's checkout page: the time left to pay, counted down to the
// hold's deadline by the sandbox's clock (the page carries both). At zero
// the buttons are disabled and the page is loaded again: the sandbox
// decides by its own clock, and says why the payment can no longer be made.
(function () {
  'use strict';

  function two(n) { return (n < 10 ? '0' : '') + n; }

  function start(el) {
    var expires = Date.parse(el.getAttribute('data-expires-at'));
    var serverNow = Date.parse(el.getAttribute('data-server-now'));
    if (isNaN(expires)) return;
    // Trust the sandbox's clock: offset is how far ours is behind it.
    var offset = isNaN(serverNow) ? 0 : serverNow - Date.now();
    var display = el.querySelector('[data-countdown-display]');
    var alertRegion = el.querySelector('[data-countdown-alert]');
    var warned = false;
    var timer;
    function say(msg) { if (alertRegion) alertRegion.textContent = msg; }
    function tick() {
      var left = Math.max(0, Math.ceil((expires - (Date.now() + offset)) / 1000));
      if (display) display.textContent = Math.floor(left / 60) + ':' + two(left % 60);
      if (!warned && left > 0 && left <= 60) {
        warned = true;
        el.setAttribute('data-urgent', 'true');
        say('One minute left to pay.');
      }
      if (left > 0) return;
      window.clearInterval(timer);
      el.setAttribute('data-expired', 'true');
      say('The time to pay has run out.');
      Array.prototype.forEach.call(document.querySelectorAll('#main form button'), function (b) { b.disabled = true; });
      // A moment's grace: the sandbox decides expiry by its own clock.
      window.setTimeout(function () { window.location.reload(); }, 1200);
    }
    timer = window.setInterval(tick, 1000);
    tick();
  }

  function ready() {
    Array.prototype.forEach.call(document.querySelectorAll('[data-sandbox-countdown]'), start);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', ready);
  } else {
    ready();
  }
})();
