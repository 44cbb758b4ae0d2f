#!/usr/bin/env node
// Draws the 8 gallery "photos" of the /other page (a vintage photo-booth event
// business) as small sepia SVG scenes under public/gallery/foto-N.svg.
//
//   node scripts/draw-gallery.mjs
//
// No dependencies, no text in the pictures. Keep the titles in step with the
// alt texts in src/lib/gallery.ts (its test checks the files).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'public', 'gallery');

// Sepia palette.
const C = {
  paper: '#f3e7cf',
  cream: '#ead8b6',
  sand: '#d8bf96',
  tan: '#bf9a6a',
  brown: '#8a6440',
  dark: '#5b3d24',
  ink: '#2e1d10',
  red: '#9a4a32',
  gold: '#c79a4b',
};

const n = (v) => String(Math.round(v * 10) / 10);

// Small deterministic PRNG so the confetti does not move between runs.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- pieces

// A standing person drawn in units where the body is 200 tall, feet at (0, 0).
// kind: 'm' (trousers) or 'w' (dress); hat: top | bowler | cone | bow | none;
// prop: mustache | lips | glasses | none (held on a stick in front of the face);
// arms: [left, right], each down | up | prop | hip.
function person({ x, y, h, kind = 'm', hat = 'none', prop = 'none', arms = ['down', 'down'], tone = C.dark, flip = false }) {
  const k = h / 200;
  const f = flip ? -1 : 1;
  let s = `<g transform="translate(${n(x)} ${n(y)}) scale(${n(k * f * 1000) / 1000} ${n(k * 1000) / 1000})" fill="${tone}">`;
  const arm = (side, mode) => {
    const sx = side * 26;
    const end = {
      down: `l${side * 6} 30l${side * 2} 26`,
      up: `l${side * 14} -26l${side * 6} -32`,
      hip: `l${side * 18} 24l${side * -14} 18`,
      prop: `l${side * 16} 22l${side * -6} 8`,
      hold: `l${side * 22} 8l${side * 20} -6`,
    }[mode];
    return `<path d="M${sx} -144${end}" fill="none" stroke="${tone}" stroke-width="11" stroke-linecap="round" stroke-linejoin="round"/>`;
  };
  s += arm(-1, arms[0]) + arm(1, arms[1]);
  if (kind === 'm') {
    s += '<path d="M-24-84l-5-56q0-15 15-15h28q15 0 15 15l-5 56z"/>';
    s += '<rect x="-23" y="-92" width="20" height="92" rx="5"/><rect x="3" y="-92" width="20" height="92" rx="5"/>';
    s += `<path d="M0-152l-10-6v12zm0 0l10-6v12z" fill="${C.ink}"/>`;
  } else {
    s += '<path d="M-19-176a19 20 0 0 1 38 0l2 24q-21 8-42 0z"/>';
    s += '<path d="M-21-100l-3-42q0-13 13-13h22q13 0 13 13l-3 42 30 92q-48 10-102 0z"/>';
    s += '<rect x="-14" y="-14" width="9" height="14" rx="3"/><rect x="5" y="-14" width="9" height="14" rx="3"/>';
  }
  s += '<rect x="-6" y="-166" width="12" height="14"/><circle cy="-176" r="16"/>';
  s += {
    top: `<rect x="-14" y="-226" width="28" height="36" rx="2" fill="${C.ink}"/><rect x="-14" y="-200" width="28" height="6" fill="${C.red}"/><rect x="-24" y="-193" width="48" height="6" rx="3" fill="${C.ink}"/>`,
    bowler: `<path d="M-16-189a16 17 0 0 1 32 0z" fill="${C.ink}"/><ellipse cy="-189" rx="24" ry="4.5" fill="${C.ink}"/>`,
    cone: `<path d="M-12-188l12-40 12 40z" fill="${C.red}"/><circle cy="-229" r="5" fill="${C.paper}"/>`,
    bow: `<path d="M12-192l-14-9v18zm0 0l14-9v18z" fill="${C.red}"/>`,
    none: '',
  }[hat];
  const stick = (x1, y1) => `<path d="M${x1} ${y1}L${side(arms)}" stroke="${C.gold}" stroke-width="3"/>`;
  s += {
    mustache: stick(4, -167) + `<path d="M0-170c-6-6-17-7-23 0 5 0 8 6 14 4l9-3 9 3c6 2 9-4 14-4-6-7-17-6-23 0z" fill="${C.ink}"/>`,
    lips: stick(6, -166) + `<path d="M-13-168q7-8 13-3 6-5 13 3-6 9-13 9t-13-9z" fill="${C.red}"/>`,
    glasses: stick(16, -176) + `<g fill="none" stroke="${C.ink}" stroke-width="4"><circle cx="-9" cy="-178" r="8"/><circle cx="11" cy="-178" r="8"/><path d="M-1-179h4"/></g>`,
    none: '',
  }[prop];
  return s + '</g>';
}
// Where the hand holding the prop ends (the arm marked 'prop').
const side = (arms) => (arms[1] === 'prop' ? '36 -114' : '-36 -114');

