// qipu opening explorer page. Talks to the JSON API of `qipu serve`; no external code.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const S = 50;   // distance between two points
const M = 44;   // margin around the grid
const W = 2 * M + 8 * S;
const H = 2 * M + 9 * S;

const GLYPHS = {
  xiangqi: {
    first: { k: '帥', a: '仕', b: '相', n: '傌', r: '俥', c: '炮', p: '兵' },
    second: { k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒' },
  },
  janggi: {
    first: { k: '楚', a: '士', b: '象', n: '馬', r: '車', c: '包', p: '卒' },
    second: { k: '漢', a: '士', b: '象', n: '馬', r: '車', c: '包', p: '兵' },
  },
};
const SIDE_NAMES = {
  xiangqi: { first: 'Red', second: 'Black' },
  janggi: { first: 'Cho 초', second: 'Han 한' },
};
// Short labels for the result bars and columns: Red · Draw · Black, Cho · Draw · Han.
const SHORT_NAMES = {
  xiangqi: { first: 'Red', second: 'Black' },
  janggi: { first: 'Cho', second: 'Han' },
};
// The colours of the history chart's bars (first player's wins, draws, second player's
// wins, games without a known result); the browser test looks for them in a screenshot.
const CHART = {
  first: { xiangqi: '#c8102e', janggi: '#1565c0' },
  draw: '#9e9e9e',
  second: '#333333',
  unknown: '#e0d8c8',
};
// The filters the page sends to /api/explore and keeps in the URL, by their API names.
// The side filter as the API reads it (red/cho/first, black/han/second), for the select.
const SIDE_WORDS = { red: 'first', cho: 'first', first: 'first', black: 'second', han: 'second', second: 'second' };
const FILTER_KEYS = ['since', 'until', 'min_rating', 'max_rating', 'speed', 'mode', 'player', 'side', 'event'];
const END_NAMES = {
  mate: 'mate', stalemate: 'stalemate', resignation: 'resignation', time: 'time',
  agreement: 'draw agreed', repetition: 'repetition ruling', count: 'count', bikjang: 'bikjang',
  other: 'other', unknown: 'not recorded',
};
const NOTATIONS = {
  xiangqi: [['chinese', 'Chinese 中文'], ['wxf', 'WXF'], ['coord', 'Coordinates']],
  janggi: [['korean', 'Korean 한국'], ['coord', 'Coordinates']],
};

const state = {
  variant: 'xiangqi',
  startFen: null,       // null = the standard start
  line: [],             // canonical moves of the line
  notes: [],            // notation objects per ply where known
  cursor: 0,            // plies of the line played on the board
  flipped: false,
  notation: 'chinese',
  selected: null,       // square of the selected piece
  position: null,       // answer of /api/position
  explore: null,        // answer of /api/explore
  database: false,
  books: [],            // names of the books the server was started with
  setup: null,          // Janggi formations (`마상상마/상마마상`) the line starts from
  formations: null,     // the formation pairs with their games, from /api/explore
  filters: {},          // the filters applied (API names → text)
  game: null,           // game shown in the dialog
  gameNotes: null,      // its moves in the other notations
  seq: 0,               // request sequence, to drop stale answers
};

const $ = (id) => document.getElementById(id);

function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// ---------------------------------------------------------------- API

async function api(path, params) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== null && v !== undefined && v !== '') qs.set(k, v);
  }
  const q = qs.toString();
  const res = await fetch('/api/' + path + (q ? '?' + q : ''));
  let body;
  try { body = await res.json(); } catch (e) { body = { error: res.statusText }; }
  if (!res.ok) throw new Error(body.error || ('HTTP ' + res.status));
  return body;
}

function positionParams(plies) {
  return {
    variant: state.variant,
    fen: state.startFen,
    moves: state.line.slice(0, plies).join(','),
  };
}

function filterParams() {
  const out = {};
  for (const k of FILTER_KEYS) if (state.filters[k]) out[k] = state.filters[k];
  return out;
}

// The filters as the form shows them (`side` only with a player).
function readFilters() {
  const speeds = [...document.querySelectorAll('input[name=speed]:checked')].map((c) => c.value);
  const player = $('f-player').value.trim();
  return {
    since: $('f-since').value.trim(),
    until: $('f-until').value.trim(),
    min_rating: $('f-min-rating').value.trim(),
    max_rating: $('f-max-rating').value.trim(),
    speed: speeds.join(','),
    mode: $('f-mode').value,
    player,
    side: player ? $('f-side').value : '',
    event: $('f-event').value.trim(),
  };
}

function writeFilters(f) {
  $('f-since').value = f.since || '';
  $('f-until').value = f.until || '';
  $('f-min-rating').value = f.min_rating || '';
  $('f-max-rating').value = f.max_rating || '';
  const speeds = (f.speed || '').split(',');
  for (const c of document.querySelectorAll('input[name=speed]')) c.checked = speeds.includes(c.value);
  $('f-mode').value = f.mode || '';
  $('f-player').value = f.player || '';
  $('f-side').value = SIDE_WORDS[(f.side || '').toLowerCase()] || '';
  $('f-event').value = f.event || '';
  const on = FILTER_KEYS.filter((k) => f[k]);
  $('filter-summary').textContent = on.length ? `(${on.map((k) => `${k.replace('_', ' ')} ${f[k]}`).join(', ')})` : '';
  if (on.length) $('filters').open = true;
}

function applyFilters() {
  const f = readFilters();
  state.filters = {};
  for (const k of FILTER_KEYS) if (f[k]) state.filters[k] = f[k];
  writeFilters(state.filters);
  refresh();
}

// ---------------------------------------------------------------- board

function sqXY(sq) {
  let f = sq.charCodeAt(0) - 97;
  let r = parseInt(sq.slice(1), 10);
  if (state.flipped) { f = 8 - f; r = 9 - r; }
  return [M + f * S, M + (9 - r) * S];
}

function xyToSquare(f, rowFromTop) {
  let file = f;
  let rank = 9 - rowFromTop;
  if (state.flipped) { file = 8 - file; rank = 9 - rank; }
  return String.fromCharCode(97 + file) + rank;
}

