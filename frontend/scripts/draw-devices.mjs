#!/usr/bin/env node
// Draws the 26 predefined product images (spec section 3, "Predefined image
// entry") as small hand-built SVGs under public/assets/<brand>/<model>/<colour>.svg,
// and the photos of the rest of the demo catalogue (seed/shop.sql: other
// phones, tablets, speakers, headphones, glass, cases, cables, chargers,
// watches, keyboard and mouse, holders and the odd accessory) in the same
// folders and style, so no seed product shows the placeholder.
//
//   node scripts/draw-devices.mjs          (from frontend/, or from anywhere)
//
// No dependencies. Each picture is a product-photo style composition on a light
// background: the phone's back in its colour (camera module typical of the
// model) in front of the same phone seen from the screen side. The list here
// must stay in step with src/lib/productImages.ts; its test checks every file.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const publicDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'public');

// ---------------------------------------------------------------- colours

const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
const toHex = (rgb) => '#' + rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
const mix = (a, b, t) => toHex(hex(a).map((v, i) => v + (hex(b)[i] - v) * t));
const tint = (c, t) => mix(c, '#ffffff', t);
const shade = (c, t) => mix(c, '#000000', t);
const luma = (c) => {
  const [r, g, b] = hex(c);
  return (0.299 * r + 0.587 * g + 0.114 * b) / 255;
};
const n = (v) => String(Math.round(v * 10) / 10);

// ---------------------------------------------------------------- catalogue

// model: key into MODELS; body: back glass; frame: band around the edge;
// wall: the two colours of the wallpaper seen on the screen.
const DEVICES = [
  ['apple', 'iphone-13', 'medianoche', 'iPhone 13 Medianoche', '#2a3139', '#323a43', ['#1b2a44', '#5a6f96']],
  ['apple', 'iphone-13', 'blanco-estelar', 'iPhone 13 Blanco Estelar', '#f2eee6', '#e2dccf', ['#e9dcc6', '#b7a585']],
  ['apple', 'iphone-13', 'rosa', 'iPhone 13 Rosa', '#f9ddd9', '#f0c4c0', ['#f7c6c7', '#d56f86']],
  ['apple', 'iphone-14', 'morado', 'iPhone 14 Morado', '#e3d9ea', '#cbbcd8', ['#d9c6ee', '#7b5aa6']],
  ['apple', 'iphone-14', 'azul', 'iPhone 14 Azul', '#a6b9cc', '#8fa5bb', ['#b9d3ee', '#3e6b9e']],
  ['apple', 'iphone-15', 'negro', 'iPhone 15 Negro', '#3a3e41', '#404447', ['#2f3a4a', '#7d8ea3']],
  ['apple', 'iphone-15', 'rosa', 'iPhone 15 Rosa', '#f1d8da', '#e6c1c4', ['#f6cdd3', '#cf7b8e']],
  ['apple', 'iphone-15', 'amarillo', 'iPhone 15 Amarillo', '#f3e8bd', '#e9dba0', ['#fbefb8', '#d9a93c']],
  ['apple', 'iphone-15-pro', 'titanio-natural', 'iPhone 15 Pro Titanio Natural', '#bdb6aa', '#a39c90', ['#d8cdb9', '#6f6453']],
  ['apple', 'iphone-15-pro', 'titanio-azul', 'iPhone 15 Pro Titanio Azul', '#414b5a', '#4d5869', ['#5a6f8f', '#18202d']],
  ['apple', 'iphone-15-pro', 'titanio-negro', 'iPhone 15 Pro Titanio Negro', '#3c3c3e', '#4a4a4d', ['#4a4a52', '#121214']],
  ['apple', 'iphone-16', 'negro', 'iPhone 16 Negro', '#3b3b3d', '#2d2d2f', ['#3a3f4a', '#0e1014']],
  ['apple', 'iphone-16', 'blanco', 'iPhone 16 Blanco', '#f4f4ef', '#e4e4de', ['#eef0f4', '#a9b1c0']],
  ['apple', 'iphone-16', 'ultramarino', 'iPhone 16 Ultramarino', '#9eaff5', '#7187e6', ['#b4c2ff', '#3146c9']],
  ['apple', 'iphone-16', 'verde-azulado', 'iPhone 16 Verde Azulado', '#b2d6d3', '#8cbfba', ['#bfe6e2', '#2f837c']],
  ['samsung', 'galaxy-a05', 'negro', 'Samsung Galaxy A05 Negro', '#2c2d30', '#36383b', ['#27344a', '#6b86ad']],
  ['samsung', 'galaxy-a05', 'plateado', 'Samsung Galaxy A05 Plateado', '#d7dade', '#c4c8cd', ['#dfe5ee', '#7f8ea6']],
  ['samsung', 'galaxy-a05s', 'negro', 'Samsung Galaxy A05s Negro', '#2a2b2e', '#333539', ['#1f3b4d', '#5f9bb8']],
  ['samsung', 'galaxy-a05s', 'verde-claro', 'Samsung Galaxy A05s Verde Claro', '#d2e5d2', '#bdd6be', ['#d6f0d3', '#4f9a62']],
  ['samsung', 'galaxy-a06', 'negro', 'Samsung Galaxy A06 Negro', '#26282b', '#303236', ['#2b2f4a', '#7479b4']],
  ['samsung', 'galaxy-a06', 'azul-claro', 'Samsung Galaxy A06 Azul Claro', '#cadcee', '#b4c9df', ['#d2e5fa', '#4f84c4']],
  ['samsung', 'galaxy-a16', 'negro', 'Samsung Galaxy A16 Negro', '#23282e', '#2c3239', ['#1d2f45', '#4d7bb0']],
  ['samsung', 'galaxy-a26', 'menta', 'Samsung Galaxy A26 Menta', '#cfe9de', '#b7dbcc', ['#d4f4e6', '#3f9d7c']],
  ['samsung', 'galaxy-a35', 'azul-hielo', 'Samsung Galaxy A35 Azul Hielo', '#cfe1f2', '#b8cee6', ['#dbeafb', '#4a7fc0']],
  ['samsung', 'galaxy-a35', 'lila', 'Samsung Galaxy A35 Lila', '#dad0f0', '#c5b8e6', ['#e6dcfb', '#7a5fc4']],
];