// Head and shoulders, for the small pictures inside strips and instant photos.
const bust = (x, y, s, tone, extra = '') =>
  `<g transform="translate(${n(x)} ${n(y)}) scale(${n(s * 100) / 100})" fill="${tone}"><circle cy="-30" r="11"/><path d="M-22 0q0-18 22-18t22 18z"/>${extra}</g>`;

function bunting(x0, y0, x1, y1, sag, count, colours) {
  const cx = (x0 + x1) / 2;
  const cy = Math.max(y0, y1) + sag;
  let s = `<path d="M${x0} ${y0}Q${cx} ${cy} ${x1} ${y1}" fill="none" stroke="${C.dark}" stroke-width="2"/>`;
  for (let i = 0; i < count; i++) {
    const t = (i + 0.5) / count;
    const px = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1;
    const py = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1;
    s += `<path d="M${n(px - 15)} ${n(py - 2)}h30l-15 34z" fill="${colours[i % colours.length]}"/>`;
  }
  return s;
}

function lights(x0, y0, x1, y1, sag, count) {
  const cx = (x0 + x1) / 2;
  const cy = Math.max(y0, y1) + sag;
  let s = `<path d="M${x0} ${y0}Q${cx} ${cy} ${x1} ${y1}" fill="none" stroke="${C.ink}" stroke-width="2"/>`;
  for (let i = 0; i < count; i++) {
    const t = (i + 0.5) / count;
    const px = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1;
    const py = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1;
    s += `<circle cx="${n(px)}" cy="${n(py + 12)}" r="20" fill="url(#gw)"/><rect x="${n(px - 3)}" y="${n(py)}" width="6" height="6" fill="${C.ink}"/><circle cx="${n(px)}" cy="${n(py + 11)}" r="6" fill="#f6d98c"/>`;
  }
  return s;
}

function confetti(seed, count, box, colours) {
  const r = rng(seed);
  let s = '';
  for (let i = 0; i < count; i++) {
    const x = box[0] + r() * box[2];
    const y = box[1] + r() * box[3];
    const c = colours[i % colours.length];
    if (i % 3 === 0) s += `<circle cx="${n(x)}" cy="${n(y)}" r="${n(3 + r() * 3)}" fill="${c}"/>`;
    else s += `<rect x="${n(x)}" y="${n(y)}" width="12" height="5" fill="${c}" transform="rotate(${Math.round(r() * 180)} ${n(x)} ${n(y)})"/>`;
  }
  return s;
}

const floor = (y, fill = C.tan) =>
  `<rect y="${y}" width="800" height="${600 - y}" fill="${fill}"/><rect y="${y}" width="800" height="6" fill="${C.brown}" opacity=".5"/>`;

// Vertical stripes wallpaper.
const stripes = (fill) =>
  `<pattern id="st" width="48" height="48" patternUnits="userSpaceOnUse"><rect width="22" height="48" fill="${fill}"/></pattern>`;

// ---------------------------------------------------------------- scenes

const SCENES = [];

