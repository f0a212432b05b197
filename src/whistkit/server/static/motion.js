// Motion: the bots' pace, a card travelling from its hand to the trick, and a finished
// trick gathered towards its winner. Short, and none at all under prefers-reduced-motion
// or at pace 0 (the tests' pace), where every event is shown at once.

import { $, app, posOf } from "./state.js";

export const PACE_KEY = "whistkit.pace";
export const PACES = ["slow", "normal", "fast"];
const PACE_MS = { slow: 1800, normal: 1100, fast: 450, 0: 0 }; // the server's own pause (0.7 s) is the floor
const TRAVEL_MS = 220;

export function pace() {
  const p = localStorage.getItem(PACE_KEY);
  return p in PACE_MS ? p : "normal";
}

export function setPace(p) {
  if (p in PACE_MS) localStorage.setItem(PACE_KEY, p);
}

// at a person's pace the end of a hand waits for them; at pace 0 nothing waits
export function holdsHandEnd() {
  return paceMs() > 0;
}

function paceMs() {
  return PACE_MS[pace()];
}

function still() {
  return paceMs() === 0 || matchMedia("(prefers-reduced-motion: reduce)").matches;
}

let lastShown = 0;
let trickEnded = false;

// how long to wait before showing a live event: a bot's card follows the last one by the
// pace; after a finished trick the table stays a little longer, for the trick to be seen
export function paceFor(ev) {
  const ms = paceMs();
  if (!ms || !ev) return 0;
  let need = 0;
  if (ev.type === "play" && ev.seat !== app.seat) need = ms;
  if (trickEnded && ["play", "hand_end", "deal"].includes(ev.type)) need = Math.max(need, ms * 1.4);
  return Math.max(0, lastShown + need - performance.now());
}

let origin = null; // where the card being shown comes from, measured before the render

export function showPlay(ev) {
  origin = null;
  if (still()) return;
  const from = ev.seat === app.seat
    ? document.querySelector(`#hand [data-card="${ev.card}"]`)
    : document.querySelector(`.seat[data-seat="${ev.seat}"] .backs`);
  if (from) origin = { card: ev.card, rect: from.getBoundingClientRect() };
}

export function afterShown(ev) {
  lastShown = performance.now();
  if (ev && ev.type === "play") trickEnded = Boolean(ev.trick_complete);
  else if (ev && ev.type === "deal") trickEnded = false;
  if (!origin) return;
  const el = document.querySelector(`[data-trick] [data-card="${origin.card}"]`);
  const from = origin.rect;
  origin = null;
  if (!el || !el.animate) return;
  const to = el.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  el.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(0.8)`, opacity: 0.6 }, { transform: "none", opacity: 1 }],
    { duration: TRAVEL_MS, easing: "ease-out" },
  );
}

let gatherTimer = 0;

// a finished trick slides towards its winner after a moment; the next card cancels it
export function gatherLater(winner) {
  clearTimeout(gatherTimer);
  app.gatherTo = null;
  if (still()) return;
  const serial = ++app.trickSerial;
  gatherTimer = setTimeout(() => {
    if (serial !== app.trickSerial || !app.doneTrick) return;
    app.gatherTo = posOf(winner);
    applyGather();
  }, paceMs() * 1.1);
}

export function stopGather() {
  clearTimeout(gatherTimer);
  app.trickSerial++;
  app.gatherTo = null;
}

// the gather classes on the trick area, from app.gatherTo (renderTrick calls this too)
export function applyGather() {
  const area = $("[data-trick]");
  const to = app.doneTrick ? app.gatherTo : null;
  area.classList.toggle("gather", Boolean(to));
  for (const pos of ["top", "left", "right", "bottom"]) area.classList.toggle(`gather-${pos}`, to === pos);
}