function drawGrid(svg) {
  const janggi = state.variant === 'janggi';
  svg.append(el('rect', { x: 0, y: 0, width: W, height: H, rx: 8, class: 'wood', fill: janggi ? '#e9c48a' : '#f0d9a6' }));
  const g = el('g', { stroke: '#5a3d1e', 'stroke-width': 1.4, fill: 'none', 'stroke-linecap': 'square' });
  g.append(el('rect', { x: M - 5, y: M - 5, width: 8 * S + 10, height: 9 * S + 10, 'stroke-width': 2.4 }));
  for (let r = 0; r < 10; r++) g.append(el('line', { x1: M, y1: M + r * S, x2: M + 8 * S, y2: M + r * S }));
  for (let f = 0; f < 9; f++) {
    const x = M + f * S;
    if (janggi || f === 0 || f === 8) {
      g.append(el('line', { x1: x, y1: M, x2: x, y2: M + 9 * S }));
    } else {
      g.append(el('line', { x1: x, y1: M, x2: x, y2: M + 4 * S }));
      g.append(el('line', { x1: x, y1: M + 5 * S, x2: x, y2: M + 9 * S }));
    }
  }
  // Palaces: files d–f, three ranks at each end.
  for (const top of [0, 7]) {
    const y1 = M + top * S;
    const y2 = y1 + 2 * S;
    g.append(el('line', { x1: M + 3 * S, y1, x2: M + 5 * S, y2 }));
    g.append(el('line', { x1: M + 5 * S, y1, x2: M + 3 * S, y2 }));
  }
  svg.append(g);
  if (!janggi) {
    // The river, and the marks at the cannons' and soldiers' start points.
    const river = el('g', { class: 'river', fill: '#7a5a34', 'font-size': 26, 'text-anchor': 'middle', 'font-family': 'QipuBoard, serif' });
    const y = M + 4.5 * S + 9;
    river.append(el('text', { x: M + 2 * S, y }, state.flipped ? '漢 界' : '楚 河'));
    river.append(el('text', { x: M + 6 * S, y }, state.flipped ? '楚 河' : '漢 界'));
    svg.append(river);
    const marks = el('g', { stroke: '#5a3d1e', 'stroke-width': 1.2, fill: 'none' });
    const points = [[1, 2], [7, 2], [0, 3], [2, 3], [4, 3], [6, 3], [8, 3]];
    for (const [f, r] of points) {
      for (const [ff, rr] of [[f, r], [f, 9 - r]]) {
        const x = M + ff * S;
        const yy = M + (9 - rr) * S;
        for (const dx of [-1, 1]) {
          if ((ff === 0 && dx < 0) || (ff === 8 && dx > 0)) continue;
          for (const dy of [-1, 1]) {
            const cx = x + dx * 4;
            const cy = yy + dy * 4;
            marks.append(el('polyline', { points: `${cx + dx * 9},${cy} ${cx},${cy} ${cx},${cy + dy * 9}` }));
          }
        }
      }
    }
    svg.append(marks);
  }
  // Coordinates.
  const labels = el('g', { fill: '#5a3d1e', 'font-size': 12, 'text-anchor': 'middle', class: 'coords' });
  const zh = ['九', '八', '七', '六', '五', '四', '三', '二', '一'];
  for (let f = 0; f < 9; f++) {
    const file = state.flipped ? 8 - f : f;
    const x = M + f * S;
    if (janggi) {
      labels.append(el('text', { x, y: H - 8 }, String.fromCharCode(97 + file)));
    } else {
      // Each side counts files from its own right.
      const bottomFirst = !state.flipped;
      const redLabel = zh[file];
      const blackLabel = String(file + 1);
      labels.append(el('text', { x, y: H - 8 }, bottomFirst ? redLabel : blackLabel));
      labels.append(el('text', { x, y: 16 }, bottomFirst ? blackLabel : redLabel));
    }
  }
  if (janggi) {
    for (let r = 0; r < 10; r++) {
      const rank = state.flipped ? r : 9 - r;
      labels.append(el('text', { x: 14, y: M + r * S + 4 }, String(rank)));
    }
  }
  svg.append(labels);
}