// 1. The booth itself: curtain drawn, two pairs of feet, a strip coming out.
SCENES.push({
  title: 'Cabina de fotos vintage con la cortina cerrada y una tira de fotos recién impresa',
  bg: [C.paper, C.cream],
  defs: stripes(C.cream),
  draw: () => {
    let s = '<rect width="800" height="600" fill="url(#st)"/>' + floor(480);
    for (const x of [36, 206, 594, 764]) s += `<rect x="${x - 4}" y="350" width="8" height="130" fill="${C.gold}"/><circle cx="${x}" cy="346" r="9" fill="${C.gold}"/><ellipse cx="${x}" cy="480" rx="18" ry="5" fill="${C.brown}"/>`;
    s += `<path d="M40 364q83 56 166 0M594 364q83 56 166 0" fill="none" stroke="${C.red}" stroke-width="9"/>`;
    s += `<rect x="248" y="118" width="310" height="382" rx="6" fill="${C.dark}"/><rect x="262" y="132" width="282" height="352" fill="${C.brown}"/>`;
    s += `<rect x="232" y="72" width="342" height="62" rx="8" fill="${C.ink}"/><rect x="246" y="84" width="314" height="38" rx="4" fill="${C.red}"/>`;
    for (let i = 0; i < 12; i++) s += `<circle cx="${262 + i * 26}" cy="103" r="5" fill="#fff2cf"/>`;
    s += `<rect x="276" y="160" width="150" height="300" fill="${C.red}"/>`;
    for (let i = 0; i < 6; i++) s += `<path d="M${290 + i * 25} 160q-9 150 0 300" stroke="${C.ink}" stroke-width="5" opacity=".35" fill="none"/>`;
    s += `<path d="M276 160h150v16q-75 14-150 0z" fill="${C.ink}" opacity=".45"/>`;
    s += `<g fill="${C.ink}"><rect x="300" y="460" width="12" height="22"/><rect x="322" y="460" width="12" height="22"/><ellipse cx="302" cy="484" rx="14" ry="6"/><ellipse cx="330" cy="484" rx="14" ry="6"/><rect x="368" y="462" width="10" height="20"/><rect x="388" y="462" width="10" height="20"/><ellipse cx="372" cy="484" rx="12" ry="5"/><ellipse cx="396" cy="484" rx="12" ry="5"/></g>`;
    s += `<circle cx="488" cy="200" r="30" fill="${C.ink}"/><circle cx="488" cy="200" r="18" fill="${C.dark}"/><circle cx="482" cy="194" r="6" fill="${C.sand}" opacity=".6"/>`;
    s += `<rect x="456" y="290" width="64" height="10" rx="3" fill="${C.ink}"/><rect x="468" y="298" width="40" height="150" fill="${C.paper}" transform="rotate(-4 488 298)"/>`;
    for (let i = 0; i < 4; i++) s += `<g transform="rotate(-4 488 298)"><rect x="474" y="${306 + i * 35}" width="28" height="28" fill="${C.sand}"/>${bust(488, 334 + i * 35, 0.55, C.brown)}</g>`;
    s += bunting(0, 26, 800, 26, 40, 14, [C.red, C.gold, C.paper, C.brown]);
    return s;
  },
});

// 2. Three photo strips on a wooden table.
SCENES.push({
  title: 'Tres tiras de fotos sobre una mesa de madera, con parejas posando con accesorios',
  bg: ['#6a4a2e', '#4a321e'],
  defs: `<g id="p"><rect width="120" height="92" fill="${C.sand}"/>${bust(38, 92, 1.15, C.dark)}${bust(84, 92, 1.05, C.brown)}</g>`,
  draw: () => {
    let s = '';
    for (let i = 0; i < 7; i++) s += `<path d="M0 ${60 + i * 84}q400 ${i % 2 ? 18 : -14} 800 0" stroke="${C.ink}" stroke-width="2" opacity=".35" fill="none"/>`;
    for (const [x, a] of [[140, -9], [330, 2], [520, 8]]) {
      s += `<g transform="rotate(${a} ${x + 70} 300)"><rect x="${x + 6}" y="36" width="140" height="524" fill="#000" opacity=".3"/><rect x="${x}" y="30" width="140" height="524" fill="${C.paper}"/>`;
      for (let j = 0; j < 4; j++) {
        const px = x + 10;
        const py = 42 + j * 126;
        s += `<use href="#p" x="${px}" y="${py}"/>`;
        const hat = j % 2 ? `<path d="M${px + 28} ${py + 48}h20v-16h-20z" fill="${C.ink}"/><rect x="${px + 22}" y="${py + 46}" width="32" height="5" fill="${C.ink}"/>` : `<path d="M${px + 74} ${py + 50}l10-24 10 24z" fill="${C.red}"/>`;
        const m = j < 2 ? `<path d="M${px + 38} ${py + 62}c-4-4-11-5-15 0 3 0 5 4 9 3l6-2 6 2c4 1 6-3 9-3-4-5-11-4-15 0z" fill="${C.ink}"/>` : `<path d="M${px + 76} ${py + 64}q4-5 8-2 4-3 8 2-4 6-8 6t-8-6z" fill="${C.red}"/>`;
        s += hat + m;
      }
      s += '</g>';
    }
    s += confetti(2, 16, [20, 20, 760, 560], [C.gold, C.paper, C.red]);
    return s;
  },
});

