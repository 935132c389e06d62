// The seat-layout editor (components/admin/screens.templ): makes the served
// grid editable. The page's layout is a model in memory (grid rows of
// cells: a seat of a category, a wheelchair space, a companion seat or a
// gap); the grid's cells show it through data attributes. A change touches
// only the cells it changes; only adding or removing a row or a column
// draws the grid again. One listener of each kind on the grid, none per
// cell. The form's seats field is kept the layout as the JSON API's seats,
// its ideal field the best view ("row,col" of the grid, or "" for the
// default, two thirds of the way back on the centre line).
(function () {
  'use strict';

  var CATEGORY = /^[A-Z][A-Z0-9_]{0,31}$/;

  function rowLabel(i) {
    var s = '';
    for (i++; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + (i - 1) % 26) + s;
    return s;
  }

  function categoryName(c) {
    return c.toLowerCase().split('_').filter(Boolean).map(function (w) {
      return w.charAt(0).toUpperCase() + w.slice(1);
    }).join(' ');
  }

  function Editor(form) {
    this.form = form;
    this.grid = form.querySelector('[data-editor-grid]');
    this.input = form.querySelector('[data-layout-json]');
    this.idealInput = form.querySelector('[data-ideal-input]');
    this.idealText = form.querySelector('[data-ideal-text]');
    this.status = form.querySelector('[data-editor-status]');
    this.count = document.querySelector('[data-editor-count]');
    this.rowInput = form.querySelector('[data-row-label]');
    this.brushes = form.querySelector('[data-brushes]');
    this.cur = { r: 0, c: 0 };
    this.anchor = { r: 0, c: 0 };
    this.sel = null; // {r0, c0, r1, c1}, inclusive
    this.brush = { kind: 'seat', cat: 'STANDARD' };
    this.lastCat = 'STANDARD';
    this.dirty = false;
    this.syncTimer = 0;
    this.load();
  }

  // load builds the model from the served JSON and the grid's size.
  Editor.prototype.load = function () {
    var R = Number(this.grid.getAttribute('data-rows')) || 1;
    var C = Number(this.grid.getAttribute('data-cols')) || 1;
    var seats = [];
    try { seats = JSON.parse(this.input.value) || []; } catch (e) { seats = []; }
    var rows = [];
    for (var r = 0; r < R; r++) {
      var cells = new Array(C);
      for (var c = 0; c < C; c++) cells[c] = { k: 'gap', cat: '', n: 0 };
      rows.push({ label: '', cells: cells });
    }
    seats.forEach(function (s) {
      var row = rows[s.grid_row];
      if (!row || s.grid_col < 0 || s.grid_col >= C) return;
      if (!row.label) row.label = s.row;
      row.cells[s.grid_col] = { k: s.accessible ? 'accessible' : (s.companion ? 'companion' : 'seat'), cat: s.category, n: s.number };
    });
    this.rows = rows;
    this.C = C;
    this.ideal = null; // {r, c}, or null for the default
    var at = /^(\d+),(\d+)$/.exec(this.idealInput ? this.idealInput.value : '');
    if (at) this.ideal = { r: Number(at[1]), c: Number(at[2]) };
    this.idealMarks = {}; // "r,c" -> "set" or "default", as drawn
  };

  Editor.prototype.cellEl = function (r, c) {
    var row = this.grid.children[r];
    return row ? row.children[c + 1] : null;
  };

  Editor.prototype.label = function (r, c) {
    var row = this.rows[r], cell = row.cells[c];
    var prefix = row.label ? 'Row ' + row.label + ', ' : '';
    var ideal = { set: ', best view', 'default': ', best view by default' }[this.idealMarks[r + ',' + c]] || '';
    if (cell.k === 'gap') return (prefix ? prefix + 'gap' : 'Gap') + ideal;
    var s = prefix + 'seat ' + cell.n + ', ' + categoryName(cell.cat);
    if (cell.k === 'accessible') s += ', wheelchair space';
    if (cell.k === 'companion') s += ', companion seat';
    return s + ideal;
  };

  // idealPlace is where the best view is: the cell set, or the default's
  // cells (two when the centre line runs between columns), with words
  // saying so, as the server says them (markIdeal in web/admin/layouts.go).
  Editor.prototype.idealPlace = function () {
    if (this.ideal) {
      return {
        kind: 'set', cells: [this.ideal],
        text: 'Best view: ' + this.rowName(this.ideal.r) + ', column ' + (this.ideal.c + 1) + ', set for this screen.'
      };
    }
    var r0 = Infinity, r1 = -1, c0 = Infinity, c1 = -1;
    for (var r = 0; r < this.rows.length; r++) {
      var cells = this.rows[r].cells;
      for (var c = 0; c < cells.length; c++) {
        if (cells[c].k === 'gap') continue;
        r0 = Math.min(r0, r); r1 = Math.max(r1, r);
        c0 = Math.min(c0, c); c1 = Math.max(c1, c);
      }
    }
    if (r1 < 0) return { kind: 'default', cells: [], text: 'Best view: the default, two thirds of the way back on the centre line.' };
    var row = Math.round(r0 + 2 * (r1 - r0) / 3), mid = (c0 + c1) / 2;
    var left = Math.floor(mid), right = Math.ceil(mid);
    var cols = left === right ? 'column ' + (left + 1) : 'between columns ' + (left + 1) + ' and ' + (right + 1);
    return {
      kind: 'default', cells: left === right ? [{ r: row, c: left }] : [{ r: row, c: left }, { r: row, c: right }],
      text: 'Best view: the default, two thirds of the way back on the centre line (' + this.rowName(row) + ', ' + cols + ').'
    };
  };

  // markIdeal draws the best view where it is now, and keeps the form's
  // ideal field and the words under the grid in step.
  Editor.prototype.markIdeal = function () {
    var old = this.idealMarks, self = this, key, el;
    var place = this.idealPlace();
    this.idealMarks = {};
    place.cells.forEach(function (p) { self.idealMarks[p.r + ',' + p.c] = place.kind; });
    for (key in old) {
      if (this.idealMarks[key] === old[key]) continue;
      var rc = key.split(',');
      el = this.cellEl(Number(rc[0]), Number(rc[1]));
      if (!el) continue;
      el.removeAttribute('data-ideal');
      el.setAttribute('aria-label', this.label(Number(rc[0]), Number(rc[1])));
    }
    for (key in this.idealMarks) {
      var at = key.split(',');
      el = this.cellEl(Number(at[0]), Number(at[1]));
      if (!el) continue;
      el.setAttribute('data-ideal', this.idealMarks[key]);
      el.setAttribute('aria-label', this.label(Number(at[0]), Number(at[1])));
    }
    if (this.idealInput) this.idealInput.value = this.ideal ? this.ideal.r + ',' + this.ideal.c : '';
    if (this.idealText) this.idealText.textContent = place.text;
    var swatch = this.form.querySelector('[data-ideal-swatch]');
    if (swatch) swatch.setAttribute('data-ideal', place.kind);
    return place;
  };

  // draw shows the model's cell r, c in its element.
  Editor.prototype.draw = function (r, c, el) {
    el = el || this.cellEl(r, c);
    var cell = this.rows[r].cells[c];
    el.setAttribute('data-kind', cell.k);
    if (cell.k === 'gap') {
      el.removeAttribute('data-category');
      el.textContent = '';
    } else {
      el.setAttribute('data-category', cell.cat);
      el.textContent = String(cell.n);
    }
    el.setAttribute('aria-label', this.label(r, c));
  };

  // render draws the whole grid again (after a row or column change).
  Editor.prototype.render = function () {
    var frag = document.createDocumentFragment();
    for (var r = 0; r < this.rows.length; r++) {
      var rowEl = document.createElement('div');
      rowEl.setAttribute('role', 'row');
      rowEl.className = 'flex items-center gap-1';
      rowEl.setAttribute('data-r', String(r));
      var head = document.createElement('div');
      head.setAttribute('role', 'rowheader');
      head.className = 'row-label';
      head.textContent = this.rows[r].label;
      rowEl.appendChild(head);
      for (var c = 0; c < this.C; c++) {
        var el = document.createElement('div');
        el.setAttribute('role', 'gridcell');
        el.className = 'editor-cell';
        el.setAttribute('data-c', String(c));
        el.tabIndex = -1;
        this.draw(r, c, el);
        rowEl.appendChild(el);
      }
      frag.appendChild(rowEl);
    }
    this.grid.replaceChildren(frag);
    this.idealMarks = {};
    this.markIdeal();
    this.grid.setAttribute('data-rows', String(this.rows.length));
    this.grid.setAttribute('data-cols', String(this.C));
    this.grid.setAttribute('aria-rowcount', String(this.rows.length));
    this.grid.setAttribute('aria-colcount', String(this.C + 1));
    this.cur.r = Math.min(this.cur.r, this.rows.length - 1);
    this.cur.c = Math.min(this.cur.c, this.C - 1);
    this.sel = null;
    this.anchor = { r: this.cur.r, c: this.cur.c };
    this.setCurrent(this.cur.r, this.cur.c, this.grid.contains(document.activeElement) || document.activeElement === document.body);
  };

  Editor.prototype.setCurrent = function (r, c, focus) {
    var old = this.curEl;
    if (old) { old.tabIndex = -1; old.removeAttribute('data-current'); }
    this.cur = { r: r, c: c };
    var el = this.cellEl(r, c);
    this.curEl = el;
    if (!el) return;
    el.tabIndex = 0;
    el.setAttribute('data-current', 'true');
    if (focus) el.focus();
    if (this.rowInput && document.activeElement !== this.rowInput) this.rowInput.value = this.rows[r].label;
  };

  Editor.prototype.rowName = function (r) {
    return this.rows[r].label ? 'row ' + this.rows[r].label : 'grid row ' + (r + 1);
  };

  Editor.prototype.setSelection = function (sel) {
    var old = this.sel, r, c, el;
    if (old) {
      for (r = old.r0; r <= old.r1; r++) for (c = old.c0; c <= old.c1; c++) {
        if (sel && r >= sel.r0 && r <= sel.r1 && c >= sel.c0 && c <= sel.c1) continue;
        el = this.cellEl(r, c);
        if (el) el.removeAttribute('aria-selected');
      }
    }
    this.sel = sel;
    if (!sel) { this.grid.removeAttribute('aria-multiselectable'); return; }
    this.grid.setAttribute('aria-multiselectable', 'true');
    for (r = sel.r0; r <= sel.r1; r++) for (c = sel.c0; c <= sel.c1; c++) {
      if (old && r >= old.r0 && r <= old.r1 && c >= old.c0 && c <= old.c1) continue;
      el = this.cellEl(r, c);
      if (el) el.setAttribute('aria-selected', 'true');
    }
    var n = (sel.r1 - sel.r0 + 1) * (sel.c1 - sel.c0 + 1);
    var rows = sel.r0 === sel.r1 ? this.rowName(sel.r0) : this.rowName(sel.r0) + ' to ' + this.rowName(sel.r1);
    var cols = sel.c0 === sel.c1 ? 'column ' + (sel.c0 + 1) : 'columns ' + (sel.c0 + 1) + ' to ' + (sel.c1 + 1);
    this.announce('Selected ' + n + (n === 1 ? ' cell: ' : ' cells: ') + rows + ', ' + cols + '.');
  };

  Editor.prototype.rect = function (a, b) {
    return { r0: Math.min(a.r, b.r), r1: Math.max(a.r, b.r), c0: Math.min(a.c, b.c), c1: Math.max(a.c, b.c) };
  };

  Editor.prototype.announce = function (msg) {
    if (!this.status) return;
    // The same words twice are announced twice: a no-break space apart.
    this.status.textContent = this.status.textContent === msg ? msg + '\u00a0' : msg;
  };

  Editor.prototype.brushName = function () {
    switch (this.brush.kind) {
      case 'gap': return 'gap or aisle';
      case 'ideal': return 'best view';
      case 'accessible': return 'wheelchair space';
      case 'companion': return 'companion seat';
    }
    return categoryName(this.brush.cat) + ' seat';
  };

  // paint applies the brush to the cells of rect, renumbers the rows whose
  // seats changed and names a new row of seats. A seat brush painted over a
  // selection of several cells that holds seats changes only those seats
  // (their category, or their kind: a wheelchair space, a companion seat),
  // keeping their numbers: painting the back rows Premium must neither fill
  // in their aisles nor renumber them. Over gaps alone it lays new seats; on
  // one cell it makes that cell the brush's seat.
  Editor.prototype.paint = function (rect) {
    var b = this.brush, touched = {}, count = 0, kept = 0, r, c;
    var block = rect.r0 !== rect.r1 || rect.c0 !== rect.c1;
    var seatsOnly = block && b.kind !== 'gap' && this.holdsSeat(rect);
    if (b.kind === 'ideal') {
      // One cell, the current one, whatever is selected.
      this.ideal = { r: this.cur.r, c: this.cur.c };
      this.changed();
      this.announce(this.markIdeal().text);
      return;
    }
    for (r = rect.r0; r <= rect.r1; r++) {
      var row = this.rows[r];
      for (c = rect.c0; c <= rect.c1; c++) {
        var cell = row.cells[c];
        var was = cell.k;
        if (seatsOnly) {
          if (cell.k === 'gap') { kept++; continue; }
          if (b.kind === 'seat') cell.cat = b.cat; else cell.k = b.kind;
        } else if (b.kind === 'gap') {
          cell.k = 'gap'; cell.cat = ''; cell.n = 0;
        } else if (b.kind === 'seat') {
          cell.k = 'seat'; cell.cat = b.cat;
        } else {
          cell.k = b.kind;
          if (!cell.cat) cell.cat = this.lastCat;
        }
        if ((was === 'gap') !== (cell.k === 'gap')) touched[r] = true;
        count++;
        var el = this.cellEl(r, c);
        if (el.hasAttribute('data-bad')) el.removeAttribute('data-bad');
        this.draw(r, c, el);
      }
    }
    for (var key in touched) {
      r = Number(key);
      if (!this.rows[r].label && this.hasSeats(r)) this.setRowLabel(r, this.freeLabel(r));
      this.renumber(r);
    }
    this.changed();
    this.announce('Painted ' + count + (count === 1 ? ' cell ' : ' cells ') + this.brushName() + '.' +
      (kept ? ' The ' + (kept === 1 ? 'gap' : kept + ' gaps') + ' in the selection stay as they are: paint gaps alone to add seats.' : ''));
  };

  // holdsSeat reports whether any cell of rect is a seat.
  Editor.prototype.holdsSeat = function (rect) {
    for (var r = rect.r0; r <= rect.r1; r++) {
      for (var c = rect.c0; c <= rect.c1; c++) if (this.rows[r].cells[c].k !== 'gap') return true;
    }
    return false;
  };

  Editor.prototype.hasSeats = function (r) {
    return this.rows[r].cells.some(function (cell) { return cell.k !== 'gap'; });
  };

  Editor.prototype.freeLabel = function (r) {
    var used = {};
    this.rows.forEach(function (row) { used[row.label] = true; });
    for (var i = r; ; i++) if (!used[rowLabel(i)]) return rowLabel(i);
  };

  // renumber numbers the seats of row r 1, 2, ... from the left, skipping
  // gaps, and redraws the cells whose number changed.
  Editor.prototype.renumber = function (r) {
    var n = 0, cells = this.rows[r].cells;
    for (var c = 0; c < cells.length; c++) {
      if (cells[c].k === 'gap') continue;
      n++;
      if (cells[c].n !== n) { cells[c].n = n; this.draw(r, c); }
    }
  };

  Editor.prototype.setRowLabel = function (r, label) {
    this.rows[r].label = label;
    var rowEl = this.grid.children[r];
    rowEl.children[0].textContent = label;
    for (var c = 0; c < this.C; c++) rowEl.children[c + 1].setAttribute('aria-label', this.label(r, c));
    if (r === this.cur.r && this.rowInput && document.activeElement !== this.rowInput) this.rowInput.value = label;
  };

  Editor.prototype.changed = function () {
    this.dirty = true;
    var self = this;
    if (!this.syncTimer) this.syncTimer = window.setTimeout(function () { self.sync(); }, 0);
  };

  // sync writes the layout into the form's seats field.
  Editor.prototype.sync = function () {
    window.clearTimeout(this.syncTimer);
    this.syncTimer = 0;
    var seats = [];
    for (var r = 0; r < this.rows.length; r++) {
      var row = this.rows[r];
      for (var c = 0; c < this.C; c++) {
        var cell = row.cells[c];
        if (cell.k === 'gap') continue;
        seats.push({
          id: row.label + cell.n, row: row.label, number: cell.n, category: cell.cat,
          grid_row: r, grid_col: c, accessible: cell.k === 'accessible', companion: cell.k === 'companion'
        });
      }
    }
    this.input.value = JSON.stringify(seats);
    this.markIdeal();
    if (this.count) {
      this.count.textContent = seats.length + ' seats in ' + this.rows.length + ' rows of ' + this.C + ' columns.' +
        (this.dirty ? ' Not saved yet.' : '');
    }
  };

  Editor.prototype.target = function () {
    return this.sel || { r0: this.cur.r, r1: this.cur.r, c0: this.cur.c, c1: this.cur.c };
  };

  Editor.prototype.move = function (r, c, extend) {
    r = Math.max(0, Math.min(this.rows.length - 1, r));
    c = Math.max(0, Math.min(this.C - 1, c));
    this.setCurrent(r, c, true);
    if (extend) {
      this.setSelection(this.rect(this.anchor, this.cur));
    } else {
      this.anchor = { r: r, c: c };
      if (this.sel) this.setSelection(null);
    }
  };

  Editor.prototype.onKey = function (ev) {
    var r = this.cur.r, c = this.cur.c, shift = ev.shiftKey, ctrl = ev.ctrlKey || ev.metaKey;
    switch (ev.key) {
      case 'ArrowUp': this.move(r - 1, c, shift); break;
      case 'ArrowDown': this.move(r + 1, c, shift); break;
      case 'ArrowLeft': this.move(r, c - 1, shift); break;
      case 'ArrowRight': this.move(r, c + 1, shift); break;
      case 'Home': this.move(ctrl ? 0 : r, 0, shift); break;
      case 'End': this.move(ctrl ? this.rows.length - 1 : r, this.C - 1, shift); break;
      case 'PageUp': this.move(r - 5, c, shift); break;
      case 'PageDown': this.move(r + 5, c, shift); break;
      case ' ':
      case 'Enter':
        this.paint(this.target());
        break;
      case 'Escape':
        if (!this.sel) return;
        this.setSelection(null);
        this.anchor = { r: r, c: c };
        this.announce('Selection cleared.');
        break;
      default:
        return;
    }
    ev.preventDefault();
  };

  Editor.prototype.onClick = function (ev) {
    var el = ev.target.closest && ev.target.closest('[role="gridcell"]');
    if (!el || !this.grid.contains(el)) return;
    var r = Number(el.parentNode.getAttribute('data-r')), c = Number(el.getAttribute('data-c'));
    if (ev.shiftKey) {
      this.setCurrent(r, c, true);
      this.setSelection(this.rect(this.anchor, this.cur));
      return;
    }
    if (this.sel) this.setSelection(null);
    this.anchor = { r: r, c: c };
    this.setCurrent(r, c, true);
    this.paint({ r0: r, r1: r, c0: c, c1: c });
  };

  Editor.prototype.setBrush = function (value) {
    if (value.indexOf('seat:') === 0) {
      this.brush = { kind: 'seat', cat: value.slice(5) };
      this.lastCat = this.brush.cat;
    } else {
      this.brush = { kind: value, cat: '' };
    }
    this.announce('Brush: ' + this.brushName() + '.');
  };

  Editor.prototype.addCategory = function () {
    var input = this.form.querySelector('[data-new-category]');
    var cat = input.value.trim().toUpperCase().replace(/\s+/g, '_');
    if (!CATEGORY.test(cat)) {
      this.announce('A category is a capital letter then up to 31 capitals, digits or underscores, like RECLINER.');
      input.focus();
      return;
    }
    var value = 'seat:' + cat;
    var existing = this.brushes.querySelector('input[value="' + value + '"]');
    if (!existing) {
      var label = document.createElement('label');
      label.className = this.brushes.querySelector('label').className;
      existing = document.createElement('input');
      existing.type = 'radio';
      existing.name = 'brush';
      existing.value = value;
      existing.className = 'h-4 w-4 accent-brand-600';
      var swatch = document.createElement('span');
      swatch.className = 'editor-cell pointer-events-none h-5 w-5';
      swatch.setAttribute('data-kind', 'seat');
      swatch.setAttribute('data-category', cat);
      swatch.setAttribute('aria-hidden', 'true');
      label.appendChild(existing);
      label.appendChild(swatch);
      label.appendChild(document.createTextNode('Seat: ' + categoryName(cat)));
      this.brushes.insertBefore(label, this.brushes.querySelector('input[value="accessible"]').closest('label'));
    }
    existing.checked = true;
    input.value = '';
    this.setBrush(value);
  };

  // paintLines paints whole rows (or columns) of the selection or the
  // current cell.
  Editor.prototype.paintLines = function (rows) {
    var t = this.target();
    this.paint(rows ? { r0: t.r0, r1: t.r1, c0: 0, c1: this.C - 1 } : { r0: 0, r1: this.rows.length - 1, c0: t.c0, c1: t.c1 });
  };

  Editor.prototype.command = function (cmd) {
    var r = this.cur.r, c = this.cur.c, self = this, i;
    switch (cmd) {
      case 'paint': this.paint(this.target()); return;
      case 'paint-row': this.paintLines(true); return;
      case 'paint-col': this.paintLines(false); return;
      case 'clear-selection':
        this.setSelection(null);
        this.anchor = { r: r, c: c };
        this.announce('Selection cleared.');
        return;
      case 'add-category': this.addCategory(); return;
      case 'add-row':
        var cells = [];
        for (i = 0; i < this.C; i++) cells.push({ k: 'gap', cat: '', n: 0 });
        this.rows.splice(r + 1, 0, { label: '', cells: cells });
        if (this.ideal && this.ideal.r > r) this.ideal.r++;
        this.cur.r = r + 1;
        this.render();
        this.changed();
        this.announce('Added an empty row below ' + this.rowName(r) + '. Paint seats into it.');
        return;
      case 'remove-row':
        if (this.rows.length === 1) { this.announce('The grid needs one row at least.'); return; }
        var gone = this.rowName(r), lost = this.ideal && this.ideal.r === r;
        this.rows.splice(r, 1);
        if (lost) this.ideal = null;
        else if (this.ideal && this.ideal.r > r) this.ideal.r--;
        this.render();
        this.changed();
        this.announce('Removed ' + gone + '.' + (lost ? ' The best view was in it: it is the default again.' : ''));
        return;
      case 'add-col':
        this.rows.forEach(function (row) { row.cells.splice(c + 1, 0, { k: 'gap', cat: '', n: 0 }); });
        if (this.ideal && this.ideal.c > c) this.ideal.c++;
        this.C++;
        this.cur.c = c + 1;
        this.render();
        this.changed();
        this.announce('Added an empty column right of column ' + (c + 1) + '.');
        return;
      case 'remove-col':
        if (this.C === 1) { this.announce('The grid needs one column at least.'); return; }
        var hit = [];
        this.rows.forEach(function (row, ri) {
          if (row.cells[c].k !== 'gap') hit.push(ri);
          row.cells.splice(c, 1);
        });
        this.C--;
        var lostCol = this.ideal && this.ideal.c === c;
        if (lostCol) this.ideal = null;
        else if (this.ideal && this.ideal.c > c) this.ideal.c--;
        hit.forEach(function (ri) {
          var n = 0;
          self.rows[ri].cells.forEach(function (cell) { if (cell.k !== 'gap') cell.n = ++n; });
        });
        this.render();
        this.changed();
        this.announce('Removed column ' + (c + 1) + '.' + (lostCol ? ' The best view was in it: it is the default again.' : ''));
        return;
      case 'reset-ideal':
        this.ideal = null;
        this.changed();
        this.announce(this.markIdeal().text);
        return;
      case 'rename-row':
        var label = this.rowInput.value.trim();
        if (!/^[A-Za-z0-9-]{1,8}$/.test(label)) {
          this.announce('A row label is 1 to 8 letters, digits or dashes.');
          this.rowInput.focus();
          return;
        }
        this.setRowLabel(r, label);
        this.changed();
        this.announce('Grid row ' + (r + 1) + ' is now row ' + label + '.');
        return;
      case 'relabel':
        var next = 0;
        for (i = 0; i < this.rows.length; i++) {
          this.setRowLabel(i, this.hasSeats(i) ? rowLabel(next++) : '');
          this.renumber(i);
        }
        this.changed();
        this.announce('Rows labelled A to ' + (next ? rowLabel(next - 1) : 'A') + ' from the front; seats numbered from the left.');
    }
  };

  Editor.prototype.start = function () {
    var self = this;
    this.grid.removeAttribute('aria-readonly');
    Array.prototype.forEach.call(this.grid.querySelectorAll('[data-ideal]'), function (el) {
      var rc = { r: Number(el.parentNode.getAttribute('data-r')), c: Number(el.getAttribute('data-c')) };
      self.idealMarks[rc.r + ',' + rc.c] = el.getAttribute('data-ideal');
    });
    this.markIdeal();
    this.setCurrent(0, 0, false);
    var checked = this.brushes.querySelector('input[name="brush"]:checked');
    if (checked) this.setBrush(checked.value);
    this.status.textContent = '';
    this.grid.addEventListener('keydown', function (ev) { self.onKey(ev); });
    this.grid.addEventListener('click', function (ev) { self.onClick(ev); });
    this.form.addEventListener('change', function (ev) {
      if (ev.target.name === 'brush') self.setBrush(ev.target.value);
    });
    this.form.addEventListener('click', function (ev) {
      var btn = ev.target.closest && ev.target.closest('[data-cmd]');
      if (btn) self.command(btn.getAttribute('data-cmd'));
    });
    this.form.addEventListener('keydown', function (ev) {
      // Enter in the editor's own text fields runs their command, not the
      // form's Save.
      if (ev.key !== 'Enter') return;
      if (ev.target === self.rowInput) { ev.preventDefault(); self.command('rename-row'); }
      if (ev.target.hasAttribute && ev.target.hasAttribute('data-new-category')) { ev.preventDefault(); self.command('add-category'); }
    });
    this.form.addEventListener('submit', function () { self.sync(); self.dirty = false; });
    this.form.addEventListener('htmx:configRequest', function (ev) {
      self.sync();
      ev.detail.parameters.seats = self.input.value;
    });
    window.addEventListener('beforeunload', function (ev) {
      if (self.dirty) ev.preventDefault();
    });
    Array.prototype.forEach.call(this.form.querySelectorAll('[data-editor-tools], [data-editor-actions]'), function (el) {
      el.hidden = false;
    });
    var notice = document.getElementById('editor-notice');
    if (notice) notice.focus();
  };

  function init() {
    var form = document.querySelector('[data-layout-editor]');
    if (!form || form._editor) return;
    form._editor = new Editor(form);
    form._editor.start();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
