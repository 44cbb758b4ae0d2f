#!/usr/bin/env node
// Draws the 26 predefined product images (spec section 3, "Predefined image
// entry") as small hand-built SVGs under public/assets/<brand>/<model>/<colour>.svg.
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

let total = 0;
for (const d of DEVICES) {
  const [brand, model, colour] = d;
  const bytes = write(join('assets', brand, model, `${colour}.svg`), phoneSvg(d));
  total += bytes;
  console.log(`${bytes}\tassets/${brand}/${model}/${colour}.svg`);
}
total += write(join('assets', 'apple', 'apple-watch-ultra-2', 'titanio.svg'), watchSvg('Apple Watch Ultra 2 Titanio'));
console.log(`${DEVICES.length + 1} images, ${total} bytes`);