// 3. A couple posing with props under string lights.
SCENES.push({
  title: 'Pareja posando con sombrero de copa, bigote y labios de utilería bajo luces colgantes',
  bg: [C.cream, C.sand],
  defs: '',
  draw: () => {
    let s = `<path d="M80 0h640v470h-640z" fill="${C.paper}"/>`;
    for (let i = 0; i < 8; i++) s += `<path d="M${80 + i * 80} 0q40 0 80 0v30a40 30 0 0 1-80 0z" fill="${C.red}"/>`;
    s += floor(470);
    s += lights(80, 60, 720, 60, 50, 10);
    s += person({ x: 320, y: 520, h: 380, kind: 'm', hat: 'top', prop: 'mustache', arms: ['hip', 'prop'] });
    s += person({ x: 480, y: 520, h: 340, kind: 'w', hat: 'bow', prop: 'lips', arms: ['prop', 'down'], tone: C.brown });
    return s;
  },
});

// 4. A group of friends celebrating in a shower of confetti.
SCENES.push({
  title: 'Grupo de amigos celebrando con gorros de fiesta entre una lluvia de confeti',
  bg: [C.paper, C.sand],
  defs: '',
  draw: () => {
    let s = `<ellipse cx="400" cy="300" rx="330" ry="260" fill="#fff8e6" opacity=".6"/>` + floor(500, C.sand);
    s += person({ x: 190, y: 540, h: 320, kind: 'w', hat: 'cone', arms: ['up', 'hip'], tone: C.brown });
    s += person({ x: 320, y: 545, h: 360, kind: 'm', hat: 'bowler', prop: 'glasses', arms: ['down', 'prop'] });
    s += person({ x: 470, y: 545, h: 350, kind: 'm', hat: 'cone', arms: ['up', 'up'], tone: C.ink });
    s += person({ x: 610, y: 540, h: 315, kind: 'w', hat: 'bow', prop: 'mustache', arms: ['hip', 'prop'], tone: C.dark });
    s += confetti(4, 36, [20, 10, 760, 480], [C.red, C.gold, C.brown, '#fff4d6']);
    return s;
  },
});

// 5. The props table.
SCENES.push({
  title: 'Mesa de accesorios con sombreros, bigotes, gafas y labios sobre palitos',
  bg: [C.paper, C.cream],
  defs: stripes('#e9d8b8'),
  draw: () => {
    let s = '<rect width="800" height="600" fill="url(#st)"/>';
    s += bunting(0, 20, 800, 20, 30, 12, [C.gold, C.red, C.paper, C.brown]);
    s += `<rect x="430" y="110" width="230" height="190" rx="6" fill="${C.gold}"/><rect x="446" y="126" width="198" height="158" fill="${C.paper}"/>` + bust(545, 284, 2.6, C.sand);
    s += `<rect x="40" y="380" width="720" height="220" fill="${C.red}"/><rect x="40" y="372" width="720" height="16" fill="${C.dark}"/>`;
    for (let i = 0; i < 12; i++) s += `<path d="M${40 + i * 60} 388a30 22 0 0 0 60 0z" fill="${C.paper}"/>`;
    s += `<rect x="110" y="250" width="90" height="110" rx="2" fill="${C.ink}"/><rect x="110" y="328" width="90" height="14" fill="${C.red}"/><rect x="78" y="356" width="154" height="16" rx="8" fill="${C.ink}"/>`;
    s += `<path d="M268 372a52 58 0 0 1 104 0z" fill="${C.dark}"/><ellipse cx="320" cy="370" rx="72" ry="10" fill="${C.dark}"/>`;
    s += `<path d="M640 372l-10-120h80l-10 120z" fill="${C.sand}" opacity=".8"/>`;
    const sticks = [
      [650, 190, `<path d="M650 190c-10-10-28-12-38 0 8 0 14 10 24 7l14-5 14 5c10 3 16-7 24-7-10-12-28-10-38 0z" fill="${C.ink}"/>`],
      [690, 170, `<path d="M670 170q10-12 20-5 10-7 20 5-10 14-20 14t-20-14z" fill="${C.red}"/>`],
      [618, 150, `<g fill="none" stroke="${C.ink}" stroke-width="6"><circle cx="603" cy="150" r="13"/><circle cx="635" cy="150" r="13"/></g>`],
      [708, 226, `<path d="M708 226l-18-11v22zm0 0l18-11v22z" fill="${C.ink}"/>`],
    ];
    for (const [x, y, shape] of sticks) s += `<path d="M${x} ${y}L${668} 330" stroke="${C.gold}" stroke-width="4"/>` + shape;
    s += `<path d="M450 368c-10-10-28-12-38 0 8 0 14 10 24 7l14-5 14 5c10 3 16-7 24-7-10-12-28-10-38 0z" fill="${C.ink}"/>`;
    return s;
  },
});