// Proportions and details per model. ratio = height / width of the body.
// cam: layout of the back camera; face: what interrupts the top of the screen.
const MODELS = {
  'iphone-13': { ratio: 2.06, r: 0.17, cam: 'diag', bump: 0.42, face: 'notch', notch: 0.4, chin: 0.045 },
  'iphone-14': { ratio: 2.06, r: 0.17, cam: 'diag', bump: 0.45, face: 'notch', notch: 0.34, chin: 0.045 },
  'iphone-15': { ratio: 2.06, r: 0.18, cam: 'diag', bump: 0.45, face: 'island', frosted: true, chin: 0.04 },
  'iphone-15-pro': { ratio: 2.05, r: 0.18, cam: 'pro', bump: 0.52, face: 'island', frosted: true, chin: 0.035 },
  'iphone-16': { ratio: 2.06, r: 0.18, cam: 'pill', bump: 0.45, face: 'island', frosted: true, chin: 0.04 },
  'galaxy-a05': { ratio: 2.16, r: 0.11, cam: 'rings', lenses: 2, face: 'drop', chin: 0.09 },
  'galaxy-a05s': { ratio: 2.16, r: 0.11, cam: 'rings', lenses: 3, face: 'hole', chin: 0.08 },
  'galaxy-a06': { ratio: 2.16, r: 0.11, cam: 'island', lenses: 2, face: 'drop', chin: 0.09 },
  'galaxy-a16': { ratio: 2.1, r: 0.11, cam: 'island', lenses: 3, face: 'drop', chin: 0.07 },
  'galaxy-a26': { ratio: 2.08, r: 0.11, cam: 'island', lenses: 3, face: 'drop', chin: 0.065 },
  'galaxy-a35': { ratio: 2.08, r: 0.11, cam: 'rings', lenses: 3, face: 'hole', chin: 0.06 },
};

// ---------------------------------------------------------------- pieces

const rect = (x, y, w, h, r, fill, extra = '') =>
  `<rect x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" rx="${n(r)}" fill="${fill}"${extra}/>`;
const circle = (cx, cy, r, fill, extra = '') => `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}" fill="${fill}"${extra}/>`;

function lens(cx, cy, R, ring) {
  return (
    circle(cx, cy, R, ring, ` stroke="${shade(ring, 0.35)}" stroke-width="1"`) +
    circle(cx, cy, R * 0.8, '#0a0c10') +
    circle(cx, cy, R * 0.6, 'url(#ln)') +
    circle(cx, cy, R * 0.22, '#25375a') +
    `<ellipse cx="${n(cx - R * 0.25)}" cy="${n(cy - R * 0.28)}" rx="${n(R * 0.16)}" ry="${n(R * 0.1)}" fill="#fff" opacity=".55" transform="rotate(-35 ${n(cx - R * 0.25)} ${n(cy - R * 0.28)})"/>`
  );
}

const flash = (cx, cy, r, ring) =>
  circle(cx, cy, r, 'url(#fl)', ` stroke="${shade(ring, 0.3)}" stroke-width="1"`);

// Back camera, drawn relative to the body's top-left corner (x, y) of width w.
function camera(m, x, y, w, body, frame) {
  const ring = m.frosted ? tint(frame, 0.15) : shade(frame, 0.05);
  const glassEdge = shade(body, 0.18);
  let out = '';
  if (m.cam === 'diag' || m.cam === 'pro') {
    const s = w * m.bump;
    const p = w * 0.07;
    const bx = x + p;
    const by = y + p;
    const bumpFill = m.cam === 'pro' ? shade(body, 0.1) : tint(body, 0.12);
    out += rect(bx + 2, by + 3, s, s, s * 0.28, '#000', ' opacity=".18"');
    out += rect(bx, by, s, s, s * 0.28, bumpFill, ` stroke="${glassEdge}" stroke-width="1.5"`);
    out += rect(bx + 3, by + 3, s - 6, s * 0.45, s * 0.25, '#fff', ' opacity=".12"');
    if (m.cam === 'diag') {
      const R = s * 0.2;
      out += lens(bx + s * 0.3, by + s * 0.3, R, ring) + lens(bx + s * 0.7, by + s * 0.7, R, ring);
      out += flash(bx + s * 0.74, by + s * 0.26, s * 0.07, body);
      out += circle(bx + s * 0.26, by + s * 0.76, s * 0.025, shade(body, 0.4));
    } else {
      const R = s * 0.2;
      out += lens(bx + s * 0.28, by + s * 0.27, R, ring);
      out += lens(bx + s * 0.28, by + s * 0.73, R, ring);
      out += lens(bx + s * 0.73, by + s * 0.5, R, ring);
      out += flash(bx + s * 0.76, by + s * 0.18, s * 0.065, body);
      out += circle(bx + s * 0.76, by + s * 0.82, s * 0.06, '#15161a');
    }
  } else if (m.cam === 'pill') {
    const pw = w * 0.22;
    const ph = w * 0.47;
    const bx = x + w * 0.08;
    const by = y + w * 0.07;
    out += rect(bx + 2, by + 3, pw, ph, pw / 2, '#000', ' opacity=".18"');
    out += rect(bx, by, pw, ph, pw / 2, tint(body, 0.12), ` stroke="${glassEdge}" stroke-width="1.5"`);
    const R = pw * 0.42;
    out += lens(bx + pw / 2, by + pw / 2, R, ring) + lens(bx + pw / 2, by + ph - pw / 2, R, ring);
    out += flash(bx + pw + w * 0.08, by + pw * 0.45, w * 0.035, body);
    out += circle(bx + pw + w * 0.08, by + ph * 0.55, w * 0.012, shade(body, 0.4));
  } else {
    // Samsung A series: lenses stacked down the top-left corner.
    const R = w * 0.085;
    const gap = R * 2.45;
    const cx = x + w * 0.15;
    const cy = y + w * 0.16;
    const k = m.lenses;
    const samRing = luma(body) > 0.5 ? shade(body, 0.08) : tint(body, 0.12);
    if (m.cam === 'island') {
      const pw = R * 2.7;
      const ph = gap * (k - 1) + pw;
      out += rect(cx - pw / 2 + 2, cy - pw / 2 + 3, pw, ph, pw / 2, '#000', ' opacity=".16"');
      out += rect(cx - pw / 2, cy - pw / 2, pw, ph, pw / 2, tint(body, 0.1), ` stroke="${glassEdge}" stroke-width="1.5"`);
    }
    for (let i = 0; i < k; i++) {
      if (m.cam === 'rings') out += circle(cx + 1.5, cy + i * gap + 2.5, R, '#000', ' opacity=".18"');
      out += lens(cx, cy + i * gap, R, samRing);
    }
    out += flash(cx + R * 2.1, cy + (m.cam === 'island' ? 0 : gap * 0.5), R * 0.38, body);
  }
  return out;
}

