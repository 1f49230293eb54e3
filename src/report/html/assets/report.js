// collcheck's visual report. Reads the JSON in #cc-data (src/io/html_data.cc)
// and draws two canvases that share one horizontal axis, the simulated
// execution order: a timeline (a lane per stream) and a memory view (address
// of one rank's buffer). Only what is on screen is drawn, so the page stays
// responsive with hundreds of thousands of tasks.
(function () {
  'use strict';
  const body = document.body;  // errors are caught by the page's first script (data-error)

  const D = JSON.parse(document.getElementById('cc-data').textContent);
  const T = D.tasks;
  const N = T.col.length;
  const LANE_H = 26, MAX_SPACE = 3e7;
  const $ = function (id) { return document.getElementById(id); };
  const el = function (tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // ---- model -------------------------------------------------------------
  const laneOf = new Int32Array(N);          // task -> row in the timeline
  const rows = [];                           // row -> {lane, rank, stream, tasks[]}
  // A row per stream; an AIV launch's nodes (their own stream) get a row per
  // block and pipe (T.sub), shown under the host stream that started the
  // launch (the fourth member of its lane; -1 for others). An MSCCL thread block
  // has its lane name as the fifth member.
  const subOf = function (i) { return T.sub ? T.sub[i] : -1; };
  const rowOfKey = new Map();                // "lane:sub" -> row
  for (let i = 0; i < N; i++) {
    const key = T.lane[i] + ':' + subOf(i);
    if (rowOfKey.has(key)) continue;
    const l = D.lanes[T.lane[i]];
    rowOfKey.set(key, rows.length);
    rows.push({ lane: T.lane[i], rank: l[0], stream: l.length > 3 && l[3] >= 0 ? l[3] : l[1], sub: subOf(i),
                label: subOf(i) >= 0 ? T.subName[i] : '', name: l.length > 4 ? l[4] : '', tasks: [] });
  }
  const rowOrder = rows.map(function (r, k) { return k; });
  rowOrder.sort(function (a, b) {
    const x = rows[a], y = rows[b];
    return x.rank - y.rank || x.stream - y.stream || (x.sub >= 0) - (y.sub >= 0) || x.lane - y.lane ||
      x.sub - y.sub;
  });
  const sortedRows = rowOrder.map(function (k) { return rows[k]; });
  rows.length = 0;
  sortedRows.forEach(function (r, k) { rows.push(r); rowOfKey.set(r.lane + ':' + r.sub, k); });
  for (let i = 0; i < N; i++) {
    const r = rowOfKey.get(T.lane[i] + ':' + subOf(i));
    laneOf[i] = r;
    rows[r].tasks.push(i);
  }
  // What the timeline shows, top to bottom: a slot per row of a shown rank,
  // or one slot for a collapsed rank (its label only). slotOf: row -> slot,
  // -1 when the row is filtered out or collapsed.
  let slots = [];                             // slot -> {row (-1: collapsed), rank}
  const slotOf = new Int32Array(rows.length);
  const collapsed = new Set();
  let rankFilter = null;                      // null: every rank
  const lanesOfRank = new Map();
  rows.forEach(function (r) { lanesOfRank.set(r.rank, (lanesOfRank.get(r.rank) || 0) + 1); });
  function buildSlots() {
    slots = [];
    slotOf.fill(-1);
    rows.forEach(function (r, k) {
      if (rankFilter && !rankFilter.has(r.rank)) return;
      if (collapsed.has(r.rank)) {
        if (!slots.length || slots[slots.length - 1].rank !== r.rank) slots.push({ row: -1, rank: r.rank });
        return;
      }
      slotOf[k] = slots.length;
      slots.push({ row: k, rank: r.rank });
    });
  }
  buildSlots();
  // Both layouts keep each stream's order, so one sort serves both.
  rows.forEach(function (r) { r.tasks.sort(function (a, b) { return T.col[a] - T.col[b]; }); });
  // The horizontal axis: execution order (T.col) or dependency depth (T.depth).
  let COL = T.col, nCols = 1, stopCol = D.executedCols;
  const pos = function (i) {
    if (T.name && T.name[i]) return T.name[i];
    if (T.pos && T.pos[i]) return T.pos[i];
    const r = rows[laneOf[i]]; return r.rank + '/' + r.stream + '/' + T.index[i];
  };
  const where = function (line) { return line ? D.file + ':' + line : ''; };
  const isBlocked = new Uint8Array(N);
  D.blocked.forEach(function (i) { isBlocked[i] = 1; });
  const laneWord = T.pos ? 'a lane per thread block' : 'a lane per stream';
  const syncPairs = [];  // [RECORD, WAIT, is an MSCCL message]
  for (let i = 0; i < N; i++)
    if (T.type[i] === 'RECORD' && T.partner[i] >= 0) syncPairs.push([i, T.partner[i], T.msg && T.msg[i] === 1]);

  // Tasks in any finding (2 = in an error, 1 = only in warnings), and the
  // findings each task is in.
  const marked = new Uint8Array(N);
  const findingsOf = new Map();
  D.findings.forEach(function (f, k) {
    f.tasks.forEach(function (i) {
      if (i < 0) return;
      marked[i] = Math.max(marked[i], f.severity === 'error' ? 2 : 1);
      if (!findingsOf.has(i)) findingsOf.set(i, []);
      findingsOf.get(i).push(k);
    });
    f.ranges = parseRanges(f);
  });

  // Byte ranges a finding names: the headline of a semantic finding
  // ("Rank 2 OUTPUT [0x200,0x300): ...") and a "Bytes : rank 2 CCL [a,b)" line.
  function parseRanges(f) {
    const re = /\b[Rr]ank (\d+) ([A-Za-z_][A-Za-z0-9_]*) \[(0x[0-9a-fA-F]+),(0x[0-9a-fA-F]+)\)/;
    const out = [];
    const texts = [f.message].concat(f.details.filter(function (d) { return /^Bytes\b/.test(d); }));
    texts.forEach(function (s) {
      const m = re.exec(s);
      if (m) out.push({ rank: +m[1], buf: m[2], b: Number(BigInt(m[3])), e: Number(BigInt(m[4])) });
    });
    return out;
  }

  // Memory accesses per (rank, buffer), sorted by column.
  // Memory accesses per (rank, buffer); sortBuffer orders them by column.
  const buffers = D.memory.map(function (m) {
    const n = m.acc.length / 4;
    const B = { rank: m.rank, buf: m.buf, size: m.size, n: n, task: new Int32Array(n), col: new Int32Array(n),
                b: new Float64Array(n), e: new Float64Array(n), w: new Uint8Array(n), lo: Infinity, hi: 0 };
    for (let k = 0; k < n; k++) {
      B.task[k] = m.acc[4 * k]; B.b[k] = m.acc[4 * k + 1]; B.e[k] = m.acc[4 * k + 2]; B.w[k] = m.acc[4 * k + 3];
      B.lo = Math.min(B.lo, B.b[k]); B.hi = Math.max(B.hi, B.e[k]);
    }
    if (B.lo === Infinity) B.lo = 0;
    if (!B.hi) B.hi = 1;
    return B;
  });
  function sortBuffer(B) {
    const order = [];
    for (let k = 0; k < B.n; k++) order.push(k);
    order.sort(function (x, y) { return COL[B.task[x]] - COL[B.task[y]]; });
    ['task', 'b', 'e', 'w'].forEach(function (key) {
      const old = B[key].slice();
      order.forEach(function (j, k) { B[key][k] = old[j]; });
    });
    for (let k = 0; k < B.n; k++) B.col[k] = COL[B.task[k]];
  }
  function setAxis(name) {
    COL = name === 'depth' ? T.depth : T.col;
    stopCol = name === 'depth' ? D.executedDepthCols : D.executedCols;
    nCols = 1;
    for (let i = 0; i < N; i++) if (COL[i] + 1 > nCols) nCols = COL[i] + 1;
    buffers.forEach(sortBuffer);
  }
  setAxis('tau');

  // A range a finding names in a buffer nobody accessed (e.g. an OUTPUT that
  // was never written) still gets a memory view, empty but for the range.
  D.findings.forEach(function (f) {
    f.ranges.forEach(function (rg) {
      if (buffers.some(function (B) { return B.rank === rg.rank && B.buf === rg.buf; })) return;
      buffers.push({ rank: rg.rank, buf: rg.buf, size: null, n: 0, task: new Int32Array(0), col: new Int32Array(0),
                     b: new Float64Array(0), e: new Float64Array(0), w: new Uint8Array(0), lo: rg.b, hi: rg.e });
    });
  });

  // ---- state -------------------------------------------------------------
  const S = { cw: 24, active: -1, selected: -1, hl: new Set(), buffer: 0, y0: 0, y1: 1, arrows: true };

  // ---- header, findings list ----------------------------------------------
  // The title ("FAIL \u00b7 file \u2014 collcheck") is written into the page by its writer.
  $('verdict').textContent = D.verdict;
  $('verdict').classList.add(D.verdict);
  $('file').textContent = D.file;
  $('operator').textContent = D.operator + ' \u00b7 ' + D.totalTasks + ' tasks on ' + D.lanes.length +
    ' streams' + (D.complete ? '' : ' \u00b7 the simulation deadlocked');
  $('summary').textContent = D.summary;
  if (D.note) { $('note').hidden = false; $('note').textContent = D.note; }
  $('finding-count').textContent = '(' + D.findings.length + ')';
  const list = $('findings');
  if (!D.findings.length) list.appendChild(el('li', 'none hint', 'No findings: every check passed.'));
  // Root causes on top, then independent findings, then what the causes
  // brought about (each says which cause); numbers stay those of the data.
  const rank = function (f) { return f.rootCause ? 0 : f.consequenceOf ? 2 : 1; };
  const order = D.findings.map(function (f, k) { return k; });
  order.sort(function (a, b) { return rank(D.findings[a]) - rank(D.findings[b]) || a - b; });
  order.forEach(function (k) {
    const f = D.findings[k];
    const li = el('li', 'finding sev-' + f.severity + (f.rootCause ? ' root-cause' : f.consequenceOf ? ' consequence' : ''));
    li.dataset.index = k + 1;
    const top = el('div');
    top.appendChild(el('span', 'num', '#' + (k + 1)));
    top.appendChild(el('span', 'code', f.code ? String(f.code) : f.name));
    top.appendChild(document.createTextNode(' '));
    top.appendChild(el('span', 'name', (f.code ? f.name + ' \u00b7 ' : '') + f.stage +
      (f.severity === 'warning' ? ' \u00b7 warning' : '')));
    if (f.rootCause) top.appendChild(el('span', 'badge', 'root cause ' + f.rootCause));
    if (f.consequenceOf) top.appendChild(el('span', 'badge', 'consequence of ' + f.consequenceOf));
    li.appendChild(top);
    li.appendChild(el('div', 'msg', f.message));
    if (f.refs.length)
      li.appendChild(el('div', 'where mono', f.refs.slice(0, 6).map(function (r) { return r.pos; }).join(', ') +
        (f.refs.length > 6 ? ', \u2026' : '')));
    li.tabIndex = 0;
    li.setAttribute('role', 'button');
    li.addEventListener('click', function () { activate(k, true); });
    li.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); activate(k, true); }
    });
    list.appendChild(li);
  });
  D.more.forEach(function (m) { $('more').appendChild(el('li', '', m)); });

  // ---- colours -------------------------------------------------------------
  const FILL = { TRANS_MEM: '#90caf9', BATCH_TRANS_MEM: '#64b5f6', REDUCE: '#b39ddb', BATCH_REDUCE: '#9575cd',
                 RECORD: '#a5d6a7', WAIT: '#ffe082', UNKNOWN: '#cfd8dc' };
  const SHORT = { TRANS_MEM: 'TM', BATCH_TRANS_MEM: 'BTM', REDUCE: 'RD', BATCH_REDUCE: 'BRD',
                  RECORD: 'R', WAIT: 'W', UNKNOWN: '?' };
  const C_ERR = '#c62828', C_WARN = '#ef6c00', C_SEL = '#0d47a1', C_SYNC = 'rgba(21,101,192,0.55)';
  const C_MSG = 'rgba(46,125,50,0.8)';  // MSCCL send -> receive
  const C_READ = '#3d7fd6', C_WRITE = '#e07b24';
  function legend(id, items) {
    items.forEach(function (it) {
      const s = el('span');
      const sw = el('span', 'sw');
      sw.style.background = it[0];
      if (it[2]) sw.style.border = it[2];
      s.appendChild(sw);
      s.appendChild(document.createTextNode(it[1]));
      $(id).appendChild(s);
    });
  }
  legend('tl-legend', [[FILL.TRANS_MEM, 'copy'], [FILL.REDUCE, 'reduce'], [FILL.RECORD, 'RECORD'],
    [FILL.WAIT, 'WAIT'], ['#eceff1', 'never executed', '1px dashed #78909c'],
    ['#fff', 'in an error', '2px solid ' + C_ERR], ['#fff', 'in a warning', '2px solid ' + C_WARN],
    ['rgba(21,101,192,0.55)', 'RECORD \u2192 WAIT']].concat(T.msg ? [[C_MSG, 'send \u2192 receive']] : []));
  legend('mem-legend', [[C_READ, 'read'], [C_WRITE, 'write'], ['#b0bec5', 'never executed'],
    ['#fff', 'task in a finding', '2px solid ' + C_ERR], ['rgba(198,40,40,0.18)', 'bytes a finding names']]);

  // ---- canvases ------------------------------------------------------------
  const tl = { scroll: $('tl-scroll'), space: $('tl-space'), canvas: $('tl-canvas'), gutter: $('tl-labels') };
  const mem = { scroll: $('mem-scroll'), space: $('mem-space'), canvas: $('mem-canvas'), gutter: $('mem-axis') };
  const GUTTER_TL = 118, GUTTER_MEM = GUTTER_TL;  // equal, so both views share their columns
  tl.scroll.style.height = Math.min(Math.max(rows.length * LANE_H + 20, 80), 380) + 'px';

  function sizeCanvas(c, w, h) {
    const r = window.devicePixelRatio || 1;
    if (c.width !== Math.round(w * r) || c.height !== Math.round(h * r)) {
      c.width = Math.round(w * r); c.height = Math.round(h * r);
      c.style.width = w + 'px'; c.style.height = h + 'px';
    }
    const ctx = c.getContext('2d');
    ctx.setTransform(r, 0, 0, r, 0, 0);
    return ctx;
  }
  function layout() {
    const width = Math.min(nCols * S.cw + 40, MAX_SPACE);
    [tl, mem].forEach(function (v) {
      v.space.style.width = width + 'px';
      v.vw = v.scroll.clientWidth; v.vh = v.scroll.clientHeight;
    });
    tl.space.style.height = Math.max(slots.length * LANE_H + 8, tl.vh) + 'px';
    mem.space.style.height = mem.vh + 'px';
    draw();
  }
  function visibleCols(v) {
    const left = v.scroll.scrollLeft;
    return [Math.floor(left / S.cw) - 1, Math.ceil((left + v.vw) / S.cw) + 1, left];
  }
  // First index in `arr` (sorted by key(i)) whose key is >= x.
  function lowerBound(n, key, x) {
    let lo = 0, hi = n;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (key(mid) < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function outline(ctx, i, x, y, w, h) {
    if (S.hl.has(i)) {
      ctx.lineWidth = 3; ctx.strokeStyle = marked[i] === 1 ? C_WARN : C_ERR;
      ctx.shadowColor = ctx.strokeStyle; ctx.shadowBlur = 6;
      ctx.strokeRect(x - 1, y - 1, w + 2, h + 2);
      ctx.shadowBlur = 0;
    } else if (marked[i]) {
      ctx.lineWidth = 2; ctx.strokeStyle = marked[i] === 2 ? C_ERR : C_WARN;
      ctx.strokeRect(x, y, w, h);
    }
    if (S.selected === i) {
      ctx.lineWidth = 2; ctx.strokeStyle = C_SEL; ctx.setLineDash([3, 2]);
      ctx.strokeRect(x - 3, y - 3, w + 6, h + 6); ctx.setLineDash([]);
    }
  }

  function drawTimeline() {
    const ctx = sizeCanvas(tl.canvas, tl.vw, tl.vh);
    const [c0, c1, left] = visibleCols(tl);
    const top = tl.scroll.scrollTop, cw = S.cw;
    ctx.clearRect(0, 0, tl.vw, tl.vh);
    const r0 = Math.max(0, Math.floor(top / LANE_H)), r1 = Math.min(slots.length, Math.ceil((top + tl.vh) / LANE_H));
    for (let r = r0; r < r1; r++) {
      const y = r * LANE_H - top;
      ctx.fillStyle = slots[r].row < 0 ? '#eef2f6' : r % 2 ? '#f8fafc' : '#ffffff';
      ctx.fillRect(0, y, tl.vw, LANE_H);
      if (r > 0 && slots[r].rank !== slots[r - 1].rank) { ctx.fillStyle = '#9aa5b1'; ctx.fillRect(0, y, tl.vw, 1); }
    }
    if (!D.complete) {  // where the simulation stopped
      const x = (stopCol + 0.5) * cw - left;
      ctx.strokeStyle = C_ERR; ctx.lineWidth = 1.5; ctx.setLineDash([5, 4]);
      ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, tl.vh); ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = C_ERR; ctx.font = 'bold 11px system-ui, sans-serif';
      const label = 'deadlock: nothing right of this line executed';
      const tw = ctx.measureText(label).width;
      const lx = x + 6 + tw < tl.vw ? x + 4 : Math.max(2, x - 4 - tw);
      const ly = Math.max(12, Math.min(tl.vh, slots.length * LANE_H - top + 4) - 6);  // below the lanes if room
      ctx.fillStyle = 'rgba(255,255,255,0.9)'; ctx.fillRect(lx - 2, ly - 10, tw + 4, 13);
      ctx.fillStyle = C_ERR; ctx.fillText(label, lx, ly);
    }
    ctx.font = '10px ui-monospace, monospace'; ctx.textBaseline = 'middle';
    const bw = Math.max(1, cw - 2);
    for (let r = r0; r < r1; r++) {
      if (slots[r].row < 0) continue;
      const tasks = rows[slots[r].row].tasks;
      const y = r * LANE_H - top + 4, h = LANE_H - 8;
      for (let k = lowerBound(tasks.length, function (j) { return COL[tasks[j]]; }, c0); k < tasks.length; k++) {
        const i = tasks[k], c = COL[i];
        if (c > c1) break;
        const x = c * cw - left + 1, exec = T.tau[i] >= 0;
        ctx.fillStyle = exec ? FILL[T.type[i]] : '#eceff1';
        ctx.fillRect(x, y, bw, h);
        if (!exec) {
          ctx.strokeStyle = isBlocked[i] ? C_ERR : '#78909c'; ctx.lineWidth = isBlocked[i] ? 2 : 1;
          ctx.setLineDash([3, 2]); ctx.strokeRect(x + 0.5, y + 0.5, bw - 1, h - 1); ctx.setLineDash([]);
        }
        if (isBlocked[i]) {  // hatch a blocked WAIT
          ctx.save(); ctx.beginPath(); ctx.rect(x, y, bw, h); ctx.clip();
          ctx.strokeStyle = 'rgba(198,40,40,0.55)'; ctx.lineWidth = 1;
          for (let d = -h; d < bw; d += 5) { ctx.beginPath(); ctx.moveTo(x + d, y + h); ctx.lineTo(x + d + h, y); ctx.stroke(); }
          ctx.restore();
        }
        if (cw >= 16) {
          ctx.fillStyle = '#102a43';
          const label = cw >= 54 ? T.type[i].replace('BATCH_', 'B_') : SHORT[T.type[i]];
          ctx.fillText(label, x + 3, y + h / 2, bw - 4);
        }
        outline(ctx, i, x, y, bw, h);
      }
    }
    // RECORD -> WAIT arrows whose span crosses the screen (unless switched off).
    ctx.lineWidth = 1;
    let arrowsDrawn = 0;
    const arrow = function (a, b, colour, dash) {
      if (!S.arrows) return;
      const ca = COL[a], cb = COL[b];
      const hot = S.hl.has(a) || S.hl.has(b);
      // Only arrows with an end on screen (or of the active finding): the
      // long ones that merely cross it would hide everything in big traces.
      if (!hot && (ca < c0 || ca > c1) && (cb < c0 || cb > c1)) return;
      if (Math.max(ca, cb) < c0 || Math.min(ca, cb) > c1) return;
      const sa = slotOf[laneOf[a]], sb = slotOf[laneOf[b]];
      if (sa < 0 || sb < 0) return;  // an end in a hidden or collapsed rank
      const ya = sa * LANE_H - top + LANE_H / 2, yb = sb * LANE_H - top + LANE_H / 2;
      if ((ya < 0 && yb < 0) || (ya > tl.vh && yb > tl.vh)) return;
      const xa = ca * cw - left + cw - 1, xb = cb * cw - left + 1;
      arrowsDrawn++;
      ctx.strokeStyle = hot ? C_ERR : colour; ctx.lineWidth = hot ? 2 : 1; ctx.setLineDash(dash);
      ctx.beginPath(); ctx.moveTo(xa, ya); ctx.lineTo(xb, yb); ctx.stroke(); ctx.setLineDash([]);
      const ang = Math.atan2(yb - ya, xb - xa);
      ctx.fillStyle = ctx.strokeStyle; ctx.beginPath(); ctx.moveTo(xb, yb);
      ctx.lineTo(xb - 6 * Math.cos(ang - 0.4), yb - 6 * Math.sin(ang - 0.4));
      ctx.lineTo(xb - 6 * Math.cos(ang + 0.4), yb - 6 * Math.sin(ang + 0.4)); ctx.fill();
    };
    syncPairs.forEach(function (p) { arrow(p[0], p[1], p[2] ? C_MSG : C_SYNC, []); });
    for (let j = 0; j < D.edges.length; j += 2) arrow(D.edges[j], D.edges[j + 1], 'rgba(106,27,154,0.55)', [2, 2]);
    body.dataset.arrowsDrawn = arrowsDrawn;
    // Lane labels.
    const g = sizeCanvas(tl.gutter, GUTTER_TL, tl.vh);
    g.clearRect(0, 0, GUTTER_TL, tl.vh);
    g.font = '11.5px system-ui, sans-serif'; g.textBaseline = 'middle';
    for (let r = r0; r < r1; r++) {
      const y = r * LANE_H - top, sl = slots[r];
      const first = r === 0 || sl.rank !== slots[r - 1].rank;
      if (first && r > 0) { g.fillStyle = '#9aa5b1'; g.fillRect(0, y, GUTTER_TL, 1); }
      g.fillStyle = first ? '#1f2933' : '#9aa5b1';
      // A rank's labels toggle it (click): \u25be open, \u25b8 collapsed.
      g.fillText((first ? (sl.row < 0 ? '\u25b8 ' : '\u25be ') : '   ') + 'rank ' + sl.rank, 2, y + LANE_H / 2);
      g.fillStyle = '#616e7c';
      if (sl.row < 0) { g.fillText(lanesOfRank.get(sl.rank) + (lanesOfRank.get(sl.rank) === 1 ? ' lane' : ' lanes'), 74, y + LANE_H / 2, GUTTER_TL - 78); continue; }
      const row = rows[sl.row];
      if (row.label) g.fillText(row.label, 58, y + LANE_H / 2, GUTTER_TL - 60);
      else g.fillText(row.name || 's' + row.stream, 74, y + LANE_H / 2, GUTTER_TL - 78);
    }
  }

  function hex(v) { return '0x' + Math.round(v).toString(16); }
  function drawMemory() {
    const ctx = sizeCanvas(mem.canvas, mem.vw, mem.vh);
    const g = sizeCanvas(mem.gutter, GUTTER_MEM, mem.vh);
    ctx.clearRect(0, 0, mem.vw, mem.vh);
    g.clearRect(0, 0, GUTTER_MEM, mem.vh);
    const B = buffers[S.buffer];
    if (!B) {
      ctx.fillStyle = '#616e7c'; ctx.font = '13px system-ui, sans-serif';
      ctx.fillText('No data task accesses memory in this trace.', 12, 24);
      return;
    }
    const [c0, c1, left] = visibleCols(mem);
    const PAD = 10, H = mem.vh - 2 * PAD, cw = S.cw;
    const span = Math.max(S.y1 - S.y0, 1e-9);
    const Y = function (a) { return PAD + (a - S.y0) / span * H; };
    // Axis: evenly spaced address ticks.
    g.font = '10px ui-monospace, monospace'; g.fillStyle = '#616e7c'; g.textBaseline = 'middle';
    ctx.strokeStyle = '#eef2f6'; ctx.lineWidth = 1;
    const step = Math.pow(2, Math.ceil(Math.log2(Math.max(span / 6, 1))));
    for (let a = Math.ceil(S.y0 / step) * step; a <= S.y1; a += step) {
      const y = Y(a);
      g.fillText(hex(a), 6, y);
      ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(mem.vw, y); ctx.stroke();
    }
    if (B.size !== null && B.size >= S.y0 && B.size <= S.y1) {  // end of the buffer
      const y = Y(B.size);
      ctx.strokeStyle = '#7b8794'; ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(mem.vw, y); ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = '#7b8794'; ctx.font = '10px system-ui, sans-serif'; ctx.fillText('end of buffer', 4, y - 5);
    }
    // Bytes the findings name on this buffer: the active finding's strongly.
    D.findings.forEach(function (f, k) {
      f.ranges.forEach(function (rg) {
        if (rg.rank !== B.rank || rg.buf !== B.buf) return;
        const y = Y(rg.b), h = Math.max(2, Y(rg.e) - y);
        let x0 = 0, x1 = mem.vw;
        const cols = f.tasks.filter(function (i) { return i >= 0; }).map(function (i) { return COL[i]; });
        if (f.code === 302 && cols.length) {  // the span between the two conflicting tasks
          x0 = Math.min.apply(null, cols) * cw - left; x1 = (Math.max.apply(null, cols) + 1) * cw - left;
        }
        ctx.fillStyle = k === S.active ? 'rgba(198,40,40,0.28)' : 'rgba(198,40,40,0.12)';
        ctx.fillRect(x0, y, x1 - x0, h);
        if (k === S.active) { ctx.strokeStyle = C_ERR; ctx.lineWidth = 1; ctx.strokeRect(x0, y, x1 - x0, h); }
      });
    });
    const bw = Math.max(1, cw * 0.6), off = cw * 0.2;
    for (let k = lowerBound(B.n, function (j) { return B.col[j]; }, c0); k < B.n; k++) {
      const c = B.col[k];
      if (c > c1) break;
      const i = B.task[k];
      const x = c * cw - left + off, y = Y(B.b[k]), h = Math.max(2, Y(B.e[k]) - y);
      if (y > mem.vh || y + h < 0) continue;
      ctx.fillStyle = T.tau[i] < 0 ? '#b0bec5' : B.w[k] ? C_WRITE : C_READ;
      ctx.fillRect(x, y, bw, h);
      outline(ctx, i, x, y, bw, h);
    }
  }
  function draw() { drawTimeline(); drawMemory(); }

  // ---- buffer selection and zoom -----------------------------------------
  const select = $('mem-buffer');
  buffers.forEach(function (B, k) {
    const o = el('option', '', 'rank ' + B.rank + ' ' + B.buf + ' (' + B.n + ' accesses)');
    o.value = k;
    select.appendChild(o);
  });
  function fitY(lo, hi) {
    const pad = Math.max((hi - lo) * 0.08, 1);
    S.y0 = Math.max(0, lo - pad); S.y1 = hi + pad;
  }
  function chooseBuffer(k, lo, hi) {
    S.buffer = k; select.value = k;
    const B = buffers[k];
    if (B) fitY(lo === undefined ? B.lo : lo, hi === undefined ? B.hi : hi);
    body.dataset.buffer = B ? 'rank ' + B.rank + ' ' + B.buf : '';
  }
  select.addEventListener('change', function () { chooseBuffer(+select.value); draw(); });
  function clampCw(cw) { return Math.max(0.02, Math.min(120, MAX_SPACE / nCols, cw)); }
  function zoomX(factor, anchorPx) {
    const v = tl.scroll, a = anchorPx === undefined ? v.clientWidth / 2 : anchorPx;
    const col = (v.scrollLeft + a) / S.cw;
    S.cw = clampCw(S.cw * factor);
    layout();
    v.scrollLeft = col * S.cw - a;
  }
  function zoomY(factor) {
    const mid = (S.y0 + S.y1) / 2, half = (S.y1 - S.y0) / 2 / factor;
    S.y0 = Math.max(0, mid - half); S.y1 = mid + half; draw();
  }
  document.querySelectorAll('button[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      const z = b.dataset.zoom;
      if (z === 'x+') zoomX(1.5); else if (z === 'x-') zoomX(1 / 1.5);
      else if (z === 'xfit') { S.cw = clampCw(tl.scroll.clientWidth / nCols); layout(); }
      else if (z === 'y+') zoomY(1.6); else if (z === 'y-') zoomY(1 / 1.6);
      else if (z === 'yfit') { chooseBuffer(S.buffer); draw(); }
    });
  });
  [tl, mem].forEach(function (v) {
    v.scroll.addEventListener('wheel', function (e) {
      if (e.ctrlKey) { e.preventDefault(); zoomX(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - v.scroll.getBoundingClientRect().left); }
      else if (e.altKey && v === mem) { e.preventDefault(); zoomY(e.deltaY < 0 ? 1.25 : 0.8); }
    }, { passive: false });
  });
  let syncing = false;
  function onScroll(from, to) {
    return function () {
      if (!syncing && to.scroll.scrollLeft !== from.scroll.scrollLeft) {
        syncing = true; to.scroll.scrollLeft = from.scroll.scrollLeft; syncing = false;
      }
      requestDraw();
    };
  }
  let pending = false;
  function requestDraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }
  tl.scroll.addEventListener('scroll', onScroll(tl, mem));
  mem.scroll.addEventListener('scroll', onScroll(mem, tl));
  window.addEventListener('resize', layout);

  const axis = $('axis');
  const nRanks = new Set(D.lanes.map(function (l) { return l[0]; })).size;
  const axisDefault = nRanks > 16 ? 'depth' : 'tau';
  axis.addEventListener('change', function () {
    setAxis(axis.value);
    $('axis-hint').textContent = axis.value === 'depth'
      ? laneWord + ' \u00b7 column = longest path from START (one column may run together) \u2192'
      : laneWord + ' \u00b7 one column per step of the simulated execution \u2192';
    layout();
    if (S.hl.size) reveal(Array.from(S.hl), S.active >= 0 ? D.findings[S.active].ranges : []);
    else if (S.selected >= 0) reveal([S.selected], []);
    body.dataset.axis = axis.value;
    draw();
  });

  // ---- hit testing, tooltip, selection -------------------------------------
  function taskAt(v, e) {
    const rect = v.scroll.getBoundingClientRect();
    const x = e.clientX - rect.left + v.scroll.scrollLeft, yy = e.clientY - rect.top;
    const c = Math.floor(x / S.cw);
    if (v === tl) {
      const r = Math.floor((yy + tl.scroll.scrollTop) / LANE_H);
      if (r < 0 || r >= slots.length || slots[r].row < 0) return -1;
      const tasks = rows[slots[r].row].tasks;
      const k = lowerBound(tasks.length, function (j) { return COL[tasks[j]]; }, c);
      return k < tasks.length && COL[tasks[k]] === c ? tasks[k] : -1;
    }
    const B = buffers[S.buffer];
    if (!B) return -1;
    const PAD = 10, H = mem.vh - 2 * PAD, span = Math.max(S.y1 - S.y0, 1e-9);
    const addr = S.y0 + (yy - PAD) / H * span, slack = 3 / H * span;
    for (let k = lowerBound(B.n, function (j) { return B.col[j]; }, c); k < B.n && B.col[k] === c; k++)
      if (addr >= B.b[k] - slack && addr < B.e[k] + slack) return B.task[k];
    return -1;
  }
  function describe(i) {
    let s = pos(i) + (T.line[i] ? '  (' + where(T.line[i]) + ')' : '') + '\n' + T.desc[i];
    s += '\n' + (T.tau[i] >= 0 ? 'executed as step ' + (T.tau[i] + 1) : isBlocked[i] ? 'blocked: never released' : 'never executed');
    const fs = findingsOf.get(i);
    if (fs) s += '\nin ' + fs.map(function (k) { const f = D.findings[k]; return '#' + (k + 1) + ' ' + (f.code || f.name); }).join(', ');
    return s;
  }
  const tip = $('tip');
  [tl, mem].forEach(function (v) {
    v.scroll.addEventListener('mousemove', function (e) {
      const i = taskAt(v, e);
      if (i < 0) { tip.hidden = true; return; }
      tip.textContent = describe(i); tip.hidden = false;
      tip.style.left = Math.min(e.clientX + 14, window.innerWidth - 420) + 'px';
      tip.style.top = (e.clientY + 16) + 'px';
    });
    v.scroll.addEventListener('mouseleave', function () { tip.hidden = true; });
    v.scroll.addEventListener('click', function (e) { const i = taskAt(v, e); if (i >= 0) selectTask(i, false); });
  });

  function taskItem(i, ref, hl) {
    const li = el('li', 'task' + (hl ? ' hl' : ''));
    li.appendChild(el('span', 'pos mono', ref ? ref.pos : pos(i)));
    const line = ref ? ref.line : T.line[i];
    if (line) li.appendChild(el('span', 'line', where(line)));
    if (i < 0) li.appendChild(el('span', 'hint', '(not drawn: outside the part of the trace this report shows)'));
    else if (T.tau[i] < 0) li.appendChild(el('span', 'hint', isBlocked[i] ? 'blocked' : 'never executed'));
    li.appendChild(el('span', 'desc', ref ? ref.desc : T.desc[i]));
    if (i >= 0) {
      li.dataset.task = pos(i);
      li.addEventListener('click', function (e) { e.stopPropagation(); selectTask(i, true); });
    }
    return li;
  }
  function reflect() {  // state into the DOM, for scripts and tests
    body.dataset.active = S.active >= 0 ? S.active + 1 : '';
    body.dataset.highlighted = Array.from(S.hl).map(pos).join(',');
    body.dataset.selected = S.selected >= 0 ? pos(S.selected) : '';
  }
  // Scrolls both views so that `tasks` are in sight, and the memory view to
  // the buffer and addresses they (or the finding's ranges) touch.
  function reveal(tasks, ranges) {
    if (!tasks.length && !ranges.length) return;
    // A task asked for is shown: its rank joins the rank filter if it was
    // filtered out (the box then says so), and a collapsed rank opens.
    tasks.forEach(function (i) {
      const rk = rows[laneOf[i]].rank;
      if (rankFilter && !rankFilter.has(rk)) showRank(rk);
      if (slotOf[laneOf[i]] < 0 && collapsed.has(rk)) toggleRank(rk);
    });
    if (tasks.length) {
      const cols = tasks.map(function (i) { return COL[i]; });
      const lo = Math.min.apply(null, cols), hi = Math.max.apply(null, cols);
      const mid = (lo + hi + 1) / 2 * S.cw;
      tl.scroll.scrollLeft = Math.max(0, mid - tl.scroll.clientWidth / 2);
      mem.scroll.scrollLeft = tl.scroll.scrollLeft;
      const rs = tasks.map(function (i) { return Math.max(0, slotOf[laneOf[i]]); });
      const rmid = (Math.min.apply(null, rs) + Math.max.apply(null, rs) + 1) / 2 * LANE_H;
      tl.scroll.scrollTop = Math.max(0, rmid - tl.scroll.clientHeight / 2);
    }
    // Memory: the buffer of the first named range, else the one the tasks touch most.
    let best = -1, lo = Infinity, hi = -Infinity;
    const want = new Set(tasks);
    if (ranges.length) best = buffers.findIndex(function (B) { return B.rank === ranges[0].rank && B.buf === ranges[0].buf; });
    if (best < 0) {
      let most = 0;
      buffers.forEach(function (B, k) {
        let n = 0;
        for (let j = 0; j < B.n; j++) if (want.has(B.task[j])) n += B.w[j] ? 2 : 1;
        if (n > most) { most = n; best = k; }
      });
    }
    if (best < 0 && tasks.length) {  // no access: the busiest buffer of the task's rank
      const rank = rows[laneOf[tasks[0]]].rank;
      buffers.forEach(function (B, k) { if (B.rank === rank && (best < 0 || B.n > buffers[best].n)) best = k; });
    }
    if (best < 0) return;
    const B = buffers[best];
    for (let j = 0; j < B.n; j++) if (want.has(B.task[j])) { lo = Math.min(lo, B.b[j]); hi = Math.max(hi, B.e[j]); }
    ranges.forEach(function (r) { if (r.rank === B.rank && r.buf === B.buf) { lo = Math.min(lo, r.b); hi = Math.max(hi, r.e); } });
    if (lo === Infinity) chooseBuffer(best); else chooseBuffer(best, lo, hi);
  }

  function activate(k, fromUser) {
    const f = D.findings[k];
    if (!f) return;
    S.active = k; S.selected = -1;
    S.hl = new Set(f.tasks.filter(function (i) { return i >= 0; }));
    list.querySelectorAll('li.finding').forEach(function (li) { li.classList.toggle('active', +li.dataset.index === k + 1); });
    const item = list.querySelector('li.finding.active');
    if (item && item.scrollIntoView) item.scrollIntoView({ block: 'nearest' });
    const det = $('detail');
    det.textContent = '';
    const h = el('h3', 'sev-' + f.severity, '#' + (k + 1) + '  [' + f.stage + '] ' +
      (f.code ? 'ErrorCode ' + f.code + ' ' : '') + f.name + (f.severity === 'warning' ? ' (warning)' : ''));
    det.appendChild(h);
    det.appendChild(el('div', '', f.message));
    if (f.details.length) det.appendChild(el('pre', '', f.details.join('\n')));
    if (f.refs.length) {
      det.appendChild(el('div', 'hint', 'Tasks of this finding (click one to centre it):'));
      const ul = el('ul', 'tasks');
      f.refs.forEach(function (ref, j) { ul.appendChild(taskItem(f.tasks[j], ref, true)); });
      det.appendChild(ul);
    } else {
      det.appendChild(el('div', 'hint', 'This finding names no task.'));
    }
    reveal(Array.from(S.hl), f.ranges);
    if (fromUser && history.replaceState)
      history.replaceState(null, '', '#finding=' + (k + 1) + (axis.value !== axisDefault ? '&axis=' + axis.value : ''));
    reflect();
    draw();
  }
  function selectTask(i, centre) {
    S.selected = i;
    if (S.active < 0 || !S.hl.has(i)) { S.active = -1; S.hl = new Set(); }
    list.querySelectorAll('li.finding.active').forEach(function (li) { if (S.active < 0) li.classList.remove('active'); });
    if (S.active < 0) {
      const det = $('detail');
      det.textContent = '';
      det.appendChild(el('h3', '', 'Task ' + pos(i)));
      const ul = el('ul', 'tasks');
      ul.appendChild(taskItem(i, null, false));
      det.appendChild(ul);
      const fs = findingsOf.get(i) || [];
      if (fs.length) {
        det.appendChild(el('div', 'hint', 'In findings:'));
        fs.forEach(function (k) {
          const a = el('button', '', '#' + (k + 1) + ' ' + (D.findings[k].code || D.findings[k].name) + ' ' + D.findings[k].message);
          a.addEventListener('click', function () { activate(k, true); });
          det.appendChild(a);
        });
      }
      if (T.partner[i] >= 0) {
        const p = T.partner[i];
        const a = el('button', '', (T.type[i] === 'RECORD' ? 'released WAIT ' : 'released by RECORD ') + pos(p));
        a.addEventListener('click', function () { selectTask(p, true); });
        det.appendChild(a);
      }
    }
    if (centre) reveal([i], []);
    reflect();
    draw();
  }

  // ---- keyboard and URL fragment -----------------------------------------
  document.addEventListener('keydown', function (e) {
    if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT' || !D.findings.length) return;
    if (e.key === 'n' || e.key === 'j') activate(Math.min(D.findings.length - 1, S.active + 1), true);
    else if (e.key === 'p' || e.key === 'k') activate(Math.max(0, S.active - 1), true);
  });
  // A task by its name on the page: "rank/stream/index" (or an AIV node's or
  // MSCCL step's name); -1 if no shown task has it.
  function findTask(text) {
    text = text.trim();
    if (!text) return -1;
    for (let i = 0; i < N; i++) if (pos(i) === text) return i;
    return -1;
  }
  // The task box: Enter selects and centres the task it names.
  const search = $('task-search'), searchMsg = $('task-msg');
  search.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const text = search.value.trim();
    const i = findTask(text);
    searchMsg.textContent = i >= 0 || !text ? '' : 'no task ' + text;
    body.dataset.searchMessage = searchMsg.textContent;
    if (i >= 0) selectTask(i, true);
  });
  // Ranks: the filter ("0-3,8") shows only those ranks' lanes; a click on a
  // rank's label collapses or expands its lanes.
  function parseRanks(text) {
    text = text.trim();
    if (!text) return null;
    const set = new Set();
    for (const part of text.split(',')) {
      const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(part);
      if (!m) return undefined;
      const a = +m[1], b = m[2] === undefined ? a : +m[2];
      if (b < a || b - a > 1e6) return undefined;
      for (let x = a; x <= b; x++) set.add(x);
    }
    return set;
  }
  function reflectRanks() {
    body.dataset.slots = slots.length;
    body.dataset.collapsed = Array.from(collapsed).sort(function (a, b) { return a - b; }).join(',');
  }
  const rankBox = $('rank-filter'), rankMsg = $('rank-msg');
  function applyRankFilter(text) {
    const set = parseRanks(text);
    rankMsg.textContent = set === undefined ? 'ranks: e.g. 0-3,8' : '';
    if (set === undefined) return;
    rankFilter = set;
    body.dataset.rankFilter = set ? ranksText(set) : '';
    buildSlots(); reflectRanks(); layout();
  }
  rankBox.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { e.preventDefault(); applyRankFilter(rankBox.value); }
  });
  rankBox.addEventListener('change', function () { applyRankFilter(rankBox.value); });
  // "0-3,8" of a set of ranks: the filter box's own notation.
  function ranksText(set) {
    const v = Array.from(set).sort(function (a, b) { return a - b; });
    const parts = [];
    for (let k = 0; k < v.length; k++) {
      let e = k;
      while (e + 1 < v.length && v[e + 1] === v[e] + 1) e++;
      parts.push(e > k ? v[k] + '-' + v[e] : String(v[k]));
      k = e;
    }
    return parts.join(',');
  }
  function showRank(rank) {
    rankFilter.add(rank);
    rankBox.value = ranksText(rankFilter);
    body.dataset.rankFilter = rankBox.value;
    buildSlots(); reflectRanks(); layout();
  }
  function toggleRank(rank) {
    if (collapsed.has(rank)) collapsed.delete(rank); else collapsed.add(rank);
    buildSlots(); reflectRanks(); layout();
  }
  tl.gutter.addEventListener('click', function (e) {
    const r = Math.floor((e.clientY - tl.gutter.getBoundingClientRect().top + tl.scroll.scrollTop) / LANE_H);
    if (r >= 0 && r < slots.length) toggleRank(slots[r].rank);
  });
  tl.gutter.style.cursor = 'pointer';
  tl.gutter.title = 'click a rank to collapse or expand its lanes';
  reflectRanks();
  // The arrows box: RECORD -> WAIT (and other sync) arrows on or off.
  const arrowsBox = $('arrows');
  arrowsBox.addEventListener('change', function () {
    S.arrows = arrowsBox.checked;
    body.dataset.arrows = S.arrows ? 'on' : 'off';
    draw();
  });
  body.dataset.arrows = 'on';
  // The fragment: "finding=N" (1-based) activates finding N, "task=R/S/I"
  // selects a task, "search=R/S/I" does so through the task box (its
  // message included), "axis=depth|tau" chooses the layout, "arrows=off"
  // hides the arrows, "ranks=0-3,8" filters the lanes, "collapse=2,5"
  // collapses ranks; joined by '&'.
  function fromHash() {
    const args = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      const at = kv.indexOf('=');
      if (at > 0) args[kv.slice(0, at)] = decodeURIComponent(kv.slice(at + 1));
    });
    if ((args.axis === 'depth' || args.axis === 'tau') && args.axis !== axis.value) {
      axis.value = args.axis;
      axis.dispatchEvent(new Event('change'));
    }
    if (args.arrows === 'off' || args.arrows === 'on') {
      arrowsBox.checked = args.arrows === 'on';
      arrowsBox.dispatchEvent(new Event('change'));
    }
    if (args.ranks !== undefined) { rankBox.value = args.ranks; applyRankFilter(args.ranks); }
    if (args.collapse !== undefined) {
      const set = parseRanks(args.collapse);
      if (set) set.forEach(function (x) { if (!collapsed.has(x)) toggleRank(x); });
    }
    if (args.search !== undefined) {  // as if typed into the task box, then Enter
      search.value = args.search;
      search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
      return;
    }
    if (/^\d+$/.test(args.finding || '')) { activate(+args.finding - 1, false); return; }
    const i = findTask(args.task || '');
    if (i >= 0) selectTask(i, true);
  }
  window.addEventListener('hashchange', fromHash);

  // Until a finding says otherwise, show the busiest buffer.
  let busiest = 0;
  buffers.forEach(function (B, k) { if (B.n > buffers[busiest].n) busiest = k; });
  chooseBuffer(busiest);
  layout();
  S.cw = clampCw(Math.min(90, Math.max(22, Math.floor((tl.scroll.clientWidth - 48) / nCols))));
  layout();
  // Above 16 ranks the execution order spreads over too many columns to read:
  // dependency depth, where a ring's steps line up, is the default there.
  if (axisDefault === 'depth') { axis.value = 'depth'; axis.dispatchEvent(new Event('change')); }
  body.dataset.axis = axis.value;
  fromHash();
  reflect();
  body.dataset.ready = '1';
})();