// 6. A wedding couple inside a large ornate frame.
SCENES.push({
  title: 'Novios sosteniendo un marco dorado durante la sesión de fotos de su boda',
  bg: [C.sand, C.tan],
  defs: '',
  draw: () => {
    let s = '';
    for (let i = 0; i < 10; i++) s += `<path d="M${i * 80 + 40} 0q30 250 0 500" stroke="${C.brown}" stroke-width="18" opacity=".18" fill="none"/>`;
    s += floor(500, C.cream) + lights(0, 30, 800, 30, 60, 12);
    s += confetti(6, 16, [40, 110, 720, 360], [C.paper, C.gold, '#fff']);
    s += person({ x: 330, y: 540, h: 360, kind: 'm', arms: ['hold', 'down'], tone: C.ink });
    s += `<path d="M470 218q-40 10-44 110l-20 212h70z" fill="#fffaf0" opacity=".55"/>`;
    s += person({ x: 470, y: 540, h: 330, kind: 'w', arms: ['down', 'hold'], tone: '#f7eedb' });
    s += `<rect x="214" y="150" width="378" height="260" rx="12" fill="none" stroke="${C.gold}" stroke-width="18"/><rect x="200" y="136" width="406" height="288" rx="18" fill="none" stroke="${C.dark}" stroke-width="4"/>`;
    for (const [cx, cy] of [[214, 150], [592, 150], [214, 410], [592, 410]]) s += `<circle cx="${cx}" cy="${cy}" r="20" fill="${C.gold}" stroke="${C.dark}" stroke-width="4"/><circle cx="${cx}" cy="${cy}" r="7" fill="${C.dark}"/>`;
    s += `<circle cx="208" cy="280" r="10" fill="${C.ink}"/><circle cx="598" cy="277" r="9" fill="#f7eedb"/>`;
    s += `<path d="M680 470c-12-12-28 4-12 16l12 10 12-10c16-12 0-28-12-16z" fill="${C.red}"/>`;
    return s;
  },
});

// 7. An old bellows camera on its tripod, with a studio umbrella.
SCENES.push({
  title: 'Cámara antigua de fuelle sobre trípode junto a una sombrilla de estudio',
  bg: [C.cream, C.sand],
  defs: '',
  draw: () => {
    let s = `<path d="M0 0h800v470h-800z" fill="${C.paper}" opacity=".5"/>`;
    for (let i = 0; i < 10; i++) s += `<path d="M${i * 80} 0q40 240 0 470" stroke="${C.sand}" stroke-width="10" fill="none"/>`;
    s += floor(470) + lights(0, 40, 800, 40, 40, 11);
    s += `<g fill="none" stroke="${C.ink}" stroke-width="9" stroke-linecap="round"><path d="M330 330l-80 220M340 330v230M350 330l80 220"/></g>`;
    s += `<rect x="250" y="210" width="130" height="130" rx="6" fill="${C.dark}"/><rect x="262" y="222" width="106" height="106" fill="${C.brown}"/>`;
    s += `<path d="M380 222l120 30v76l-120 30z" fill="${C.ink}"/>`;
    for (let i = 0; i < 4; i++) s += `<path d="M${402 + i * 24} ${228 + i * 6}v${124 - i * 12}" stroke="${C.brown}" stroke-width="4"/>`;
    s += `<rect x="496" y="240" width="30" height="100" rx="4" fill="${C.dark}"/><circle cx="540" cy="290" r="34" fill="${C.ink}"/><circle cx="540" cy="290" r="22" fill="${C.brown}"/><circle cx="532" cy="282" r="7" fill="${C.paper}" opacity=".6"/>`;
    s += `<path d="M270 210v-40h40v40" fill="${C.gold}"/><path d="M296 170l-24-24" stroke="${C.ink}" stroke-width="4"/><ellipse cx="266" cy="140" rx="34" ry="10" fill="${C.gold}"/>`;
    s += `<path d="M650 280l40 40M690 320v240M690 320l-40 240M690 320l40 240" stroke="${C.ink}" stroke-width="6" fill="none"/>`;
    s += `<path d="M560 170a120 120 0 0 1 200 100z" fill="${C.paper}" stroke="${C.brown}" stroke-width="4"/><path d="M660 180l-10 100M610 205l40 75M720 232l-70 48" stroke="${C.sand}" stroke-width="3"/>`;
    return s;
  },
});