// Shape in the top of the screen (front view), centred at cx, top of screen sy.
function faceCutout(m, cx, sy, sw) {
  if (m.face === 'island') return rect(cx - sw * 0.17, sy + sw * 0.035, sw * 0.34, sw * 0.1, sw * 0.05, '#050506');
  if (m.face === 'notch') {
    const hw = (sw * m.notch) / 2;
    const h = sw * 0.085;
    return `<path d="M${n(cx - hw - 8)} ${n(sy)}q8 0 8 8v${n(h - 18)}q0 10 10 10h${n(hw * 2 - 20)}q10 0 10-10v${n(-(h - 18))}q0-8 8-8z" fill="#050506"/>` + circle(cx + hw * 0.45, sy + h * 0.45, 3, '#1a2333');
  }
  if (m.face === 'drop') {
    return `<path d="M${n(cx - 22)} ${n(sy)}c9 0 9 17 22 17s13-17 22-17z" fill="#050506"/>` + circle(cx, sy + 8, 4, '#1a2333');
  }
  return circle(cx, sy + sw * 0.06, sw * 0.035, '#050506');
}

// One phone seen from the back (x, y = top-left of the body).
function phoneBack(m, x, y, w, body, frame) {
  const h = w * m.ratio;
  const r = w * m.r;
  const e = 4; // visible band of the frame
  const apple = m.cam === 'diag' || m.cam === 'pro' || m.cam === 'pill';
  const bx = apple ? x - 3 : x + w; // power / volume keys sit on opposite sides when flipped
  return (
    rect(x + 10, y + 18, w, h, r, '#000', ' opacity=".28" filter="url(#sh)"') +
    rect(apple ? x + w - 1 : x - 2, y + h * (apple ? 0.2 : 0.2), 3, h * 0.07, 1.5, shade(frame, 0.2)) +
    rect(apple ? x + w - 1 : x - 2, y + h * 0.29, 3, h * 0.07, 1.5, shade(frame, 0.2)) +
    rect(bx, y + h * (apple ? 0.25 : 0.38), 3, h * 0.1, 1.5, shade(frame, 0.2)) +
    rect(x, y, w, h, r, 'url(#fr)') +
    rect(x + e, y + e, w - 2 * e, h - 2 * e, r - e, 'url(#bd)') +
    rect(x + e, y + e, w - 2 * e, h - 2 * e, r - e, 'url(#gl)') +
    camera(m, x, y, w, body, frame)
  );
}

// The same phone seen from the screen side.
function phoneFront(m, x, y, w, frame) {
  const h = w * m.ratio;
  const r = w * m.r;
  const e = 3.5;
  const bz = w * 0.045; // bezel
  const sx = x + e + bz;
  const sy = y + e + bz;
  const sw = w - 2 * (e + bz);
  const sh = h - 2 * (e + bz) - w * (m.chin - 0.04);
  const sr = Math.max(r - e - bz, 6);
  return (
    rect(x + 10, y + 18, w, h, r, '#000', ' opacity=".22" filter="url(#sh)"') +
    rect(x, y, w, h, r, 'url(#fr)') +
    rect(x + e, y + e, w - 2 * e, h - 2 * e, r - e, '#08090b') +
    `<clipPath id="sc">${rect(sx, sy, sw, sh, sr, '#000')}</clipPath>` +
    `<g clip-path="url(#sc)">` +
    rect(sx, sy, sw, sh, 0, 'url(#wl)') +
    circle(sx + sw * 0.95, sy + sh * 0.32, sw * 0.62, '#fff', ' opacity=".14"') +
    circle(sx + sw * 0.05, sy + sh * 0.78, sw * 0.7, '#000', ' opacity=".12"') +
    `<path d="M${n(sx)} ${n(sy + sh * 0.55)}c${n(sw * 0.35)} ${n(-sh * 0.12)} ${n(sw * 0.65)} ${n(sh * 0.12)} ${n(sw)} 0v${n(sh)}h${n(-sw)}z" fill="#fff" opacity=".1"/>` +
    rect(sx + sw * 0.35, sy + sh - 12, sw * 0.3, 4, 2, '#fff', ' opacity=".7"') +
    `<path d="M${n(x)} ${n(y)}h${n(w * 0.62)}L${n(x)} ${n(y + h * 0.55)}z" fill="#fff" opacity=".08"/>` +
    '</g>' +
    faceCutout(m, sx + sw / 2, sy, sw)
  );
}

function phoneSvg(d) {
  const [, model, , label, body, frame, wall] = d;
  const m = MODELS[model];
  const w = model.startsWith('galaxy') ? 196 : 202;
  const hb = w * m.ratio;
  const yb = (600 - hb) / 2 + 16;
  const back = phoneBack(m, 112, yb, w, body, frame);
  const front = phoneFront(m, 290, yb - 36, w, frame);
  const gloss = m.frosted ? ['.22', '.04'] : ['.4', '.08'];
  const defs =
    '<radialGradient id="bg" cx=".5" cy=".42" r=".75"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#e6e8ec"/></radialGradient>' +
    '<filter id="sh" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="11"/></filter>' +
    `<linearGradient id="fr" x1="0" x2="1"><stop offset="0" stop-color="${tint(frame, 0.45)}"/><stop offset=".06" stop-color="${frame}"/><stop offset=".5" stop-color="${tint(frame, 0.12)}"/><stop offset=".94" stop-color="${shade(frame, 0.12)}"/><stop offset="1" stop-color="${shade(frame, 0.35)}"/></linearGradient>` +
    `<linearGradient id="bd" x1="0" y1="0" x2=".7" y2="1"><stop offset="0" stop-color="${tint(body, 0.22)}"/><stop offset=".55" stop-color="${body}"/><stop offset="1" stop-color="${shade(body, 0.14)}"/></linearGradient>` +
    `<linearGradient id="gl" x1="0" y1="0" x2="1" y2=".55"><stop offset="0" stop-color="#fff" stop-opacity="${gloss[0]}"/><stop offset=".42" stop-color="#fff" stop-opacity="0"/><stop offset=".8" stop-color="#fff" stop-opacity="0"/><stop offset="1" stop-color="#fff" stop-opacity="${gloss[1]}"/></linearGradient>` +
    `<linearGradient id="wl" x1="0" y1="0" x2=".4" y2="1"><stop offset="0" stop-color="${wall[0]}"/><stop offset="1" stop-color="${wall[1]}"/></linearGradient>` +
    '<radialGradient id="ln" cx=".38" cy=".36" r=".7"><stop offset="0" stop-color="#4b5d7e"/><stop offset=".5" stop-color="#141a26"/><stop offset="1" stop-color="#030406"/></radialGradient>' +
    '<radialGradient id="fl" cx=".45" cy=".4" r=".6"><stop offset="0" stop-color="#fffbe9"/><stop offset="1" stop-color="#d9cca4"/></radialGradient>';
  return svg(label, defs, front + back);
}

