// The scheduling forms of the admin's schedule page: each form shows the
// price fields of the screen it has chosen, and only those are sent.
// Without this script every screen's prices show, each under its screen's
// name, and the server reads the chosen screen's.
(function () {
  'use strict';

  function follow(form, announce) {
    var select = form.querySelector('[data-screen-select]');
    if (!select) return;
    var chosen = select.value;
    var names = [];
    form.querySelectorAll('[data-screen-prices]').forEach(function (set) {
      var mine = set.getAttribute('data-screen-prices') === chosen;
      set.hidden = !mine;
      set.disabled = !mine;
      if (mine) {
        set.querySelectorAll('label').forEach(function (l) { names.push(l.textContent.trim()); });
      }
    });
    var status = form.querySelector('[data-prices-status]');
    if (announce && status) {
      var screen = select.options[select.selectedIndex].textContent.trim();
      status.textContent = names.length
        ? 'Prices for ' + screen + ': ' + names.join(', ') + '.'
        : screen + ' has no seats yet.';
    }
  }

  function init() {
    document.querySelectorAll('[data-schedule-form]').forEach(function (form) {
      follow(form, false);
      var select = form.querySelector('[data-screen-select]');
      if (select) select.addEventListener('change', function () { follow(form, true); });
    });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