// 8. The guest book: instant photos hung on strings with pegs.
SCENES.push({
  title: 'Libro de recuerdos con fotos instantáneas colgadas de cordeles con pinzas',
  bg: [C.cream, C.sand],
  defs:
    `<g id="ph"><rect x="-56" y="0" width="112" height="132" fill="${C.paper}"/><rect x="-48" y="8" width="96" height="96" fill="${C.tan}"/>` +
    `${bust(-18, 104, 1.2, C.dark)}${bust(20, 104, 1.1, C.brown)}<rect x="-6" y="-10" width="12" height="24" rx="2" fill="${C.gold}"/></g>`,
  draw: () => {
    let s = `<rect x="40" y="40" width="720" height="520" rx="10" fill="${C.brown}"/><rect x="60" y="60" width="680" height="480" fill="${C.dark}"/>`;
    s += `<rect x="60" y="60" width="680" height="480" fill="${C.ink}" opacity=".25"/>`;
    for (const [y, sag] of [[92, 40], [318, 36]]) {
      s += `<path d="M60 ${y}Q400 ${y + sag * 2} 740 ${y}" stroke="${C.sand}" stroke-width="3" fill="none"/>`;
      for (let i = 0; i < 5; i++) {
        const t = (i + 0.5) / 5;
        const x = 60 + 680 * t;
        const yy = (1 - t) ** 2 * y + 2 * (1 - t) * t * (y + sag * 2) + t * t * y;
        s += `<use href="#ph" transform="translate(${n(x)} ${n(yy)}) rotate(${[-6, 4, -2, 7, -5][i]})"/>`;
      }
    }
    s += `<path d="M620 500c-14-14-32 4-14 18l14 12 14-12c18-14 0-32-14-18z" fill="${C.red}"/>`;
    return s;
  },
});

// ---------------------------------------------------------------- output

const esc = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function sceneSvg(scene, i) {
  const defs =
    `<linearGradient id="bg" x2="0" y2="1"><stop offset="0" stop-color="${scene.bg[0]}"/><stop offset="1" stop-color="${scene.bg[1]}"/></linearGradient>` +
    '<radialGradient id="vg" r=".75"><stop offset=".55" stop-color="#3a2412" stop-opacity="0"/><stop offset="1" stop-color="#3a2412" stop-opacity=".55"/></radialGradient>' +
    '<radialGradient id="gw"><stop offset="0" stop-color="#ffe9a8" stop-opacity=".9"/><stop offset="1" stop-color="#ffe9a8" stop-opacity="0"/></radialGradient>' +
    `<filter id="gr" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" baseFrequency=".8" numOctaves="2" seed="${i + 1}" stitchTiles="stitch"/><feColorMatrix values="0 0 0 0 .23 0 0 0 0 .14 0 0 0 0 .07 0 0 0 .45 0"/></filter>` +
    scene.defs;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600" role="img" aria-label="${esc(scene.title)}">` +
    `<title>${esc(scene.title)}</title><defs>${defs}</defs>` +
    '<rect width="800" height="600" fill="url(#bg)"/>' +
    scene.draw() +
    '<rect width="800" height="600" fill="url(#vg)"/><rect width="800" height="600" filter="url(#gr)" opacity=".5"/>' +
    '</svg>\n'
  );
}

mkdirSync(outDir, { recursive: true });
SCENES.forEach((scene, i) => {
  const text = sceneSvg(scene, i);
  writeFileSync(join(outDir, `foto-${i + 1}.svg`), text);
  console.log(`${Buffer.byteLength(text)}\tgallery/foto-${i + 1}.svg\t${scene.title}`);
});