// ---------------------------------------------------------------- watch

function watchSvg(label) {
  const ti = '#c9c3b8';
  const band = '#e8772e';
  const defs =
    '<radialGradient id="bg" cx=".5" cy=".42" r=".75"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#e6e8ec"/></radialGradient>' +
    '<filter id="sh" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="11"/></filter>' +
    `<linearGradient id="fr" x1="0" x2="1"><stop offset="0" stop-color="${tint(ti, 0.5)}"/><stop offset=".1" stop-color="${ti}"/><stop offset=".55" stop-color="${tint(ti, 0.2)}"/><stop offset=".9" stop-color="${shade(ti, 0.12)}"/><stop offset="1" stop-color="${shade(ti, 0.35)}"/></linearGradient>` +
    `<linearGradient id="bn" x1="0" x2="1"><stop offset="0" stop-color="${shade(band, 0.12)}"/><stop offset=".5" stop-color="${tint(band, 0.08)}"/><stop offset="1" stop-color="${shade(band, 0.2)}"/></linearGradient>` +
    '<radialGradient id="dl" cx=".5" cy=".45" r=".6"><stop offset="0" stop-color="#1b1d22"/><stop offset="1" stop-color="#030304"/></radialGradient>';
  const cx = 300;
  // Alpine-loop style band: ribbed strap above and below the case.
  let strap = '';
  for (const [y0, y1] of [[-20, 190], [410, 620]]) {
    strap += rect(cx - 92, y0, 184, y1 - y0, 14, 'url(#bn)');
    for (let y = y0 + 12; y < y1 - 6; y += 14) strap += rect(cx - 86, y, 172, 5, 2.5, shade(band, 0.18), ' opacity=".55"');
  }
  const caseX = cx - 128;
  const caseY = 150;
  const cw = 256;
  const ch = 300;
  let ticks = '';
  for (let i = 0; i < 12; i++) {
    const a = (i * Math.PI) / 6;
    const r0 = i % 3 === 0 ? 74 : 80;
    ticks += `<line x1="${n(cx + Math.sin(a) * r0)}" y1="${n(300 - Math.cos(a) * r0)}" x2="${n(cx + Math.sin(a) * 88)}" y2="${n(300 - Math.cos(a) * 88)}" stroke="${i % 3 === 0 ? '#f28a3c' : '#d9d9de'}" stroke-width="${i % 3 === 0 ? 5 : 3}" stroke-linecap="round"/>`;
  }
  const body =
    rect(cx - 118, 168, 236, 290, 60, '#000', ' opacity=".28" filter="url(#sh)"') +
    strap +
    // crown guard and crown on the right, action button on the left
    rect(caseX + cw - 6, 246, 28, 78, 12, 'url(#fr)') +
    rect(caseX + cw + 8, 262, 26, 46, 8, shade(ti, 0.15)) +
    `<path d="M${caseX + cw + 14} 266v38M${caseX + cw + 20} 266v38M${caseX + cw + 26} 266v38" stroke="${shade(ti, 0.4)}" stroke-width="2"/>` +
    rect(caseX + cw - 4, 340, 14, 46, 6, shade(ti, 0.1)) +
    rect(caseX - 12, 250, 18, 60, 7, '#f07b2a') +
    rect(caseX, caseY, cw, ch, 62, 'url(#fr)') +
    rect(caseX + 10, caseY + 10, cw - 20, ch - 20, 52, shade(ti, 0.3)) +
    rect(caseX + 16, caseY + 16, cw - 32, ch - 32, 46, '#050506') +
    rect(caseX + 30, caseY + 30, cw - 60, ch - 60, 34, 'url(#dl)') +
    circle(cx, 300, 92, 'none', ' stroke="#2a2c33" stroke-width="2"') +
    ticks +
    `<path d="M${cx} 300L${cx + 38} 262" stroke="#f2f2f4" stroke-width="7" stroke-linecap="round"/>` +
    `<path d="M${cx} 300L${cx - 8} 232" stroke="#f2f2f4" stroke-width="5" stroke-linecap="round"/>` +
    `<path d="M${cx} 300L${cx + 58} 330" stroke="#f28a3c" stroke-width="2.5" stroke-linecap="round"/>` +
    circle(cx, 300, 6, '#f28a3c') +
    `<path d="M${caseX + 20} ${caseY + 20}h140L${caseX + 20} ${caseY + 200}z" fill="#fff" opacity=".07"/>`;
  return svg(label, defs, body, false);
}

// ---------------------------------------------------------------- output

const esc = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function svg(label, defs, body, floor = true) {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600" viewBox="0 0 600 600" role="img" aria-label="${esc(label)}">` +
    `<title>${esc(label)}</title><defs>${defs}</defs>` +
    '<rect width="600" height="600" fill="url(#bg)"/>' +
    (floor ? '<ellipse cx="300" cy="556" rx="220" ry="16" fill="#000" opacity=".1" filter="url(#sh)"/>' : '') +
    body +
    '</svg>\n'
  );
}

