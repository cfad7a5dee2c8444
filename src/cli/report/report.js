/* gcheap report: draws the page from the JSON in #gcheap-data (written by
 * gcheap report; schema in docs/report.md). Everything from the data goes in
 * through textContent, setAttribute and createElementNS: never innerHTML, so a
 * type name is always text. No network request (the page's
 * Content-Security-Policy forbids them anyway). */
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  var ROW = 20;          /* icicle row height (px) */
  var MAX_DEPTH = 26;    /* icicle levels drawn below the zoomed node */
  var MIN_WIDTH = 1.5;   /* narrower nodes (px) are not drawn */
  var PAGE_ROWS = 300;   /* table rows shown before "show all" */

  /* ------------------------------------------------------------ helpers */

  function el(tag, props) {
    var e = document.createElement(tag);
    if (props) {
      for (var k in props) {
        if (!Object.prototype.hasOwnProperty.call(props, k)) continue;
        if (k === 'text') e.textContent = props[k];
        else if (k === 'cls') e.className = props[k];
        else e.setAttribute(k, props[k]);
      }
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }

  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    }
    return e;
  }

  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function fmtBytes(n) {
    if (n < 1024) return n + ' B';
    var u = 0, v = n;
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + UNITS[u];
  }
  function fmtCount(n) { return Number(n).toLocaleString('en-US'); }
  function fmtExact(n) { return fmtCount(n) + ' bytes'; }
  function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + '%' : '-'; }
  function fmtSigned(n, f) { return (n > 0 ? '+' : n < 0 ? '\u2212' : '') + f(Math.abs(n)); }

  /* A stable colour per type name (warm for most, grey for merged). */
  function hue(name) {
    var h = 2166136261;
    for (var i = 0; i < name.length; i++) {
      h ^= name.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    return (h >>> 0) % 360;
  }
  function colourOf(name) {
    var hh = hue(name);
    return 'hsl(' + hh + ',62%,' + (72 + (hh % 3) * 4) + '%)';
  }

  var tip = document.getElementById('tip');
  function showTip(ev, lines) {
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    lines.forEach(function (l) { tip.appendChild(el('div', { text: l })); });
    tip.hidden = false;
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var r = tip.getBoundingClientRect();
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - r.width - 14);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - r.height - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function hideTip() { tip.hidden = true; }

  /* A sortable, filterable table. cols: [{key, label, cls, num, cell(row)
   * -> Node|string}], rows: array of objects, sortKey/desc: initial order,
   * filterOf(row): the text the filter matches; detail(row) -> Node|null:
   * a row with a detail gets a toggle that opens it under the row (row._open
   * keeps it open across sorting and filtering). */
  function sortableTable(cols, rows, opts) {
    var box = el('div');
    var controls = el('div', { cls: 'controls' });
    var filter = el('input', { type: 'search', placeholder: opts.placeholder || 'filter by type name',
                               'aria-label': 'filter' });
    var count = el('span', { cls: 'note' });
    controls.appendChild(filter);
    if (opts.extraControls) opts.extraControls.forEach(function (c) { controls.appendChild(c); });
    controls.appendChild(count);
    box.appendChild(controls);
    var wrap = el('div', { cls: 'tablewrap' });
    var table = el('table', { cls: opts.cls || '' });
    var thead = el('thead'), tr = el('tr');
    var state = { key: opts.sortKey, desc: opts.desc !== false, all: false };
    if (opts.detail) tr.appendChild(el('th', { cls: 'toggle', scope: 'col' }));
    var ths = cols.map(function (c) {
      var th = el('th', { text: c.label, cls: (c.cls || '') + (c.key ? ' sortable' : ''), scope: 'col' });
      if (c.key) {
        th.addEventListener('click', function () {
          if (state.key === c.key) state.desc = !state.desc;
          else { state.key = c.key; state.desc = !!c.num; }
          render();
        });
      }
      tr.appendChild(th);
      return th;
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el('tbody');
    table.appendChild(tbody);
    wrap.appendChild(table);
    box.appendChild(wrap);
    var more = el('button', { type: 'button', hidden: 'hidden' });
    more.addEventListener('click', function () { state.all = true; render(); });
    box.appendChild(el('div', null, more));

    function render() {
      var q = filter.value.trim().toLowerCase();
      var shown = rows.filter(function (r) {
        return (!opts.accept || opts.accept(r)) && (!q || opts.filterOf(r).toLowerCase().indexOf(q) >= 0);
      });
      var key = state.key, sign = state.desc ? -1 : 1;
      shown.sort(function (a, b) {
        var x = a[key], y = b[key];
        if (x < y) return -sign;
        if (x > y) return sign;
        return a._i - b._i;
      });
      cols.forEach(function (c, i) {
        ths[i].classList.remove('asc', 'desc');
        if (c.key === key) ths[i].classList.add(state.desc ? 'desc' : 'asc');
      });
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      var limit = state.all ? shown.length : Math.min(shown.length, PAGE_ROWS);
      var frag = document.createDocumentFragment();
      for (var i = 0; i < limit; i++) {
        var row = el('tr');
        var detail = opts.detail ? opts.detail(shown[i]) : null;
        if (opts.detail) row.appendChild(el('td', { cls: 'toggle' }, detail ? toggleButton(shown[i], render) : null));
        for (var j = 0; j < cols.length; j++) {
          var v = cols[j].cell(shown[i]);
          row.appendChild(el('td', { cls: cols[j].cls || '' }, v));
        }
        frag.appendChild(row);
        if (detail && shown[i]._open) {
          frag.appendChild(el('tr', { cls: 'detail' }, el('td', { colspan: String(cols.length + 1) }, detail)));
        }
      }
      tbody.appendChild(frag);
      count.textContent = fmtCount(shown.length) + ' of ' + fmtCount(rows.length) + ' rows';
      if (limit < shown.length) {
        more.hidden = false;
        more.textContent = 'show all ' + fmtCount(shown.length) + ' rows';
      } else {
        more.hidden = true;
      }
    }
    filter.addEventListener('input', function () { state.all = false; render(); });
    box.rerender = render;
    render();
    return box;
  }

  /* The button that opens or closes a row's detail (row._open). */
  function toggleButton(row, rerender) {
    var b = el('button', { type: 'button', cls: 'toggle', 'aria-expanded': String(!!row._open),
                           title: row._open ? 'close' : 'open', text: row._open ? '\u25be' : '\u25b8' });
    b.addEventListener('click', function () { row._open = !row._open; rerender(); });
    return b;
  }

  /* A path from a GC root (report_path.h's data): the root's kind and
   * holder, then each step's field, type and id; elided steps as one line. */
  function fieldText(f) {
    if (!f) return '';
    var c = f.charAt(0);
    return (c === '.' || c === '[' || c === '{' || c === '<' || f.indexOf(' ') >= 0 ? '' : '.') + f;
  }
  function renderPath(p) {
    var box = el('div', { cls: 'pathbox' });
    if (!p) {
      box.appendChild(el('p', { cls: 'note', text: 'No path from a GC root reaches it.' }));
      return box;
    }
    box.appendChild(el('p', { cls: 'note', text: 'Path from a GC root (' + fmtCount(p.length) + ' step' +
      (p.length === 1 ? '' : 's') + '), as gcheap retainers shows it:' }));
    var ol = el('ol', { cls: 'path', start: '0' });
    var prev = -1;
    p.steps.forEach(function (st, i) {
      if (i && st.depth !== prev + 1) {
        ol.appendChild(el('li', { cls: 'elided', text: '\u2026 ' + fmtCount(st.depth - prev - 1) + ' steps elided \u2026' }));
      }
      prev = st.depth;
      var t = '';
      if (st.depth === 0 && p.root_kind) t = '[' + p.root_kind + ' root' + (p.holder ? ' ' + p.holder : '') + '] ';
      if (st.field) t += fieldText(st.field) + ' \u2192 ';
      t += st.type + ' (id ' + st.id + ', ' + fmtCount(st.size) + ' bytes)';
      var li = el('li', { text: t });
      li.setAttribute('value', String(st.depth));
      ol.appendChild(li);
    });
    box.appendChild(ol);
    return box;
  }

  function bar(value, max, cls, fromCentre) {
    var b = el('div', { cls: 'barbox' });
    var s = el('span', { cls: cls || '' });
    var w = max > 0 ? Math.min(100, 100 * Math.abs(value) / max) : 0;
    if (fromCentre) {
      w /= 2;
      s.style.left = (value < 0 ? 50 - w : 50) + '%';
    } else {
      s.style.left = '0';
    }
    s.style.width = w + '%';
    b.appendChild(s);
    return b;
  }

  /* ------------------------------------------------------------ overview */

  function card(label, value, sub) {
    return el('div', { cls: 'card' }, el('div', { cls: 'k', text: label }),
              el('div', { cls: 'v', text: value }), sub ? el('div', { cls: 's', text: sub }) : null);
  }

  var ANOMALY_TEXT = {
    dangling_references: 'references to objects not in the dump (dropped)',
    objects_of_undeclared_types: 'objects of undeclared types',
    undeclared_types: 'undeclared types',
    roots_on_absent_objects: 'roots naming objects not in the dump',
    duplicate_objects: 'duplicate object records (ignored)',
    duplicate_types: 'duplicate type records (first kept)',
    undeclared_static_containers: 'static roots whose container type is not declared',
    missing_end_record: 'section not closed (truncated dump)',
    end_record_mismatch: 'closing record names another section'
  };

  function renderCards(sec) {
    var t = sec.totals;
    return el('div', { cls: 'cards' },
      card('format', sec.format + (sec.sampled ? ' (sampled)' : '')),
      card('objects', fmtCount(t.objects), fmtBytes(t.bytes)),
      card('live (reachable from ' + (sec.include_weak ? 'all' : 'strong') + ' roots)',
           fmtBytes(t.live_bytes), fmtCount(t.live_objects) + ' objects, ' + pct(t.live_bytes, t.bytes)),
      card('unreachable', fmtBytes(t.unreachable_bytes),
           fmtCount(t.unreachable_objects) + ' objects, ' + pct(t.unreachable_bytes, t.bytes)),
      card('types', fmtCount(t.types)),
      card('references', fmtCount(t.references)),
      card('roots', fmtCount(t.roots), fmtCount(t.strong_roots) + ' strong'),
      card('anomalies', fmtCount(Object.keys(sec.anomalies).reduce(function (a, k) { return a + sec.anomalies[k]; }, 0)),
           'listed under Details'));
  }

  function renderDetails(sec, dump) {
    var box = el('div', { cls: 'details' });
    var meta = el('table', { cls: 'meta' });
    meta.appendChild(el('tr', null, el('td', { text: 'file' }), el('td', { text: dump.file })));
    meta.appendChild(el('tr', null, el('td', { text: 'section' }), el('td', { text: sec.name })));
    sec.meta.forEach(function (kv) {
      meta.appendChild(el('tr', null, el('td', { text: kv[0] }), el('td', { text: kv[1] })));
    });
    box.appendChild(el('div', null, el('h3', { text: 'Metadata' }), meta));
    var list = el('ul', { cls: 'anomalies' });
    Object.keys(sec.anomalies).forEach(function (k) {
      var n = sec.anomalies[k];
      if (n) list.appendChild(el('li', { cls: 'anomaly', text: fmtCount(n) + ' ' + (ANOMALY_TEXT[k] || k) }));
    });
    if (!list.firstChild) list.appendChild(el('li', { text: 'none' }));
    box.appendChild(el('div', null, el('h3', { text: 'Anomalies' }), list));
    return box;
  }

  /* ------------------------------------------------------------ icicle */

  function Icicle(sec, index) {
    var tr = sec.tree, n = tr.parent.length;
    var names = sec.types.name;
    var kids = new Array(n);
    for (var k = 0; k < n; k++) kids[k] = [];
    for (k = 1; k < n; k++) kids[tr.parent[k]].push(k);
    for (k = 0; k < n; k++) {
      /* Biggest first; the merged "(N smaller objects)" last, whatever its size. */
      if (kids[k].length > 1) {
        kids[k].sort(function (a, b) {
          return (tr.type[a] < 0) - (tr.type[b] < 0) || tr.retained[b] - tr.retained[a] || a - b;
        });
      }
    }
    this.sec = sec;
    this.tr = tr;
    this.kids = kids;
    this.names = names;
    this.zoom = 0;
    this.box = el('div', { cls: 'chart', id: 'chart-' + index });
    this.crumbs = el('div', { cls: 'crumbs', 'aria-label': 'zoom path' });
    this.svg = svgEl('svg', { role: 'img', 'aria-label': 'dominator tree by retained size' });
    this.note = el('div', { cls: 'note' });
    this.box.appendChild(this.crumbs);
    this.box.appendChild(this.svg);
    this.box.appendChild(this.note);
    var self = this;
    this.svg.addEventListener('click', function (ev) {
      var node = nodeOf(ev.target);
      if (node >= 0) self.zoomTo(node === self.zoom && node !== 0 ? tr.parent[node] : node);
    });
    this.svg.addEventListener('mousemove', function (ev) {
      var node = nodeOf(ev.target);
      var rest = ev.target.getAttribute && ev.target.getAttribute('data-rest');
      if (rest) {
        showTip(ev, [fmtCount(+rest) + ' children of ' + self.label(node) + ' too narrow to draw',
                     'retained ' + fmtExact(+ev.target.getAttribute('data-rest-bytes')), 'click to zoom in']);
      } else if (node >= 0) {
        showTip(ev, self.describe(node));
      } else {
        hideTip();
      }
    });
    this.svg.addEventListener('mouseleave', hideTip);
  }

  function nodeOf(target) {
    var v = target && target.getAttribute && target.getAttribute('data-node');
    return v === null || v === undefined ? -1 : +v;
  }

  Icicle.prototype.label = function (node) {
    var tr = this.tr;
    if (node === 0) return 'all live objects';
    if (tr.type[node] < 0) return '(' + fmtCount(tr.merged[node]) + ' smaller object' + (tr.merged[node] === 1 ? '' : 's') + ')';
    return this.names[tr.type[node]];
  };

  Icicle.prototype.describe = function (node) {
    var tr = this.tr, live = tr.retained[0];
    var lines = [this.label(node)];
    if (node !== 0 && tr.type[node] >= 0) {
      lines.push('id ' + tr.id[node]);
      lines.push('size ' + fmtExact(tr.size[node]));
    } else if (node !== 0) {
      lines.push('merged: dominator-tree children of ' + this.label(tr.parent[node]) + ', each retaining less than what is shown');
    }
    lines.push('retained ' + fmtExact(tr.retained[node]) + ' (' + fmtBytes(tr.retained[node]) + ', ' +
               pct(tr.retained[node], live) + ' of live)');
    if (this.kids[node].length) lines.push('click to zoom in');
    return lines;
  };

  Icicle.prototype.zoomTo = function (node) {
    this.zoom = node;
    this.render();
  };

  Icicle.prototype.renderCrumbs = function () {
    var tr = this.tr, path = [];
    for (var v = this.zoom; v !== -1 && v !== undefined; v = v === 0 ? -1 : tr.parent[v]) path.push(v);
    path.reverse();
    var c = this.crumbs, self = this;
    while (c.firstChild) c.removeChild(c.firstChild);
    var items = path;
    if (path.length > 12) items = path.slice(0, 2).concat([null], path.slice(path.length - 9));
    items.forEach(function (v, i) {
      if (i) c.appendChild(el('span', { cls: 'sep', text: '\u203a' }));
      if (v === null) {
        c.appendChild(el('span', { cls: 'sep', text: '\u2026 ' + (path.length - 11) + ' levels \u2026' }));
        return;
      }
      var b = el('button', { type: 'button', text: self.label(v) + ' ' + fmtBytes(tr.retained[v]),
                             title: self.label(v) });
      b.setAttribute('data-node', String(v));
      b.addEventListener('click', function () { self.zoomTo(v); });
      c.appendChild(b);
    });
  };

  Icicle.prototype.render = function () {
    hideTip();
    this.renderCrumbs();
    var svg = this.svg, tr = this.tr, kids = this.kids;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var W = Math.max(320, Math.floor(this.box.clientWidth - 14) || 1000);
    var root = this.zoom, total = tr.retained[root] || 1;
    var stack = [[root, 0, W, 0]], drawn = 0, hidden = 0, maxDepth = 0;
    var frag = document.createDocumentFragment();
    while (stack.length) {
      var item = stack.pop(), v = item[0], x = item[1], w = item[2], d = item[3];
      if (d > maxDepth) maxDepth = d;
      var merged = v !== 0 && tr.type[v] < 0;
      var name = this.label(v);
      var g = svgEl('g', {});
      var rect = svgEl('rect', {
        x: x.toFixed(2), y: d * ROW, width: Math.max(0.5, w - 0.5).toFixed(2), height: ROW - 1,
        fill: v === 0 ? '#8fa3c8' : merged ? 'var(--merged)' : colourOf(name), 'data-node': String(v)
      });
      g.appendChild(rect);
      if (w > 46) {
        var txt = svgEl('text', { x: (x + 4).toFixed(2), y: d * ROW + 14 });
        var s = name + ' ' + fmtBytes(tr.retained[v]);
        var fit = Math.floor((w - 8) / 6.6);
        txt.textContent = s.length > fit ? s.slice(0, Math.max(1, fit - 1)) + '\u2026' : s;
        g.appendChild(txt);
      }
      frag.appendChild(g);
      drawn++;
      if (d + 1 >= MAX_DEPTH) { hidden += kids[v].length; continue; }
      var cx = x, ch = kids[v];
      /* Children are pushed in reverse so the biggest is drawn first. */
      var placed = [], rest = 0, restCount = 0;
      for (var i = 0; i < ch.length; i++) {
        var cw = w * tr.retained[ch[i]] / (tr.retained[v] || 1);
        if (cw < MIN_WIDTH && tr.type[ch[i]] >= 0) {
          /* The rest are narrower still, but for the merged node (last). */
          var last = ch[ch.length - 1], mergedLast = tr.type[last] < 0 && i < ch.length - 1;
          var end = mergedLast && w * tr.retained[last] / (tr.retained[v] || 1) >= MIN_WIDTH ? ch.length - 1 : ch.length;
          restCount = end - i;
          for (var j = i; j < end; j++) rest += tr.retained[ch[j]];
          hidden += restCount;
          if (end < ch.length) {
            /* Leave room for the narrow ones, then draw the merged node. */
            var lw = w * tr.retained[last] / (tr.retained[v] || 1);
            placed.push([last, cx + w * rest / (tr.retained[v] || 1), lw, d + 1]);
          }
          break;
        }
        if (cw < MIN_WIDTH) { hidden++; continue; }
        placed.push([ch[i], cx, cw, d + 1]);
        cx += cw;
      }
      /* The children too narrow to draw, as one hatched block (their width
       * is still theirs); hovering names them, clicking zooms into v. */
      var rw = w * rest / (tr.retained[v] || 1);
      if (restCount && rw >= 1) {
        frag.appendChild(svgEl('rect', {
          x: cx.toFixed(2), y: (d + 1) * ROW, width: Math.max(0.5, rw - 0.5).toFixed(2), height: ROW - 1,
          fill: 'url(#hatch)', 'data-node': String(v), 'data-rest': String(restCount), 'data-rest-bytes': String(rest)
        }));
        if (d + 1 > maxDepth) maxDepth = d + 1;
      }
      for (i = placed.length - 1; i >= 0; i--) stack.push(placed[i]);
    }
    var defs = svgEl('defs', {});
    var pat = svgEl('pattern', { id: 'hatch', width: 4, height: 4, patternUnits: 'userSpaceOnUse',
                                 patternTransform: 'rotate(45)' });
    pat.appendChild(svgEl('rect', { width: 4, height: 4, fill: '#e3e6ec' }));
    pat.appendChild(svgEl('rect', { width: 2, height: 4, fill: '#b4bac6' }));
    defs.appendChild(pat);
    svg.appendChild(defs);
    var H = (maxDepth + 1) * ROW;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', String(H));
    svg.appendChild(frag);
    this.note.textContent = fmtCount(drawn) + ' nodes drawn' +
      (hidden ? ', ' + fmtCount(hidden) + ' too narrow or too deep to draw (zoom in to see them)' : '') +
      '. ' + fmtCount(tr.parent.length) + ' nodes in the report; the ' + fmtCount(sec_kept(tr)) +
      ' objects that retain the most are kept, smaller children merged per parent. Total: ' +
      fmtBytes(total) + '. Click to zoom, click the zoomed node or the path above to go back out.';
  };

  function sec_kept(tr) {
    var k = 0;
    for (var i = 1; i < tr.type.length; i++) if (tr.type[i] >= 0) k++;
    return k;
  }

  /* ------------------------------------------------------------ types */

  /* A type row opened: its biggest instances by retained size and the path
   * that holds the first. */
  function renderInstances(inst, name) {
    var box = el('div', { cls: 'instances' });
    box.appendChild(el('p', { cls: 'note', text: 'The ' + (inst.objects.length === 1 ? 'biggest instance' :
      fmtCount(inst.objects.length) + ' biggest instances') + ' of ' + name + ' by retained size:' }));
    var t = el('table', { cls: 'inst' });
    t.appendChild(el('tr', null, el('th', { text: 'id' }), el('th', { text: 'shallow' }), el('th', { text: 'retained' })));
    inst.objects.forEach(function (o) {
      t.appendChild(el('tr', null, el('td', { text: o.id }), el('td', { text: fmtCount(o.size) }),
                       el('td', { text: fmtCount(o.retained) })));
    });
    box.appendChild(t);
    box.appendChild(el('p', { cls: 'note', text: 'Why the first (id ' + inst.objects[0].id + ') is alive:' }));
    box.appendChild(renderPath(inst.path));
    return box;
  }

  /* #open=NAME in the page's address opens the type row NAME (and leak rows
   * whose signature or type is NAME). */
  var openName = (function () {
    var h = window.location.hash;
    if (h.indexOf('#open=') !== 0) return null;
    try { return decodeURIComponent(h.slice(6)); } catch (e) { return null; }
  }());

  function renderTypes(sec) {
    var ty = sec.types, rows = [], inst = {};
    (sec.instances || []).forEach(function (x) { inst[x.row] = x; });
    for (var i = 0; i < ty.name.length; i++) {
      rows.push({ _i: i, name: ty.name[i], count: ty.count[i], bytes: ty.bytes[i], retained: ty.retained[i],
                  _open: openName !== null && ty.name[i] === openName && !!inst[i] });
    }
    var total = sec.totals.bytes, live = sec.totals.live_bytes;
    var cols = [
      { key: 'count', label: 'count', num: true, cell: function (r) { return fmtCount(r.count); } },
      { key: 'bytes', label: 'bytes', num: true, cell: function (r) { return fmtCount(r.bytes); } },
      { label: '% of all', cell: function (r) { return pct(r.bytes, total); } },
      { key: 'retained', label: 'retained', num: true, cell: function (r) { return fmtCount(r.retained); } },
      { label: 'retained share', cls: 'bar', cell: function (r) { return bar(r.retained, live); } },
      { key: 'name', label: 'type', cls: 'name', cell: function (r) { return r.name; } }
    ];
    var box = sortableTable(cols, rows, { sortKey: 'bytes', filterOf: function (r) { return r.name; }, cls: 'types',
      detail: function (r) { return inst[r._i] ? renderInstances(inst[r._i], r.name) : null; } });
    if (ty.omitted_types) {
      box.appendChild(el('p', { cls: 'note', text: fmtCount(ty.omitted_types) + ' smaller types (' +
        fmtBytes(ty.omitted_bytes) + ') are not listed (gcheap report --types N).' }));
    }
    box.appendChild(el('p', { cls: 'note', text: 'retained: the memory freed if every instance went away ' +
      '(the union of their dominator subtrees); types overlap, so the column does not add up. ' +
      'A row with \u25b8 opens to its biggest instances and the path that holds the first ' +
      '(gcheap report --instances K --instance-types N).' }));
    return box;
  }

  /* ------------------------------------------------------------ waste */

  /* Wasted memory (gcheap report --waste; absent without it): the rows of
   * gcheap waste, one table. */
  function renderWaste(list) {
    var s = el('section', { cls: 'waste' });
    s.appendChild(el('h2', { text: 'Wasted memory' }));
    if (!list.length) {
      s.appendChild(el('p', { text: 'No waste found: no duplicate strings or arrays, no empty or under-filled collections.' }));
      return s;
    }
    var t = el('table'), head = el('tr');
    ['section', 'type', 'count', 'bytes', 'wasted', 'value'].forEach(function (h) { head.appendChild(el('th', { text: h })); });
    t.appendChild(head);
    list.forEach(function (r) {
      var tr = el('tr');
      [r.section, r.type, fmtCount(r.count), fmtBytes(r.bytes), fmtBytes(r.wasted),
       r.value === null ? '' : '"' + r.value + '"'].forEach(function (v) { tr.appendChild(el('td', { text: v })); });
      t.appendChild(tr);
    });
    s.appendChild(t);
    return s;
  }

  /* ------------------------------------------------------------ leak rules */

  /* Leak-rule findings (gcheap report --suspects; absent without it), one
   * section per rule that found something: each finding's objects and the
   * trace from a GC root as gcheap suspects prints it ("~" marks the
   * references of the suspect window). Text only (textContent). */
  function renderTrace(g) {
    var ol = el('ol', { cls: 'trace', start: '0' });
    g.path.forEach(function (st, i) {
      var li = el('li');
      var head = st.type + ' @' + st.id + '  leaking: ' + st.leaking + (st.reason ? ' (' + st.reason + ')' : '');
      li.appendChild(el('div', { cls: 'step leaking-' + st.leaking, text: head }));
      var next = g.path[i + 1];
      if (next) {
        var inWindow = i >= g.window.from && i < g.window.to;
        li.appendChild(el('div', { cls: inWindow ? 'ref window' : 'ref',
          text: (inWindow ? '~ ' : '| ') + next.holder + (next.library_leak ? ' (library leak)' : '') }));
      }
      ol.appendChild(li);
    });
    return ol;
  }

  function renderRules(rules) {
    var box = el('div', { cls: 'rules' });
    if (!rules.findings.length) {
      box.appendChild(el('h2', { text: 'Leak rules' }));
      box.appendChild(el('p', { text: rules.why_none ? 'No leak rule could run: ' + rules.why_none + '.'
        : 'No leak rule found anything.' }));
      return box;
    }
    var order = [], byRule = {};
    rules.findings.forEach(function (g) {
      if (!Object.prototype.hasOwnProperty.call(byRule, g.rule)) { byRule[g.rule] = []; order.push(g.rule); }
      byRule[g.rule].push(g);
    });
    order.forEach(function (rule) {
      var s = el('section', { cls: 'rule', 'data-rule': rule });
      s.appendChild(el('h2', { text: 'Leak rule: ' + rule }));
      byRule[rule].forEach(function (g) {
        s.appendChild(el('p', { cls: 'finding', text: fmtCount(g.count) + (g.count === 1 ? ' object of ' : ' objects of ') +
          g.type + ', ' + fmtBytes(g.retained) + ' retained (' + g.percent + '% of the live bytes)' +
          (g.library_leak ? ', a known library leak' : '') + ': ' + g.reason }));
        s.appendChild(el('p', { cls: 'note', text: 'root: ' + (g.path.length ? g.path[0].holder : '') }));
        s.appendChild(renderTrace(g));
      });
      s.appendChild(el('p', { cls: 'note', text: '~: the references between the last step not leaking and the first leaking one (the suspect window).' }));
      box.appendChild(s);
    });
    return box;
  }

  /* ------------------------------------------------------------ suspects */

  /* Leak suspects (gcheap report --suspects; null without it): Eclipse MAT's
   * rule as gcheap suspects computes it. Each suspect: what it retains, its
   * accumulation point (shown in the chart when it is there), the path from
   * a GC root and what it holds by type. */
  function renderSuspects(list, sec, chart) {
    var s = el('section', { cls: 'suspects' });
    s.appendChild(el('h2', { text: 'Leak suspects' }));
    var live = sec.totals.live_bytes;
    if (!list.length) {
      s.appendChild(el('p', { text: 'No suspect: no object or type retains more than 10% of the live bytes.' }));
    }
    list.forEach(function (x, i) {
      var what = x.group ? fmtCount(x.instances) + ' instances of ' + x.type : x.type + ' (id ' + x.id + ')';
      s.appendChild(el('h3', { text: (i + 1) + '. ' + what + ' retains ' + fmtBytes(x.retained) +
        ' (' + pct(x.retained, live) + ' of live, ' + fmtCount(x.retained_objects) + ' objects)' }));
      var acc = x.accumulation;
      var p = el('p', null, 'Accumulation point: ' + acc.type + ' (id ' + acc.id + '), retaining ' +
        fmtBytes(acc.retained) + ', ' + fmtCount(acc.depth) + ' level' + (acc.depth === 1 ? '' : 's') + ' below. ');
      var node = -1, tr = sec.tree;
      for (var k = 1; k < tr.id.length; k++) if (tr.type[k] >= 0 && tr.id[k] === acc.id) { node = k; break; }
      if (node >= 0) {
        var b = el('button', { type: 'button', text: 'show in the chart' });
        b.addEventListener('click', function () { chart.zoomTo(node); chart.box.scrollIntoView(); });
        p.appendChild(b);
      }
      s.appendChild(p);
      if (x.path.length) {
        var ol = el('ol', { cls: 'path' });
        x.path.forEach(function (step, j) {
          var t = (j === 0 && x.root_kind ? '[' + x.root_kind + ' root' + (x.holder ? ' ' + x.holder : '') + '] ' : '') +
                  (step.field ? '.' + step.field + ' \u2192 ' : '') + step.type + ' (id ' + step.id + ')';
          ol.appendChild(el('li', { text: t }));
        });
        s.appendChild(el('p', { cls: 'note', text: 'Shortest path from a GC root to the accumulation point:' }));
        s.appendChild(ol);
      }
      if (x.holds.length) {
        var t = el('table', { cls: 'holds' });
        t.appendChild(el('tr', null, el('th', { text: 'count' }), el('th', { text: 'bytes' }),
                         el('th', { cls: 'name', text: 'retained objects by type' })));
        x.holds.forEach(function (r) {
          t.appendChild(el('tr', null, el('td', { text: fmtCount(r.count) }), el('td', { text: fmtCount(r.bytes) }),
                           el('td', { cls: 'name', text: r.type })));
        });
        s.appendChild(t);
      }
    });
    return s;
  }

  /* ------------------------------------------------------------ compare */

  function renderCompare(cmp, dumps) {
    var box = el('div', { id: 'compare' });
    var sum = function (d, f) { return d.sections.reduce(function (a, s) { return a + s.totals[f]; }, 0); };
    var nb = sum(dumps[0], 'bytes'), bb = sum(dumps[1], 'bytes');
    var no = sum(dumps[0], 'objects'), bo = sum(dumps[1], 'objects');
    var rows = [], maxDelta = 0, nNew = 0, nGone = 0;
    for (var i = 0; i < cmp.name.length; i++) {
      var r = { _i: i, name: cmp.name[i], base_count: cmp.base_count[i], new_count: cmp.new_count[i],
                base_bytes: cmp.base_bytes[i], new_bytes: cmp.new_bytes[i],
                base_retained: cmp.base_retained[i], new_retained: cmp.new_retained[i] };
      r.delta = r.new_bytes - r.base_bytes;
      r.retained_delta = r.new_retained - r.base_retained;
      r.count_delta = r.new_count - r.base_count;
      r.status = r.base_count === 0 ? 'new' : r.new_count === 0 ? 'gone' :
                 r.delta === 0 && r.count_delta === 0 ? 'same' : 'changed';
      if (r.status === 'new') nNew++;
      if (r.status === 'gone') nGone++;
      maxDelta = Math.max(maxDelta, Math.abs(r.delta));
      rows.push(r);
    }
    box.appendChild(el('h2', { text: 'Growth by type' }));
    box.appendChild(el('p', { cls: 'note', text: 'From ' + cmp.base + ' (base) to ' + cmp.new +
      ' (new): live objects, types matched by their stable names (as gcheap diff --live --retained), ' +
      'the biggest retained growth first.' }));
    box.appendChild(el('div', { cls: 'cards' },
      card('bytes', fmtSigned(nb - bb, fmtBytes), fmtBytes(bb) + ' \u2192 ' + fmtBytes(nb)),
      card('objects', fmtSigned(no - bo, fmtCount), fmtCount(bo) + ' \u2192 ' + fmtCount(no)),
      card('new types', fmtCount(nNew)), card('gone types', fmtCount(nGone))));
    var which = el('select', { 'aria-label': 'status' });
    ['all', 'changed', 'new', 'gone', 'same'].forEach(function (s) { which.appendChild(el('option', { value: s, text: s })); });
    var maxRet = rows.reduce(function (a, r) { return Math.max(a, Math.abs(r.retained_delta)); }, 0);
    var cols = [
      { key: 'retained_delta', label: 'retained change', num: true, cell: function (r) { return fmtSigned(r.retained_delta, fmtCount); } },
      { label: '', cls: 'bar', cell: function (r) { return bar(r.retained_delta, maxRet, r.retained_delta > 0 ? 'grow' : 'shrink', true); } },
      { key: 'new_retained', label: 'new retained', num: true, cell: function (r) { return fmtCount(r.new_retained); } },
      { key: 'base_bytes', label: 'base bytes', num: true, cell: function (r) { return fmtCount(r.base_bytes); } },
      { key: 'new_bytes', label: 'new bytes', num: true, cell: function (r) { return fmtCount(r.new_bytes); } },
      { key: 'delta', label: 'bytes change', num: true, cell: function (r) { return fmtSigned(r.delta, fmtCount); } },
      { label: '', cls: 'bar', cell: function (r) { return bar(r.delta, maxDelta, r.delta > 0 ? 'grow' : 'shrink', true); } },
      { key: 'count_delta', label: 'count change', num: true, cell: function (r) { return fmtSigned(r.count_delta, fmtCount); } },
      { key: 'new_count', label: 'new count', num: true, cell: function (r) { return fmtCount(r.new_count); } },
      { key: 'status', label: 'status', cell: function (r) { return el('span', { cls: 'status-' + r.status, text: r.status }); } },
      { key: 'name', label: 'type', cls: 'name', cell: function (r) { return r.name; } }
    ];
    var table = sortableTable(cols, rows, {
      sortKey: 'retained_delta', filterOf: function (r) { return r.name; }, extraControls: [which], cls: 'growth',
      accept: function (r) { return which.value === 'all' || r.status === which.value; }
    });
    which.addEventListener('change', function () { table.rerender(); });
    box.appendChild(table);
    if (cmp.omitted_types) {
      box.appendChild(el('p', { cls: 'note', text: fmtCount(cmp.omitted_types) +
        ' types with smaller changes are not listed (gcheap report --types N).' }));
    }
    return box;
  }

  /* ------------------------------------------------------------ leaks */

  /* A series (gcheap report DUMP1 DUMP2 DUMP3 ...): the rows of gcheap leaks
   * per section, in its order; each row opens to the path from a GC root
   * that holds its example object in the last dump. The first row of each
   * section is open as the page opens (with #open=NAME: the rows of NAME). */
  function renderLeaks(lk) {
    var box = el('div', { id: 'leaks' });
    var last = lk.files[lk.files.length - 1];
    lk.sections.forEach(function (sec, si) {
      box.appendChild(el('h2', { text: 'Leaks across ' + fmtCount(sec.dumps) + ' dumps' +
        (lk.sections.length > 1 ? ': section ' + sec.name : '') }));
      box.appendChild(el('p', { cls: 'note', text: sec.by_ids
        ? 'memlab\u2019s rule (object ids are stable across the dumps): ' + fmtCount(sec.leaked_objects) +
          ' objects (' + fmtBytes(sec.leaked_bytes) + ') allocated after ' + lk.files[0] +
          ' and alive in every later dump, grouped by the path that holds them; then the paths and types that grew in every step.'
        : 'Object ids of these dumps are not stable: the paths and types that grew in every step.' }));
      var t = el('table', { cls: 'leaks' }), head = el('tr');
      ['', 'row', 'objects', 'bytes', 'heads', 'count growth', 'bytes growth', 'id', 'what'].forEach(function (h) {
        head.appendChild(el('th', { text: h, cls: h === 'what' ? 'name' : '' }));
      });
      var thead = el('thead', null, head), tbody = el('tbody');
      t.appendChild(thead);
      t.appendChild(tbody);
      var rows = sec.rows.map(function (r, i) {
        var x = Object.create(r);
        x._open = openName === null ? i === 0 : r.what === openName;
        return x;
      });
      function render() {
        while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
        rows.forEach(function (r) {
          var tr = el('tr', { cls: 'leak-' + r.row });
          tr.appendChild(el('td', { cls: 'toggle' }, toggleButton(r, render)));
          [r.row, fmtCount(r.objects), fmtCount(r.bytes), r.row === 'leak' || r.row === 'leak-type' ? fmtCount(r.heads) : '',
           r.count_growth, r.bytes_growth, r.id].forEach(function (v) { tr.appendChild(el('td', { text: v })); });
          tr.appendChild(el('td', { cls: 'name', text: r.what }));
          tbody.appendChild(tr);
          if (r._open) {
            var d = el('div', { cls: 'leakpath' });
            d.appendChild(el('p', { cls: 'note', text: 'Object ' + r.id + ' in ' + last + ':' }));
            d.appendChild(renderPath(r.path));
            tbody.appendChild(el('tr', { cls: 'detail' }, el('td', { colspan: '9' }, d)));
          }
        });
      }
      render();
      box.appendChild(el('div', { cls: 'tablewrap' }, t));
      if (sec.internal_rows) {
        box.appendChild(el('p', { cls: 'note', text: fmtCount(sec.internal_rows) +
          ' rows of V8 internals left out (gcheap report --internals keeps them).' }));
      }
      if (sec.omitted_rows) {
        box.appendChild(el('p', { cls: 'note', text: fmtCount(sec.omitted_rows) +
          ' more rows are not shown (gcheap leaks lists them all).' }));
      }
      if (!sec.rows.length) box.appendChild(el('p', { text: 'Nothing leaks: no row.' }));
      box.setAttribute('data-sections', String(si + 1));
    });
    return box;
  }

  /* ------------------------------------------------------------ page */

  var charts = [];

  function renderDump(dump, di) {
    var box = el('div', { cls: 'dump' });
    dump.sections.forEach(function (sec, si) {
      var id = di + '-' + si;
      var h = el('h2', { text: dump.sections.length > 1 ? 'Section ' + sec.name : 'Overview' });
      box.appendChild(h);
      box.appendChild(renderCards(sec));
      box.appendChild(el('h2', { text: 'What retains the memory' }));
      box.appendChild(el('p', { cls: 'note', text: 'The dominator tree by retained size: each object holds ' +
        'the objects below it alive (every path from a GC root to them passes through it); widths are ' +
        'retained sizes.' }));
      var ic = new Icicle(sec, id);
      box.appendChild(ic.box);
      charts.push(ic);
      if (sec.rules) box.appendChild(renderRules(sec.rules));
      if (Array.isArray(sec.suspects)) box.appendChild(renderSuspects(sec.suspects, sec, ic));
      if (Array.isArray(sec.waste)) box.appendChild(renderWaste(sec.waste));
      box.appendChild(el('h2', { text: 'Types' }));
      box.appendChild(renderTypes(sec));
      box.appendChild(el('h2', { text: 'Details' }));
      box.appendChild(renderDetails(sec, dump));
    });
    return box;
  }

  function main() {
    var data = JSON.parse(document.getElementById('gcheap-data').textContent);
    var mainEl = document.getElementById('main');
    while (mainEl.firstChild) mainEl.removeChild(mainEl.firstChild);
    var first = data.dumps[0];
    document.getElementById('subtitle').textContent = data.leaks
      ? 'a series of ' + data.leaks.files.length + ' dumps: ' + data.leaks.files[0] + ' \u2192 ' +
        data.leaks.files[data.leaks.files.length - 1] + ' \u00b7 ' + data.generator
      : data.compare
      ? data.compare.base + ' \u2192 ' + data.compare.new + ' \u00b7 ' + data.generator
      : first.file + ' (' + first.format + ') \u00b7 ' + data.generator;
    var panels = [], labels = [];
    if (data.leaks) {
      panels.push(renderLeaks(data.leaks));
      labels.push('Leaks');
    }
    if (data.compare) {
      panels.push(renderCompare(data.compare, data.dumps));
      labels.push('Comparison');
      labels.push('New: ' + data.compare.new);
      labels.push('Base: ' + data.compare.base);
    }
    data.dumps.forEach(function (d, i) { panels.push(renderDump(d, i)); });
    panels.forEach(function (p) { mainEl.appendChild(p); });
    var drawVisible = function () {
      charts.forEach(function (c) { if (c.box.offsetParent !== null) c.render(); });
    };
    if (panels.length > 1) {
      var nav = document.getElementById('tabs');
      nav.hidden = false;
      nav.setAttribute('role', 'tablist');
      var buttons = labels.map(function (l, i) {
        var b = el('button', { type: 'button', role: 'tab', text: l });
        b.addEventListener('click', function () { select(i); });
        nav.appendChild(b);
        return b;
      });
      var select = function (k) {
        panels.forEach(function (p, i) { p.hidden = i !== k; buttons[i].setAttribute('aria-selected', String(i === k)); });
        drawVisible();
      };
      select(0);
    } else {
      drawVisible();
    }
    var timer = 0;
    window.addEventListener('resize', function () {
      clearTimeout(timer);
      timer = setTimeout(drawVisible, 150);
    });
    document.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Escape') return;
      charts.forEach(function (c) { if (c.zoom !== 0 && c.box.offsetParent !== null) c.zoomTo(c.tr.parent[c.zoom]); });
    });
    if (openName !== null) { /* #open=NAME: show the opened row */
      var opened = [].slice.call(document.querySelectorAll('tr.detail')).filter(function (r) { return r.offsetParent !== null; });
      if (opened.length) opened[0].scrollIntoView({ block: 'center' });
    }
    document.body.setAttribute('data-ready', '1');
  }

  try {
    main();
  } catch (e) {
    var m = document.getElementById('main');
    m.appendChild(el('p', { cls: 'error', text: 'The report could not be drawn: ' + e }));
    throw e;
  }
}());