function octagon(cx, cy, r) {
  const pts = [];
  for (let i = 0; i < 8; i++) {
    const a = Math.PI / 8 + (i * Math.PI) / 4;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(' ');
}

function drawPiece(svg, sq, letter) {
  const [x, y] = sqXY(sq);
  const side = letter === letter.toUpperCase() ? 'first' : 'second';
  const role = letter.toLowerCase().replace('e', 'b').replace('h', 'n');
  const glyph = GLYPHS[state.variant][side][role] || '?';
  const g = el('g', { class: `piece ${side}`, 'data-square': sq, 'data-piece': letter });
  if (state.variant === 'janggi') {
    const r = role === 'k' ? 25 : (role === 'a' || role === 'p') ? 16.5 : 21;
    const colour = side === 'first' ? '#10628a' : '#c8102e';
    g.append(el('polygon', { points: octagon(x, y, r), fill: '#fbf3df', stroke: '#6b4a26', 'stroke-width': 1.6 }));
    g.append(el('polygon', { points: octagon(x, y, r - 3.5), fill: 'none', stroke: colour, 'stroke-width': 1 }));
    g.append(el('text', {
      x, y: y + r * 0.36, 'text-anchor': 'middle', 'font-size': r * 1.05, fill: colour,
      'font-family': 'QipuBoard, serif', 'font-weight': 'bold',
    }, glyph));
  } else {
    const colour = side === 'first' ? '#c8102e' : '#1a1a1a';
    g.append(el('circle', { cx: x, cy: y + 1.5, r: 22, fill: '#9c7a4d' }));
    g.append(el('circle', { cx: x, cy: y, r: 22, fill: '#f7e7c1', stroke: '#6b4a26', 'stroke-width': 1.4 }));
    g.append(el('circle', { cx: x, cy: y, r: 18, fill: 'none', stroke: colour, 'stroke-width': 1.2 }));
    g.append(el('text', {
      x, y: y + 8, 'text-anchor': 'middle', 'font-size': 23, fill: colour,
      'font-family': 'QipuBoard, serif', 'font-weight': 'bold',
    }, glyph));
  }
  svg.append(g);
}

function legalFrom() {
  const map = new Map();
  for (const m of (state.position ? state.position.legal : [])) {
    if (m === 'pass') continue;
    const from = m.slice(0, 2);
    if (!map.has(from)) map.set(from, []);
    map.get(from).push(m.slice(2));
  }
  return map;
}

function drawBoard() {
  const svg = $('board');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.replaceChildren();
  drawGrid(svg);
  const pos = state.position;
  if (!pos) return;
  const last = state.cursor > 0 ? state.line[state.cursor - 1] : null;
  if (last && last !== 'pass') {
    for (const sq of [last.slice(0, 2), last.slice(2, 4)]) {
      const [x, y] = sqXY(sq);
      svg.append(el('rect', { x: x - 25, y: y - 25, width: 50, height: 50, rx: 6, fill: '#6aa84f', opacity: 0.35, class: 'last' }));
    }
  }
  if (pos.check) {
    const king = pos.pieces.find((p) => p.piece === (pos.turn === 'first' ? 'K' : 'k'));
    if (king) {
      const [x, y] = sqXY(king.square);
      svg.append(el('circle', { cx: x, cy: y, r: 27, fill: '#e53935', opacity: 0.45 }));
    }
  }
  for (const p of pos.pieces) drawPiece(svg, p.square, p.piece);
  if (state.selected) {
    const [x, y] = sqXY(state.selected);
    svg.append(el('circle', { cx: x, cy: y, r: 25, fill: 'none', stroke: '#2e7d32', 'stroke-width': 3, class: 'selected' }));
    for (const to of legalFrom().get(state.selected) || []) {
      const [tx, ty] = sqXY(to);
      const occupied = pos.pieces.some((p) => p.square === to);
      svg.append(occupied
        ? el('circle', { cx: tx, cy: ty, r: 25, fill: 'none', stroke: '#2e7d32', 'stroke-width': 3, opacity: 0.7, class: 'target', 'data-target': to })
        : el('circle', { cx: tx, cy: ty, r: 7, fill: '#2e7d32', opacity: 0.7, class: 'target', 'data-target': to }));
    }
  }
}

function onBoardClick(ev) {
  const svg = $('board');
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX;
  pt.y = ev.clientY;
  const ctm = svg.getScreenCTM();
  if (!ctm || !state.position) return;
  const p = pt.matrixTransform(ctm.inverse());
  const f = Math.round((p.x - M) / S);
  const row = Math.round((p.y - M) / S);
  if (f < 0 || f > 8 || row < 0 || row > 9) return;
  const sq = xyToSquare(f, row);
  const moves = legalFrom();
  if (state.selected && (moves.get(state.selected) || []).includes(sq)) {
    const mv = state.selected + sq;
    state.selected = null;
    play(mv);
    return;
  }
  state.selected = moves.has(sq) && sq !== state.selected ? sq : null;
  drawBoard();
}

// ---------------------------------------------------------------- line

function play(mv) {
  const note = noteFor(mv);
  if (state.line[state.cursor] === mv) {
    state.cursor += 1;
  } else {
    state.line = state.line.slice(0, state.cursor);
    state.notes = state.notes.slice(0, state.cursor);
    state.line.push(mv);
    state.cursor += 1;
  }
  if (note) state.notes[state.cursor - 1] = note;
  refresh();
}

function noteFor(mv) {
  const row = state.explore && state.explore.moves.find((m) => m.move === mv);
  if (row) return row.notation;
  const pos = state.position;
  const i = pos ? pos.legal.indexOf(mv) : -1;
  return i >= 0 ? pos.legal_notation[i] : null;
}

function moveText(mv, notation) {
  if (state.notation !== 'coord' && notation && notation[state.notation]) return notation[state.notation];
  return mv;
}

function goTo(ply) {
  state.cursor = Math.max(0, Math.min(ply, state.line.length));
  state.selected = null;
  refresh();
}

function drawLine() {
  const ol = $('line');
  ol.replaceChildren();
  state.line.forEach((mv, i) => {
    const no = i % 2 === 0 ? h('span', { class: 'no' }, `${i / 2 + 1}.`) : null;
    const cls = i + 1 === state.cursor ? 'current' : i >= state.cursor ? 'future' : '';
    const li = h('li', { class: cls, 'data-ply': String(i + 1) }, no, moveText(mv, state.notes[i]));
    li.addEventListener('click', () => goTo(i + 1));
    ol.append(li);
  });
  $('start').disabled = state.cursor === 0;
  $('back').disabled = state.cursor === 0;
  $('forward').disabled = state.cursor >= state.line.length;
  $('end').disabled = state.cursor >= state.line.length;
}

// ---------------------------------------------------------------- panel

function pct(n, total) {
  return total > 0 ? (100 * n) / total : 0;
}

function wdlBar(w, d, l) {
  const total = w + d + l;
  const bar = h('div', { class: 'wdl', title: `${SIDE_NAMES[state.variant].first} ${w} · draws ${d} · ${SIDE_NAMES[state.variant].second} ${l}` });
  for (const [cls, n] of [['w', w], ['d', d], ['l', l]]) {
    const p = pct(n, total);
    const seg = h('span', { class: cls }, p >= 12 ? `${Math.round(p)}%` : '');
    seg.style.width = `${p}%`;
    bar.append(seg);
  }
  return bar;
}

function scoreText(m) {
  if (m.score === null || m.score === undefined) return '—';
  let t = `${(100 * m.score).toFixed(1)}%`;
  if (m.score_low !== null && m.score_low !== undefined && m.score_high !== null && m.score_high !== undefined) {
    t += ` ±${(50 * (m.score_high - m.score_low)).toFixed(1)}`;
  }
  return t;
}

function ratingText(m) {
  const r = (x) => (x === null || x === undefined ? '–' : String(Math.round(x)));
  if (m.avg_opponent_rating === undefined) return r(m.avg_rating);
  return `${r(m.avg_rating)} / ${r(m.avg_opponent_rating)}`;
}

function gameLabel(g) {
  return `${g.first || '?'} ${g.result || ''} ${g.second || '?'}${g.date ? ` · ${g.date}` : ''}${g.event ? ` · ${g.event}` : ''}`;
}

function moveRow(m, ex) {
  const games = h('td', { class: 'num' }, `${m.games.toLocaleString()} `, h('small', {}, `${Math.round(pct(m.games, ex.games))}%`));
  if (m.games_after !== null && m.games_after !== undefined) {
    games.append(h('div', { class: 'after', title: 'games through the position after this move, by any move order' },
      h('small', {}, `→ ${m.games_after.toLocaleString()}`),
      m.transposed ? h('span', { class: 'tp', 'data-transposed': '1', title: 'mostly reached by another move order' }, '⇄') : null));
  }
  const dates = h('td', { class: 'num wide' });
  if (m.first_date) {
    if (m.first_game) {
      const a = h('a', { class: 'first-game', href: '#', title: `first game: ${gameLabel(m.first_game)}`, 'data-game': String(m.first_game.id) }, m.first_date);
      a.addEventListener('click', (e) => { e.preventDefault(); e.stopPropagation(); openGame(m.first_game.id); });
      dates.append(a);
    } else {
      dates.append(m.first_date);
    }
    dates.append(h('span', { class: 'sep' }, ' · '));
  }
  dates.append(m.last_date || '–');
  const tr = h('tr', { 'data-move': m.move, title: m.move },
    h('td', { class: 'mv' }, moveText(m.move, m.notation)),
    games,
    h('td', { class: 'bar' }, wdlBar(m.first_wins, m.draws, m.second_wins)),
    h('td', {
      class: 'num score',
      title: `${m.decided} of ${m.games} games with a known result` +
        (m.score_low !== null && m.score_low !== undefined ? `; 95% interval ${(100 * m.score_low).toFixed(1)}–${(100 * m.score_high).toFixed(1)}%` : ''),
    }, scoreText(m)),
    h('td', { class: 'num' }, ratingText(m)),
    h('td', { class: 'num', title: m.eval ? `depth ${m.eval.depth}, ${m.eval.engine}` : 'no engine score stored' }, evalText(m.eval)),
    dates,
  );
  tr.addEventListener('click', () => play(m.move));
  return tr;
}

// A player's name in a game list: a link to their dossier (the game opens elsewhere on the row).
function playerLink(name) {
  if (!name) return h('span', {}, '?');
  const a = h('a', { href: '#', class: 'player-link', title: `${name}: the player's dossier`, 'data-player': name }, name);
  a.addEventListener('click', (e) => { e.preventDefault(); e.stopPropagation(); openPlayer(name); });
  return a;
}

function gameList(ul, games) {
  ul.replaceChildren();
  for (const g of games || []) {
    const li = h('li', { 'data-game': String(g.id) },
      playerLink(g.first), h('span', { class: 'res' }, g.result), playerLink(g.second),
      [g.date, g.event].some(Boolean) ? h('span', { class: 'meta' }, ` · ${[g.date, g.event].filter(Boolean).join(' · ')}`) : null);
    li.addEventListener('click', () => openGame(g.id));
    ul.append(li);
  }
  if (!games || games.length === 0) ul.append(h('li', { class: 'note' }, 'No games.'));
}

function drawExplore() {
  const ex = state.explore;
  const tbody = $('moves').querySelector('tbody');
  tbody.replaceChildren();
  $('games').replaceChildren();
  $('recent').replaceChildren();
  $('opening').replaceChildren();
  $('totals').replaceChildren();
  const short = SHORT_NAMES[state.variant];
  $('wdl-head').textContent = `${short.first} · Draw · ${short.second}`;
  const note = $('explore-note');
  note.textContent = '';
  drawHistory(null);
  if (!state.database) {
    note.textContent = 'No database attached: start the server with `qipu serve --db FILE` to see statistics.';
    return;
  }
  if (!ex) return;
  if (ex.opening) {
    $('opening').append(h('span', { class: 'eco' }, ex.opening.ecco || ''), ex.opening.name || '');
  }
  const names = SIDE_NAMES[state.variant];
  $('totals').append(
    h('div', {}, `${ex.games.toLocaleString()} games (${(ex.decided ?? ex.games).toLocaleString()} decided) · ${names.first} ${ex.first_wins} · draws ${ex.draws} · ${names.second} ${ex.second_wins}`),
    wdlBar(ex.first_wins, ex.draws, ex.second_wins),
  );
  if (ex.player) {
    const p = ex.player;
    const perf = p.performance === null || p.performance === undefined ? '' : ` · performance ${p.performance} (FIDE table 8.1.2)`;
    const score = p.score === null || p.score === undefined ? '—' : `${(100 * p.score).toFixed(1)}%`;
    $('totals').append(h('div', { id: 'player-line' },
      `${state.filters.player}: +${p.wins} =${p.draws} −${p.losses} of ${p.games} · score ${score}${perf}`));
  }
  if (ex.formations) drawFormationList(ex.formations);
  for (const n of ex.notes || []) $('totals').append(h('div', { class: 'filter-note note' }, `Note: ${n}.`));
  const why = {
    empty_database: 'The database holds no game of this variant.',
    filtered: 'Games go through this position, but the filters removed every one.',
    beyond_max_ply: 'This position is deeper than the database indexes (it was imported with --max-ply).',
    other_variant: 'No game of this variant goes through this position, but games of the other variant do.',
    not_reached: 'No game in the database goes through this position.',
  };
  if (ex.no_games) note.textContent = why[ex.no_games] || 'No games.';
  else if (ex.moves.length === 0) note.textContent = 'No games continue from this position.';
  for (const m of ex.moves) tbody.append(moveRow(m, ex));
  if (ex.others && ex.others.games > 0) {
    const o = ex.others;
    tbody.append(h('tr', { class: 'others', title: 'moves not listed: fewer games than the minimum, or past the limit' },
      h('td', {}, `others (${o.moves} moves)`),
      h('td', { class: 'num' }, o.games.toLocaleString()),
      h('td', { class: 'bar' }, wdlBar(o.first_wins, o.draws, o.second_wins)),
      h('td', { class: 'num' }, scoreText(o)),
      h('td', {}), h('td', {}), h('td', { class: 'wide' })));
  }
  if (ex.ended && ex.ended.games > 0) {
    const e = ex.ended;
    // In the order of END_NAMES (then any kind it does not know).
    const kinds = [...Object.keys(END_NAMES), ...Object.keys(e.how || {}).filter((k) => !(k in END_NAMES))];
    const how = kinds.filter((k) => (e.how || {})[k] > 0)
      .map((k) => `${END_NAMES[k] || k} ${e.how[k]}`).join(' · ');
    tbody.append(h('tr', { class: 'ended', title: 'games that ended in this position' },
      h('td', {}, 'ended here'),
      h('td', { class: 'num' }, e.games.toLocaleString()),
      h('td', { class: 'bar' }, wdlBar(e.first_wins, e.draws, e.second_wins)),
      h('td', { class: 'how', colSpan: 4 }, how ? `how they ended: ${how}` : '')));
  }
  gameList($('games'), ex.top_games);
  gameList($('recent'), ex.recent_games);
  drawHistory(ex.history);
  if (ex.engine_best) {
    const b = ex.engine_best;
    const played = b.played;
    const tip = h('div', { class: 'engine-best', 'data-engine-best': b.move },
      `Engine's choice: `, h('strong', {}, moveText(b.move, b.notation)),
      ` ${evalText(b.eval)} (depth ${b.depth}, ${b.engine})${played ? '' : ' — never played here'}`
      + (b.engine_move && b.engine_move !== b.move
        ? `; the search of all moves picked ${b.engine_move}, which scored lower alone` : ''));
    $('totals').append(tip);
  }
}

// The formation pairs at the Janggi default start: how many games started from each.
function drawFormationList(list) {
  state.formations = list;
  fillSetupSelect();
  const total = list.reduce((n, f) => n + f.games, 0);
  const ul = h('ul', { id: 'formation-list', class: 'games' });
  for (const f of list) {
    const li = h('li', { 'data-setup': f.setup }, h('strong', {}, f.setup), ` ${f.names} `,
      h('span', { class: 'meta' }, `${f.games.toLocaleString()} games (${Math.round(pct(f.games, total))}%)`));
    li.addEventListener('click', () => chooseSetup(f.setup));
    ul.append(li);
  }
  $('totals').append(h('details', { class: 'formations' },
    h('summary', {}, `${total.toLocaleString()} games from ${list.length} formation pairs (Cho/Han) — choose one`), ul));
}

// The history chart: one stacked bar per month (first player's wins, draws, second player's
// wins, games without a known result) on a continuous axis of months from the first to the
// last, scaled to the busiest month; a bar is at most 40 px wide, so that a short range is not
// one block. The y axis says the busiest month's games, the x axis the years (or months).
function monthNumber(month) {
  const [y, m] = month.split('-').map(Number);
  return y * 12 + (m || 1) - 1;
}

function drawHistory(hist) {
  state.history = hist;
  const sec = $('history');
  const svg = $('history-chart');
  svg.replaceChildren();
  if (!hist || hist.length === 0) {
    sec.hidden = true;
    svg.removeAttribute('data-months');
    return;
  }
  sec.hidden = false;
  // Drawn at the chart's own width in pixels, so that text and bars are not stretched.
  const CW = Math.max(240, Math.round(svg.getBoundingClientRect().width) || 600);
  const CH = 140;
  const base = CH - 18;
  const left = 40;
  const right = 8;
  svg.setAttribute('viewBox', `0 0 ${CW} ${CH}`);
  svg.dataset.months = String(hist.length);
  const busiest = Math.max(1, ...hist.map((m) => m.games));
  const start = monthNumber(hist[0].month);
  const span = monthNumber(hist[hist.length - 1].month) - start + 1;
  const step = (CW - left - right) / span;
  const w = Math.min(Math.max(step - (step > 4 ? 1 : 0), 0.6), 40);
  const xOf = (n) => left + (n - start) * step + (step - w) / 2;
  const first = CHART.first[state.variant];
  for (const m of hist) {
    const unknown = Math.max(0, m.games - m.first_wins - m.draws - m.second_wins);
    let y = base;
    const g = el('g', { class: 'month', 'data-month': m.month });
    g.append(el('title', {}, `${m.month}: ${m.games} games — ${SHORT_NAMES[state.variant].first} ${m.first_wins}, draws ${m.draws}, ${SHORT_NAMES[state.variant].second} ${m.second_wins}`));
    for (const [n, fill] of [[m.first_wins, first], [m.draws, CHART.draw], [m.second_wins, CHART.second], [unknown, CHART.unknown]]) {
      if (n <= 0) continue;
      const hgt = (n / busiest) * (base - 12);
      y -= hgt;
      g.append(el('rect', { x: xOf(monthNumber(m.month)).toFixed(2), y: y.toFixed(2), width: w.toFixed(2), height: hgt.toFixed(2), fill }));
    }
    svg.append(g);
  }
  const label = { 'font-size': 10, fill: '#6b6b6b' };
  svg.append(el('line', { x1: left, y1: base, x2: CW - right, y2: base, stroke: '#bbb', 'stroke-width': 1 }));
  svg.append(el('line', { x1: left, y1: 12, x2: CW - right, y2: 12, stroke: '#eee', 'stroke-width': 1 }));
  svg.append(el('text', { ...label, class: 'y-axis', x: left - 4, y: 15, 'text-anchor': 'end' }, busiest.toLocaleString()));
  svg.append(el('text', { ...label, class: 'y-axis', x: left - 4, y: base, 'text-anchor': 'end' }, '0'));
  // The x axis: each month over a short range, else the years (at most about ten labels).
  const ticks = [];
  if (span <= 12) {
    for (let n = start; n < start + span; n++) ticks.push([n, `${Math.floor(n / 12)}-${String(n % 12 + 1).padStart(2, '0')}`]);
  } else {
    const y0 = Math.floor(start / 12);
    const y1 = Math.floor((start + span - 1) / 12);
    const every = Math.max(1, Math.ceil((y1 - y0 + 1) / 10));
    for (let y = y0; y <= y1; y++) if ((y - y0) % every === 0) ticks.push([Math.max(start, y * 12), String(y)]);
  }
  const every = Math.max(1, Math.ceil(ticks.length / Math.max(1, Math.floor((CW - left) / 60))));
  ticks.filter((_, k) => k % every === 0).forEach(([n, text]) => {
    svg.append(el('text', { ...label, class: 'x-axis', x: (xOf(n) + w / 2).toFixed(1), y: CH - 4, 'text-anchor': 'middle' }, text));
  });
  svg.append(el('text', { ...label, class: 'y-axis', x: left + 4, y: 9 }, 'games per month'));
  $('history-range').textContent = `${hist[0].month} – ${hist[hist.length - 1].month}, busiest month ${busiest} games`;
}

// An engine score from the mover's view: +35 centipawns, #3 mate in 3, #-2 mated in 2.
function evalText(e) {
  if (!e) return '–';
  if (e.mate !== null && e.mate !== undefined) return `#${e.mate}`;
  return e.cp > 0 ? `+${e.cp}` : String(e.cp);
}

function drawStatus() {
  const pos = state.position;
  const st = $('status');
  st.replaceChildren();
  if (!pos) return;
  const names = SIDE_NAMES[state.variant];
  if (pos.end) {
    st.append(h('strong', {}, `Game over: ${pos.end.reason.replace('_', ' ')} — ${pos.end.result}`));
  } else {
    st.append(`${names[pos.turn]} to move`);
    if (pos.check) st.append(' — ', h('span', { class: 'check' }, 'check!'));
  }
  $('fen').textContent = pos.fen;
  $('pass').hidden = !pos.legal.includes('pass');
}

// ---------------------------------------------------------------- refresh

async function refresh(opts) {
  const seq = ++state.seq;
  saveHash(!(opts && opts.push === false));
  document.body.classList.toggle('janggi', state.variant === 'janggi');
  try {
    const pos = await api('position', positionParams(state.cursor));
    if (seq !== state.seq) return;
    state.position = pos;
    pos.moves_notation.forEach((n, i) => { state.notes[i] = n; });
    if (state.line.slice(state.cursor).some((_, i) => !state.notes[state.cursor + i])) {
      // Moves ahead of the board (a loaded line or game): how each is written.
      const full = await api('position', positionParams(state.line.length));
      if (seq !== state.seq) return;
      full.moves_notation.forEach((n, i) => { state.notes[i] = n; });
    }
  } catch (e) {
    if (seq !== state.seq) return;
    $('status').textContent = e.message;
    return;
  }
  let explore = null;
  if (state.database) {
    try {
      const params = { ...positionParams(state.cursor), ...filterParams() };
      if (state.setup) { params.fen = null; params.setup = state.setup; }
      explore = await api('explore', params);
    } catch (e) {
      if (seq !== state.seq) return;
      state.explore = null;
      drawAll();
      $('explore-note').textContent = e.message;
      return;
    }
  }
  if (seq !== state.seq) return;
  state.explore = explore;
  drawAll();
  drawBooks(seq);
}

// A book move's games, W/D/L bar and score (wins and losses are the side to move's: the bar
// shows them as the move table does, first player's wins first).
function bookCounts(m) {
  if (m.wins === null || m.wins === undefined) return [h('td', { class: 'num' }, ''), h('td', { class: 'bar' }, ''), h('td', { class: 'num score' }, '—')];
  const [first, second] = state.position && state.position.turn === 'second' ? [m.losses, m.wins] : [m.wins, m.losses];
  const games = m.games === null || m.games === undefined ? m.wins + m.draws + m.losses : m.games;
  return [h('td', { class: 'num', title: `weight ${m.weight}` }, String(games)),
    h('td', { class: 'bar' }, wdlBar(first, m.draws, second)),
    h('td', { class: 'num score', title: `+${m.wins} =${m.draws} −${m.losses} for the side to move` }, scoreText(m))];
}

// The moves the served books hold for the position, beside the table.
async function drawBooks(seq) {
  if (state.books.length === 0) { $('books').hidden = true; return; }
  const answers = await Promise.all(state.books.map((b) => api('probe', { book: b, ...positionParams(state.cursor) })
    .then((r) => ({ b, r }), (e) => ({ b, e }))));
  if (seq !== state.seq) return;
  const list = $('book-list');
  list.replaceChildren();
  $('books').hidden = false;
  for (const { b, r, e } of answers) {
    const box = h('div', { class: 'book', 'data-book': b }, h('h3', {}, b));
    if (e) {
      box.append(h('div', { class: 'note' }, e.message));
    } else if (r.moves.length === 0) {
      box.append(h('div', { class: 'note' }, 'No move in this book.'));
    } else {
      // Games, W/D/L and score where the book stores them (qipu, .obk); else the weights.
      const counted = r.moves.some((m) => m.wins !== null && m.wins !== undefined);
      const total = r.moves.reduce((n, m) => n + Math.max(0, m.weight), 0);
      const tbody = h('tbody');
      for (const m of r.moves) {
        const tr = h('tr', { 'data-book-move': m.move }, h('td', { class: 'mv' }, moveText(m.move, m.notation)),
          ...(counted ? bookCounts(m) : [h('td', { class: 'num' }, String(m.weight), ' ', h('small', {}, `${Math.round(pct(Math.max(0, m.weight), total))}%`))]));
        tr.addEventListener('click', () => play(m.move));
        tbody.append(tr);
      }
      const heads = counted ? [['num', 'Games'], ['bar-col', $('wdl-head').textContent], ['num', 'Score']] : [['num', 'Weight']];
      box.classList.toggle('counted', counted);
      box.append(h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Move'), ...heads.map(([c, t]) => h('th', { class: c }, t)))), tbody));
    }
    list.append(box);
  }
}

function drawAll() {
  drawBoard();
  drawStatus();
  drawLine();
  drawExplore();
  document.body.dataset.ready = String(state.seq);
}

function hashString() {
  const qs = new URLSearchParams();
  qs.set('variant', state.variant);
  if (state.setup) qs.set('setup', state.setup);
  else if (state.startFen) qs.set('fen', state.startFen);
  if (state.line.length) qs.set('moves', state.line.join(','));
  if (state.cursor !== state.line.length) qs.set('ply', String(state.cursor));
  for (const k of FILTER_KEYS) if (state.filters[k]) qs.set(k, state.filters[k]);
  if (state.notation !== NOTATIONS[state.variant][0][0]) qs.set('notation', state.notation);
  return '#' + qs.toString();
}

// Keeps the view in the URL: a new history entry for each change the user makes (so back and
// forward step through them), the same entry when the page only redraws.
function saveHash(push) {
  const hash = hashString();
  if (hash === location.hash) return;
  if (push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}

function loadHash() {
  const qs = new URLSearchParams(location.hash.slice(1));
  const v = qs.get('variant');
  state.variant = v === 'janggi' || v === 'xiangqi' ? v : 'xiangqi';
  state.setup = qs.get('setup') || null;
  state.startFen = state.setup ? null : qs.get('fen') || null;
  state.line = (qs.get('moves') || '').split(',').filter(Boolean);
  state.notes = [];
  const ply = parseInt(qs.get('ply') || '', 10);
  state.cursor = Number.isFinite(ply) ? Math.max(0, Math.min(ply, state.line.length)) : state.line.length;
  state.filters = {};
  for (const k of FILTER_KEYS) if (qs.get(k)) state.filters[k] = qs.get(k);
  state.notation = qs.get('notation') || NOTATIONS[state.variant][0][0];
  state.selected = null;
}

// The start FEN of the chosen formations (asked of the server, which reads the names).
async function resolveSetup() {
  if (!state.setup) return;
  const known = (state.formations || []).find((f) => f.setup === state.setup);
  if (known) { state.startFen = known.fen; return; }
  try {
    const a = await api('explore', { setup: state.setup, limit: 1, top_games: 0 });
    state.startFen = a.fen;
    state.variant = 'janggi';
  } catch (e) {
    $('explore-note').textContent = `Formations ${state.setup}: ${e.message}`;
    state.setup = null;
    state.startFen = null;
  }
}

function fillSetupSelect() {
  const sel = $('setup');
  sel.replaceChildren(h('option', { value: '' }, 'standard start (마상상마/마상상마)'));
  const list = state.formations || [];
  for (const f of list) {
    sel.append(h('option', { value: f.setup }, `${f.setup} ${f.names} — ${f.games.toLocaleString()} games`));
  }
  if (state.setup && !list.some((f) => f.setup === state.setup)) sel.append(h('option', { value: state.setup }, state.setup));
  sel.value = state.setup || '';
}

async function chooseSetup(setup) {
  state.setup = setup || null;
  state.startFen = null;
  state.line = []; state.notes = []; state.cursor = 0; state.selected = null;
  await resolveSetup();
  fillSetupSelect();
  refresh();
}

function setVariant(v) {
  state.variant = v;
  $('variant').value = v;
  const sel = $('notation');
  sel.replaceChildren();
  for (const [value, label] of NOTATIONS[v]) sel.append(h('option', { value }, label));
  if (!NOTATIONS[v].some(([value]) => value === state.notation)) state.notation = NOTATIONS[v][0][0];
  sel.value = state.notation;
  $('setup-label').hidden = !(v === 'janggi' && state.database);
  if (v !== 'janggi') state.setup = null;
  fillSetupSelect();
  const side = $('f-side');
  side.options[1].textContent = SHORT_NAMES[v].first;
  side.options[2].textContent = SHORT_NAMES[v].second;
}

// ---------------------------------------------------------------- paste

async function loadText() {
  const text = $('load-text').value.trim();
  $('load-error').textContent = '';
  if (!text) return;
  const looksFen = /^[1-9a-zA-Z]+(\/[1-9a-zA-Z]+){9}(\s|$)/.test(text);
  try {
    if (looksFen) {
      const pos = await api('position', { variant: state.variant, fen: text });
      state.startFen = pos.start_fen;
      state.setup = null;
      state.line = [];
    } else {
      // Drop move numbers ("1.", "12...") and results, keep the moves.
      const moves = text
        .replace(/\{[^}]*\}/g, ' ')
        .split(/[\s,]+/)
        .map((t) => t.replace(/^\d+\.+/, ''))
        .filter((t) => t && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(t));
      const pos = await api('position', { variant: state.variant, fen: state.startFen, moves: moves.join(',') });
      state.line = pos.moves;
    }
    state.notes = [];
    state.cursor = state.line.length;
    state.selected = null;
    refresh();
  } catch (e) {
    $('load-error').textContent = e.message;
  }
}

// ---------------------------------------------------------------- game dialog

// ---------------------------------------------------------------- player dossier

function resultsText(r) {
  const score = r.score === null || r.score === undefined ? '—' : `${(100 * r.score).toFixed(1)}%`;
  const perf = r.performance ? ` · perf ${r.performance}` : '';
  return `${r.games} games · +${r.wins} =${r.draws} −${r.losses} · ${score}${perf}`;
}

function namedList(title, rows) {
  if (!rows || rows.length === 0) return null;
  return h('div', { class: 'dossier-list' }, h('h3', {}, title),
    h('ul', {}, ...rows.slice(0, 10).map((r) => h('li', {}, `${r.name}: ${resultsText(r)}`))));
}

// The first two plies of a side's repertoire from its most played start.
function repertoireList(title, trees) {
  const t = (trees || [])[0];
  if (!t) return null;
  const text = (m) => `${moveText(m.move, m.notation)} (${resultsText(m)})`;
  const items = t.moves.map((m) => h('li', { 'data-move': m.move }, text(m),
    m.moves.length ? h('ul', {}, ...m.moves.map((n) => h('li', { 'data-move': n.move }, text(n)))) : null));
  return h('div', { class: 'dossier-list' }, h('h3', {}, `${title} · ${resultsText(t)}`), h('ul', { class: 'repertoire' }, ...items));
}

async function openPlayer(name) {
  const dlg = $('player-dialog');
  const params = { ...filterParams(), name, depth: 2, min_games: 1 };
  delete params.player;
  delete params.side;
  const body = $('player-body');
  try {
    const d = await api('player', params);
    const side = SIDE_NAMES[state.variant] || SIDE_NAMES.xiangqi;
    $('player-title').textContent = `${d.player} · ${d.games} games`;
    const game = (g, label) => {
      if (!g) return null;
      const a = h('a', { href: '#', 'data-game': String(g.id) }, `${label}: ${g.date || 'undated'} vs ${g.opponent || '?'} ${g.result || ''}`);
      a.addEventListener('click', (e) => { e.preventDefault(); dlg.close(); openGame(g.id); });
      return h('div', {}, a);
    };
    body.replaceChildren(
      d.spellings.length > 1 ? h('p', { class: 'note' }, `spellings: ${d.spellings.map((s) => `${s.name} (${s.games})`).join(', ')}`) : null,
      h('p', { id: 'player-first' }, `as ${side.first}: ${resultsText(d.as_first)}`),
      h('p', { id: 'player-second' }, `as ${side.second}: ${resultsText(d.as_second)}`),
      game(d.first_game, 'first game'), game(d.last_game, 'last game'),
      h('div', { class: 'dossier-list' }, h('h3', {}, 'By year'), h('ul', { id: 'player-years' },
        ...d.by_year.map((y) => h('li', {}, `${y.year ?? 'undated'}: ${resultsText(y)}${y.rating ? ` · rating ${Math.round(y.rating)}` : ''}${y.rank ? ` · ${y.rank}` : ''}`)))),
      namedList('Opponents', d.opponents),
      namedList('Events', d.events),
      repertoireList(`Repertoire as ${side.first}`, d.repertoire.first),
      repertoireList(`Repertoire as ${side.second}`, d.repertoire.second),
    );
    if (typeof dlg.showModal === 'function') dlg.showModal(); else dlg.setAttribute('open', '');
  } catch (e) {
    $('explore-note').textContent = `${name}: ${e.message}`;
  }
}

async function openGame(id) {
  const dlg = $('game-dialog');
  try {
    const g = await api('games/' + encodeURIComponent(id));
    state.game = g;
    state.gameNotes = null;
    const tags = new Map(g.tags || []);
    const first = tags.get('Red') || tags.get('Cho') || '?';
    const second = tags.get('Black') || tags.get('Han') || '?';
    $('game-title').textContent = `${first} ${g.result} ${second}`;
    const dl = $('game-tags');
    dl.replaceChildren();
    for (const [k, v] of g.tags || []) dl.append(h('dt', {}, k), h('dd', {}, v));
    if (g.source && g.source.file) dl.append(h('dt', {}, 'Source'), h('dd', {}, `${g.source.file} #${g.source.index + 1}`));
    drawGameMoves();
    $('game-pgn').textContent = g.pgn || '';
    if (typeof dlg.showModal === 'function') dlg.showModal(); else dlg.setAttribute('open', '');
    // The moves in the page's notation (the stored games are replayed under the server rules).
    try {
      const pos = await api('position', {
        variant: g.variant, fen: g.start_fen, moves: g.moves.join(','),
        rules: g.variant === 'janggi' ? 'server' : null,
      });
      if (state.game === g) { state.gameNotes = pos.moves_notation; drawGameMoves(); }
    } catch (e) {
      // Too long or not replayable here: the coordinates stay.
    }
  } catch (e) {
    $('explore-note').textContent = `Game ${id}: ${e.message}`;
  }
}

function drawGameMoves() {
  const g = state.game;
  if (!g) return;
  const notes = state.gameNotes || [];
  $('game-moves').dataset.notation = state.gameNotes ? state.notation : 'coord';
  $('game-moves').textContent = (g.moves || [])
    .map((m, i) => (i % 2 === 0 ? `${i / 2 + 1}. ` : '') + moveText(m, notes[i])).join(' ');
}

function playGame() {
  const g = state.game;
  if (!g) return;
  const start = g.start_fen && g.start_fen !== g.standard_fen ? g.start_fen : null;
  const samePrefix = start === state.startFen && state.line.slice(0, state.cursor).every((m, i) => g.moves[i] === m);
  setVariant(g.variant || state.variant);
  state.startFen = start;
  state.setup = null;
  state.line = g.moves.slice();
  state.notes = [];
  state.cursor = samePrefix ? Math.min(state.cursor, state.line.length) : 0;
  state.selected = null;
  $('game-dialog').close();
  refresh();
}

// ---------------------------------------------------------------- start

async function main() {
  loadHash();
  setVariant(state.variant);
  $('variant').addEventListener('change', (e) => {
    state.setup = null;
    setVariant(e.target.value);
    state.startFen = null; state.line = []; state.notes = []; state.cursor = 0; state.selected = null;
    refresh();
  });
  $('setup').addEventListener('change', (e) => chooseSetup(e.target.value));
  $('notation').addEventListener('change', (e) => {
    state.notation = e.target.value;
    saveHash(false);
    drawLine(); drawExplore(); drawGameMoves();
    drawBooks(state.seq);
  });
  $('flip').addEventListener('click', () => { state.flipped = !state.flipped; drawBoard(); });
  $('board').addEventListener('click', onBoardClick);
  $('start').addEventListener('click', () => goTo(0));
  $('back').addEventListener('click', () => goTo(state.cursor - 1));
  $('forward').addEventListener('click', () => goTo(state.cursor + 1));
  $('end').addEventListener('click', () => goTo(state.line.length));
  $('pass').addEventListener('click', () => play('pass'));
  $('load-go').addEventListener('click', loadText);
  $('filter-form').addEventListener('submit', (e) => { e.preventDefault(); applyFilters(); });
  $('filter-form').addEventListener('change', applyFilters);
  $('f-clear').addEventListener('click', () => { writeFilters({}); applyFilters(); });
  window.addEventListener('popstate', async () => {
    loadHash();
    setVariant(state.variant);
    writeFilters(state.filters);
    await resolveSetup();
    fillSetupSelect();
    refresh({ push: false });
  });
  $('game-load').addEventListener('click', playGame);
  // The history is drawn at the chart's width in pixels: again when that changes.
  let chartWidth = 0;
  window.addEventListener('resize', () => {
    const w = Math.round($('history-chart').getBoundingClientRect().width);
    if (w !== chartWidth && state.history) { chartWidth = w; drawHistory(state.history); }
  });
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    if (e.key === 'ArrowLeft') goTo(state.cursor - 1);
    if (e.key === 'ArrowRight') goTo(state.cursor + 1);
  });
  try {
    const st = await api('status');
    state.database = st.database;
    state.books = st.books || [];
  } catch (e) {
    state.database = false;
  }
  setVariant(state.variant);
  writeFilters(state.filters);
  if (state.database) await resolveSetup();
  else state.setup = null;
  fillSetupSelect();
  await refresh({ push: false });
}

main();