function write(rel, text) {
  const file = join(publicDir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return Buffer.byteLength(text);
}

// ---------------------------------------------------------------- catalogue photos

// Phones of the seed outside the predefined list, drawn like the others.
Object.assign(MODELS, {
  'iphone-12': { ratio: 2.06, r: 0.16, cam: 'diag', bump: 0.4, face: 'notch', notch: 0.42, chin: 0.045 },
  'iphone-11': { ratio: 2.02, r: 0.17, cam: 'diag', bump: 0.42, face: 'notch', notch: 0.44, chin: 0.05 },
  'galaxy-s23-fe': { ratio: 2.08, r: 0.12, cam: 'rings', lenses: 3, face: 'hole', chin: 0.05 },
  'redmi-note-13': { ratio: 2.12, r: 0.12, cam: 'island', lenses: 3, face: 'hole', chin: 0.055 },
  'redmi-13c': { ratio: 2.16, r: 0.11, cam: 'island', lenses: 2, face: 'drop', chin: 0.08 },
  'poco-x6-pro': { ratio: 2.1, r: 0.12, cam: 'island', lenses: 3, face: 'hole', chin: 0.05 },
  'moto-g24': { ratio: 2.14, r: 0.12, cam: 'island', lenses: 2, face: 'hole', chin: 0.07 },
  'moto-edge-50-fusion': { ratio: 2.14, r: 0.13, cam: 'island', lenses: 2, face: 'hole', chin: 0.04 },
});

const SEED_PHONES = [
  ['apple', 'iphone-12', 'blanco', 'iPhone 12 Blanco', '#f3f3f0', '#e2e2de', ['#e7ecf3', '#8e9cb3']],
  ['apple', 'iphone-11', 'negro', 'iPhone 11 Negro', '#2b2d30', '#34363a', ['#243247', '#6f86a8']],
  ['samsung', 'galaxy-s23-fe', 'crema', 'Samsung Galaxy S23 FE Crema', '#efe6d2', '#e0d5bd', ['#f2e6cc', '#b08f58']],
  ['xiaomi', 'redmi-note-13', 'verde', 'Redmi Note 13 Verde', '#b9d8c4', '#a0c6ae', ['#cdebd6', '#3f8a5d']],
  ['xiaomi', 'redmi-13c', 'azul', 'Redmi 13C Azul', '#5f7fb3', '#4f6ea0', ['#a9c2ea', '#2c4f8a']],
  ['xiaomi', 'poco-x6-pro', 'amarillo', 'Poco X6 Pro Amarillo', '#f2cf3b', '#2b2b2e', ['#ffe27a', '#c48f12']],
  ['motorola', 'moto-g24', 'grafito', 'Moto G24 Grafito', '#4a4d52', '#55585e', ['#3b4656', '#8da0bb']],
  ['motorola', 'moto-edge-50-fusion', 'azul-marino', 'Moto Edge 50 Fusion Azul Marino', '#27385e', '#31446e', ['#3d5b96', '#0f1a33']],
];

const bgDefs =
  '<radialGradient id="bg" cx=".5" cy=".42" r=".75"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#e6e8ec"/></radialGradient>' +
  '<filter id="sh" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="11"/></filter>';

// A vertical gradient `id` from a lighter to a darker `c`: the one shading of
// every accessory.
const body = (id, c, x2 = 1) =>
  `<linearGradient id="${id}" x1="0" y1="0" x2="${x2}" y2="1"><stop offset="0" stop-color="${tint(c, 0.25)}"/><stop offset=".55" stop-color="${c}"/><stop offset="1" stop-color="${shade(c, 0.22)}"/></linearGradient>`;
const shadow = (x, y, w, h, r) => rect(x + 10, y + 18, w, h, r, '#000', ' opacity=".25" filter="url(#sh)"');
const path = (d, fill, extra = '') => `<path d="${d}" fill="${fill}"${extra}/>`;
const line = (x1, y1, x2, y2, stroke, width, extra = '') =>
  `<path d="M${n(x1)} ${n(y1)}L${n(x2)} ${n(y2)}" stroke="${stroke}" stroke-width="${width}" stroke-linecap="round"${extra}/>`;

function tabletSvg(label, c, wall) {
  const defs = bgDefs + body('bd', c) + `<linearGradient id="wl" x1="0" y1="0" x2=".5" y2="1"><stop offset="0" stop-color="${wall[0]}"/><stop offset="1" stop-color="${wall[1]}"/></linearGradient>`;
  const back = shadow(70, 120, 300, 400, 26) + rect(70, 120, 300, 400, 26, 'url(#bd)') + rect(92, 142, 46, 46, 14, shade(c, 0.15)) + circle(115, 165, 13, '#0a0c10') + circle(115, 165, 7, '#25375a');
  const front =
    shadow(230, 90, 300, 420, 26) + rect(230, 90, 300, 420, 26, shade(c, 0.1)) + rect(236, 96, 288, 408, 22, '#08090b') +
    rect(252, 112, 256, 376, 10, 'url(#wl)') + circle(470, 170, 130, '#fff', ' opacity=".12"') + circle(380, 102, 3, '#1a2333');
  return svg(label, defs, back + front);
}

function speakerSvg(label, c, kind) {
  const defs = bgDefs + body('bd', c, 0) + '<pattern id="gr" width="9" height="9" patternUnits="userSpaceOnUse"><circle cx="4.5" cy="4.5" r="1.6" fill="#000" opacity=".22"/></pattern>';
  if (kind === 'go') {
    return svg(label, defs,
      shadow(150, 170, 300, 300, 70) + path('M420 190c60 0 80 30 80 70', 'none', ` stroke="${shade(c, 0.3)}" stroke-width="14"`) +
      rect(150, 170, 300, 300, 70, 'url(#bd)') + rect(175, 195, 250, 250, 55, 'url(#gr)') +
      rect(255, 300, 90, 40, 12, shade(c, 0.3)) + rect(270, 312, 60, 16, 8, '#fff', ' opacity=".85"'));
  }
  const w = kind === 'charge' ? 420 : 380;
  const h = kind === 'charge' ? 200 : 170;
  const x = 300 - w / 2;
  const y = 300 - h / 2;
  return svg(label, defs,
    shadow(x, y, w, h, h / 2) + rect(x, y, w, h, h / 2, 'url(#bd)') + rect(x + 50, y + 18, w - 100, h - 36, 16, 'url(#gr)') +
    circle(x + h / 2 - 10, 300, h * 0.36, shade(c, 0.35)) + circle(x + h / 2 - 10, 300, h * 0.22, shade(c, 0.5)) +
    circle(x + w - h / 2 + 10, 300, h * 0.36, shade(c, 0.35)) + circle(x + w - h / 2 + 10, 300, h * 0.22, shade(c, 0.5)) +
    rect(260, y + h * 0.42, 80, h * 0.16, 8, '#fff', ' opacity=".85"') +
    (kind === 'charge' ? rect(x + 70, y + h - 8, w - 140, 40, 14, shade(c, 0.25)) : ''));
}

function headphonesSvg(label, c) {
  const defs = bgDefs + body('bd', c);
  return svg(label, defs,
    `<path d="M170 330C170 150 430 150 430 330" fill="none" stroke="${shade(c, 0.2)}" stroke-width="30" stroke-linecap="round"/>` +
    `<path d="M170 330C170 150 430 150 430 330" fill="none" stroke="${tint(c, 0.3)}" stroke-width="8" stroke-linecap="round" opacity=".6"/>` +
    shadow(120, 290, 110, 170, 50) + rect(120, 290, 110, 170, 50, 'url(#bd)') + rect(190, 305, 40, 140, 18, shade(c, 0.3)) +
    shadow(370, 290, 110, 170, 50) + rect(370, 290, 110, 170, 50, 'url(#bd)') + rect(370, 305, 40, 140, 18, shade(c, 0.3)));
}

function earbudsSvg(label, c) {
  const defs = bgDefs + body('bd', c);
  const bud = (x, flip) =>
    circle(x, 250, 40, 'url(#bd)', ` stroke="${shade(c, 0.2)}" stroke-width="2"`) + circle(x + (flip ? -18 : 18), 236, 15, shade(c, 0.45)) +
    rect(x - 13 + (flip ? 6 : -6), 270, 26, 100, 13, 'url(#bd)', ` stroke="${shade(c, 0.2)}" stroke-width="2"`);
  return svg(label, defs,
    shadow(170, 330, 260, 190, 70) + rect(170, 330, 260, 190, 70, 'url(#bd)', ` stroke="${shade(c, 0.2)}" stroke-width="2"`) +
    line(180, 410, 420, 410, shade(c, 0.25), 3) + circle(300, 460, 6, '#4ad07a') + bud(235, false) + bud(365, true));
}

function glassSvg(label) {
  const defs = bgDefs + '<linearGradient id="gs" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff" stop-opacity=".9"/><stop offset=".5" stop-color="#dbe9f5" stop-opacity=".55"/><stop offset="1" stop-color="#fff" stop-opacity=".8"/></linearGradient>';
  return svg(label, defs,
    shadow(140, 110, 210, 420, 34) + rect(140, 110, 210, 420, 34, '#1d2330') + rect(150, 120, 190, 400, 26, '#3a4a66') +
    `<g transform="rotate(12 380 300)">${shadow(270, 90, 210, 430, 34)}${rect(270, 90, 210, 430, 34, 'url(#gs)', ' stroke="#9fb6cc" stroke-width="2"')}` +
    rect(345, 102, 60, 10, 5, '#9fb6cc', ' opacity=".8"') + line(300, 160, 400, 120, '#fff', 10, ' opacity=".7"') + line(300, 200, 440, 140, '#fff', 5, ' opacity=".5"') + '</g>');
}

function caseSvg(label, c, kind) {
  const clear = kind === 'transparente';
  const fill = clear ? '#e9f1f7' : c;
  const defs = bgDefs + body('bd', fill);
  const outer = rect(180, 80, 240, 470, 46, 'url(#bd)', clear ? ' opacity=".75" stroke="#9fb6cc" stroke-width="3"' : '');
  const inner = clear ? rect(196, 96, 208, 438, 36, '#cfdde9', ' opacity=".5"') : '';
  const cut = rect(200, 100, 110, 110, 30, clear ? '#b7c8d8' : shade(c, 0.35));
  const ring = kind === 'magsafe' ? circle(300, 320, 70, 'none', ` stroke="${tint(c, 0.35)}" stroke-width="6"`) : '';
  const wallet = kind === 'billetera' ? rect(150, 120, 60, 400, 20, shade(c, 0.15)) + rect(160, 300, 40, 70, 6, tint(c, 0.2)) : '';
  const corners = kind === 'antigolpes' ? [[180, 80], [376, 80], [180, 506], [376, 506]].map(([x, y]) => rect(x - 4, y - 4, 52, 52, 22, '#c9d6e2', ' opacity=".9"')).join('') : '';
  return svg(label, defs, shadow(180, 80, 240, 470, 46) + wallet + outer + inner + corners + cut + ring);
}

function cableSvg(label, c, ends) {
  const defs = bgDefs + body('bd', c);
  const plug = (x, y, kind, angle) => {
    const tip = kind === 'lightning' ? rect(-9, -70, 18, 34, 4, '#d8d8dc') : kind === 'micro' ? rect(-14, -62, 28, 24, 4, '#bfc3c9') : rect(-15, -66, 30, 30, 10, '#bfc3c9');
    return `<g transform="translate(${x} ${y}) rotate(${angle})">${rect(-24, -40, 48, 90, 14, 'url(#bd)', ` stroke="${shade(c, 0.2)}" stroke-width="2"`)}${tip}</g>`;
  };
  const coil = `<path d="M170 430C60 330 200 180 300 250S520 380 440 200" fill="none" stroke="${shade(c, 0.12)}" stroke-width="16" stroke-linecap="round"/>` +
    `<path d="M170 430C60 330 200 180 300 250S520 380 440 200" fill="none" stroke="${tint(c, 0.4)}" stroke-width="4" opacity=".6"/>`;
  return svg(label, defs, coil + plug(190, 470, ends[0], 200) + plug(440, 160, ends[1], 10));
}

function chargerSvg(label, c, kind) {
  const defs = bgDefs + body('bd', c);
  if (kind === 'carro') {
    return svg(label, defs,
      shadow(220, 140, 160, 320, 60) + rect(250, 330, 100, 170, 30, shade(c, 0.1)) + rect(220, 140, 160, 220, 50, 'url(#bd)') +
      rect(245, 190, 44, 18, 5, '#111', ` stroke="${tint(c, 0.4)}" stroke-width="2"`) + rect(312, 186, 40, 26, 12, '#111', ` stroke="${tint(c, 0.4)}" stroke-width="2"`) +
      circle(300, 270, 8, '#4aa8ff'));
  }
  const prongs = rect(250, 110, 18, 80, 6, '#c8ccd2') + rect(332, 110, 18, 80, 6, '#c8ccd2');
  return svg(label, defs,
    prongs + shadow(190, 180, 220, 240, 40) + rect(190, 180, 220, 240, 40, 'url(#bd)', ` stroke="${shade(c, 0.15)}" stroke-width="2"`) +
    rect(270, 380, 60, 22, 11, '#15161a') + `<path d="M300 420C300 500 420 470 470 540" fill="none" stroke="${shade(c, 0.1)}" stroke-width="14" stroke-linecap="round"/>` +
    (kind === 'samsung' ? rect(260, 260, 80, 8, 4, tint(c, 0.35)) : ''));
}

function smartwatchSvg(label, c, round) {
  const defs = bgDefs + body('bd', c) + '<radialGradient id="dl" cx=".5" cy=".45" r=".6"><stop offset="0" stop-color="#1b1d22"/><stop offset="1" stop-color="#030304"/></radialGradient>';
  const strap = rect(235, -10, 130, 200, 30, shade(c, 0.2)) + rect(235, 410, 130, 210, 30, shade(c, 0.2));
  const face = round
    ? shadow(170, 170, 260, 260, 130) + circle(300, 300, 130, 'url(#bd)') + circle(300, 300, 112, 'url(#dl)') +
      line(300, 300, 340, 250, '#f2f2f4', 6) + line(300, 300, 260, 270, '#f2f2f4', 4) + circle(300, 300, 6, '#e6b450') + circle(300, 300, 100, 'none', ' stroke="#e6b450" stroke-width="3" stroke-dasharray="6 14"')
    : shadow(180, 160, 240, 280, 56) + rect(180, 160, 240, 280, 56, 'url(#bd)') + rect(196, 176, 208, 248, 44, 'url(#dl)') +
      rect(236, 250, 128, 40, 10, '#3fa0ff', ' opacity=".85"') + rect(236, 300, 90, 14, 7, '#fff', ' opacity=".7"') + rect(236, 324, 60, 14, 7, '#fff', ' opacity=".5"');
  return svg(label, defs, strap + face + rect(round ? 424 : 414, 270, 18, 60, 8, shade(c, 0.1)));
}

function keyboardSvg(label, c, withKeyboard) {
  const defs = bgDefs + body('bd', c);
  let keys = '';
  if (withKeyboard) {
    for (let row = 0; row < 4; row++) {
      for (let col = 0; col < 12; col++) keys += rect(78 + col * 34, 208 + row * 34, 28, 28, 5, tint(c, 0.18));
    }
    keys += rect(146, 344, 240, 26, 5, tint(c, 0.18));
  }
  const keyboard = withKeyboard ? shadow(60, 190, 440, 200, 18) + rect(60, 190, 440, 200, 18, 'url(#bd)') + keys : '';
  const mx = withKeyboard ? 450 : 300;
  const my = withKeyboard ? 430 : 300;
  const mouse =
    `<ellipse cx="${mx + 8}" cy="${my + 16}" rx="70" ry="110" fill="#000" opacity=".25" filter="url(#sh)"/>` +
    `<ellipse cx="${mx}" cy="${my}" rx="70" ry="110" fill="url(#bd)"/>` + line(mx, my - 108, mx, my - 30, shade(c, 0.35), 3) + rect(mx - 8, my - 80, 16, 34, 8, shade(c, 0.4));
  return svg(label, defs, keyboard + mouse);
}

function holderSvg(label, c, kind) {
  const defs = bgDefs + body('bd', c);
  if (kind === 'carro') {
    return svg(label, defs,
      rect(270, 330, 60, 150, 14, shade(c, 0.2)) + rect(240, 470, 120, 24, 10, shade(c, 0.3)) +
      `<ellipse cx="308" cy="258" rx="120" ry="120" fill="#000" opacity=".25" filter="url(#sh)"/>` + circle(300, 240, 120, 'url(#bd)') +
      circle(300, 240, 82, 'none', ` stroke="${tint(c, 0.3)}" stroke-width="8"`) + circle(300, 240, 12, tint(c, 0.3)));
  }
  return svg(label, defs,
    path('M170 500h260l-40-30H210z', 'url(#bd)') + path('M290 470l-40-250h40l40 250z', 'url(#bd)') +
    `<g transform="rotate(-14 300 240)">${shadow(200, 90, 170, 330, 26)}${rect(200, 90, 170, 330, 26, '#1d2330')}${rect(210, 100, 150, 310, 20, '#4a6fa6')}</g>` +
    rect(200, 400, 160, 22, 8, shade(c, 0.15)));
}

function kitSvg(label) {
  const defs = bgDefs + body('bt', '#8fc7e8') + body('cl', '#4a7fc0');
  return svg(label, defs,
    shadow(110, 300, 300, 200, 24) + rect(110, 300, 300, 200, 24, 'url(#cl)') + line(130, 340, 390, 340, '#fff', 2, ' opacity=".3"') + line(130, 380, 390, 380, '#fff', 2, ' opacity=".3"') +
    shadow(330, 140, 120, 330, 30) + rect(330, 180, 120, 290, 30, 'url(#bt)') + rect(360, 110, 60, 80, 10, '#f2f4f7') + rect(410, 120, 50, 24, 6, '#f2f4f7') +
    rect(350, 260, 80, 90, 10, '#fff', ' opacity=".85"'));
}

function ringSvg(label, c) {
  const defs = bgDefs + body('bd', c);
  return svg(label, defs,
    shadow(200, 280, 200, 200, 40) + rect(200, 280, 200, 200, 40, 'url(#bd)') + circle(300, 380, 50, shade(c, 0.2)) +
    `<ellipse cx="300" cy="230" rx="130" ry="140" fill="none" stroke="url(#bd)" stroke-width="30"/>` +
    `<ellipse cx="300" cy="230" rx="130" ry="140" fill="none" stroke="${tint(c, 0.5)}" stroke-width="4" opacity=".6"/>`);
}

function powerBankSvg(label, c) {
  const defs = bgDefs + body('bd', c);
  return svg(label, defs,
    shadow(180, 110, 240, 400, 40) + rect(180, 110, 240, 400, 40, 'url(#bd)') +
    rect(225, 120, 40, 14, 5, '#0a0a0c') + rect(290, 118, 60, 18, 8, '#0a0a0c') +
    [0, 1, 2, 3].map((i) => circle(270 + i * 20, 460, 5, i < 3 ? '#4ad07a' : tint(c, 0.3))).join('') +
    rect(260, 270, 80, 10, 5, tint(c, 0.3)));
}

// [brand, model, colour, label, drawing]: one per seed product without a
// predefined image, at the path seed/shop.sql gives it.
const CATALOGUE = [
  ...SEED_PHONES.map((d) => [d[0], d[1], d[2], d[3], () => phoneSvg(d)]),
  ['apple', 'ipad-10', 'azul', 'iPad 10.ª generación Azul', () => tabletSvg('iPad 10.ª generación Azul', '#8fb3d9', ['#c9def5', '#3f6fb0'])],
  ['samsung', 'galaxy-tab-a9', 'gris', 'Samsung Galaxy Tab A9 Gris', () => tabletSvg('Samsung Galaxy Tab A9 Gris', '#6b7078', ['#c3cfe0', '#4f6b94'])],
  ['xiaomi', 'redmi-pad-se', 'gris', 'Redmi Pad SE Gris', () => tabletSvg('Redmi Pad SE Gris', '#7b8087', ['#d5e6d8', '#4f8a66'])],
  ['jbl', 'flip-6', 'negro', 'JBL Flip 6 Negro', () => speakerSvg('JBL Flip 6 Negro', '#2c2e33', 'flip')],
  ['jbl', 'go-3', 'rojo', 'JBL Go 3 Rojo', () => speakerSvg('JBL Go 3 Rojo', '#d6333a', 'go')],
  ['jbl', 'charge-5', 'azul', 'JBL Charge 5 Azul', () => speakerSvg('JBL Charge 5 Azul', '#2e5fa8', 'charge')],
  ['jbl', 'tune-520bt', 'blanco', 'JBL Tune 520BT Blanco', () => headphonesSvg('JBL Tune 520BT Blanco', '#eceef1')],
  ['apple', 'airpods-pro-2', 'blanco', 'AirPods Pro 2 Blanco', () => earbudsSvg('AirPods Pro 2 Blanco', '#f4f5f7')],
  ['samsung', 'galaxy-buds-fe', 'grafito', 'Samsung Galaxy Buds FE Grafito', () => earbudsSvg('Samsung Galaxy Buds FE Grafito', '#4a4d52')],
  ['xiaomi', 'redmi-buds-4-active', 'negro', 'Redmi Buds 4 Active Negro', () => earbudsSvg('Redmi Buds 4 Active Negro', '#2b2d30')],
  ['generica', 'vidrio-templado', 'iphone-15', 'Vidrio templado para iPhone 15', () => glassSvg('Vidrio templado para iPhone 15')],
  ['generica', 'vidrio-templado', 'galaxy-a16', 'Vidrio templado para Galaxy A16', () => glassSvg('Vidrio templado para Galaxy A16')],
  ['generica', 'vidrio-privacidad', 'iphone-14', 'Vidrio de privacidad para iPhone 14', () => glassSvg('Vidrio de privacidad para iPhone 14')],
  ['generica', 'case-magsafe', 'azul', 'Case MagSafe Azul', () => caseSvg('Case MagSafe Azul', '#3b5f9e', 'magsafe')],
  ['generica', 'case-antigolpes', 'transparente', 'Case antigolpes Transparente', () => caseSvg('Case antigolpes Transparente', '#e9f1f7', 'transparente')],
  ['generica', 'case-billetera', 'cafe', 'Case billetera Café', () => caseSvg('Case billetera Café', '#7a4a2a', 'billetera')],
  ['generica', 'cable-usb-c', 'blanco', 'Cable USB-C a USB-C Blanco', () => cableSvg('Cable USB-C a USB-C Blanco', '#f2f3f5', ['c', 'c'])],
  ['apple', 'cable-usb-c-lightning', 'blanco', 'Cable USB-C a Lightning Blanco', () => cableSvg('Cable USB-C a Lightning Blanco', '#f2f3f5', ['c', 'lightning'])],
  ['generica', 'cable-micro-usb', 'negro', 'Cable micro USB Negro', () => cableSvg('Cable micro USB Negro', '#2b2d30', ['micro', 'micro'])],
  ['apple', 'cargador-20w', 'blanco', 'Cargador 20 W USB-C Blanco', () => chargerSvg('Cargador 20 W USB-C Blanco', '#f4f5f7', 'apple')],
  ['samsung', 'cargador-25w', 'negro', 'Cargador Samsung 25 W Negro', () => chargerSvg('Cargador Samsung 25 W Negro', '#2b2d30', 'samsung')],
  ['generica', 'cargador-carro', 'negro', 'Cargador de carro Negro', () => chargerSvg('Cargador de carro Negro', '#2b2d30', 'carro')],
  ['samsung', 'galaxy-watch6', 'dorado', 'Samsung Galaxy Watch6 Dorado', () => smartwatchSvg('Samsung Galaxy Watch6 Dorado', '#d9c08a', true)],
  ['xiaomi', 'redmi-watch-4', 'negro', 'Redmi Watch 4 Negro', () => smartwatchSvg('Redmi Watch 4 Negro', '#2b2d30', false)],
  ['generica', 'teclado-mouse', 'negro', 'Teclado y mouse inalámbricos Negro', () => keyboardSvg('Teclado y mouse inalámbricos Negro', '#34363b', true)],
  ['generica', 'mouse-bluetooth', 'gris', 'Mouse Bluetooth Gris', () => keyboardSvg('Mouse Bluetooth Gris', '#8a8f97', false)],
  ['generica', 'holder-carro', 'negro', 'Holder magnético para carro Negro', () => holderSvg('Holder magnético para carro Negro', '#2b2d30', 'carro')],
  ['generica', 'holder-escritorio', 'plateado', 'Holder de escritorio Plateado', () => holderSvg('Holder de escritorio Plateado', '#c3c7cd', 'escritorio')],
  ['generica', 'kit-limpieza', 'azul', 'Kit de limpieza para pantallas', () => kitSvg('Kit de limpieza para pantallas')],
  ['generica', 'anillo-soporte', 'dorado', 'Anillo de soporte Dorado', () => ringSvg('Anillo de soporte Dorado', '#d9b46a')],
  ['xiaomi', 'power-bank-10000', 'negro', 'Power bank 10000 mAh Negro', () => powerBankSvg('Power bank 10000 mAh Negro', '#2b2d30')],
];

let total = 0;
for (const [brand, model, colour, , draw] of CATALOGUE) {
  const bytes = write(join('assets', brand, model, `${colour}.svg`), draw());
  total += bytes;
  console.log(`${bytes}\tassets/${brand}/${model}/${colour}.svg`);
}
for (const d of DEVICES) {
  const [brand, model, colour] = d;
  const bytes = write(join('assets', brand, model, `${colour}.svg`), phoneSvg(d));
  total += bytes;
  console.log(`${bytes}\tassets/${brand}/${model}/${colour}.svg`);
}
total += write(join('assets', 'apple', 'apple-watch-ultra-2', 'titanio.svg'), watchSvg('Apple Watch Ultra 2 Titanio'));
console.log(`${DEVICES.length + 1 + CATALOGUE.length} images, ${total} bytes`);
