// The table: the header, this hand's tricks, the trump, the seats with their card backs,
// the trick, the status line, the end-of-hand panel and the result.

import { t } from "./i18n.js";
import { renderActions } from "./actions.js";
import { renderHand, hintText } from "./hand.js";
import { renderHandEnd, renderResult } from "./handend.js";
import { applyGather } from "./motion.js";
import { awayText } from "./friends.js";
import { renderSeats } from "./seats.js";
import { gamesWonText, renderLast, renderSheet } from "./sheet.js";
import {
  $, app, CARD_BESIDE, cardFace, contractText, formatValue, isCard, isSeatCards, patchChildren, posOf,
  PUBLIC_HIDDEN, publicKey, publicName, seatName, SEATS, shortCard, sideOf, suitMark, trickWonText,
} from "./state.js";

export function render() {
  const v = app.view;
  if (!v) return;
  if (app.hint && (app.hint.v !== app.version || v.to_play !== app.seat)) app.hint = null;
  const table = $("#table");
  table.dataset.turn = v.to_play || "";
  table.dataset.myTurn = String(v.to_play === app.seat && app.role !== "watch");
  table.dataset.phase = v.phase;
  table.dataset.version = String(app.version);
  table.dataset.variant = v.variant;
  table.dataset.role = app.role;

  renderHeader(v);
  renderTally(v);
  renderTrump(v);
  renderSeats(v);
  renderPublicInfo(v);
  renderTrick(v);
  renderHand(v);
  renderActions(v);
  renderStatus(v);
  renderHandEnd();
  renderResult(v);
  if ($("#dlg-sheet").open) renderSheet();
  if ($("#dlg-last").open) renderLast();
}

// above the table, in one row: "3/12 ♥ Hearts" and the score
function renderHeader(v) {
  const info = $("#hand-info");
  info.dataset.hand = String(v.hand_number);
  info.dataset.contract = v.contract ? v.contract.code : "";
  const total = Math.max(v.hands_total || 0, v.hand_number);
  const num = v.hands_total ? t("hand_total", { n: v.hand_number, total }) : t("hand_open", { n: v.hand_number });
  info.replaceChildren(`${num} · `);
  if (v.contract && v.contract.trump) {
    const sym = suitMark(v.contract.trump);
    sym.classList.add("trump");
    sym.setAttribute("aria-hidden", "true");
    info.append(sym);
  }
  info.append(contractText(v.contract, false));
  if (v.contract && v.contract.declarer) {
    const who = document.createElement("span");
    who.className = "declarer"; // left out on a phone, where the row has no room for it
    who.textContent = ` · ${t("declarer", { seat: seatName(v.contract.declarer) })}`;
    info.append(who);
  }
  info.title = info.textContent;

  const mine = sideOf(app.seat);
  $("[data-score-ns]").textContent = String(v.score.NS);
  $("[data-score-ew]").textContent = String(v.score.EW);
  const [nsEl, ewEl] = document.querySelectorAll(".scores .score > span");
  const watching = app.role === "watch";
  scoreName(nsEl, watching, mine === "NS", "side_ns");
  scoreName(ewEl, watching, mine === "EW", "side_ew");
}

// "We (N–S)": the side's letters in a span of their own, which a narrow phone leaves out
function scoreName(el, watching, ours, sideKey) {
  if (watching) {
    el.textContent = t(sideKey);
    return;
  }
  const tag = document.createElement("span");
  tag.className = "side-tag";
  tag.textContent = ` (${t(sideKey)})`;
  el.replaceChildren(t(ours ? "we" : "they"), tag);
}

// the misère contracts, where a side wants as few tricks as it can
export function isMisere(contract) {
  return Boolean(contract && (contract.misere || contract.code === "NOLO" || contract.code === "NOLLSPEL"));
}

// this hand's tricks for each side, always in view; what a side wants from them
function renderTally(v) {
  const tricks = v.tricks || { NS: 0, EW: 0 };
  $("[data-tricks-ns]").textContent = String(tricks.NS);
  $("[data-tricks-ew]").textContent = String(tricks.EW);
  const mine = sideOf(app.seat);
  const watching = app.role === "watch";
  $("#tally-ns").textContent = watching ? t("side_ns") : `${t(mine === "NS" ? "we" : "they")}`;
  $("#tally-ew").textContent = watching ? t("side_ew") : `${t(mine === "EW" ? "we" : "they")}`;
  const note = $("#tally-note");
  const c = v.contract;
  let text = "";
  if (isMisere(c)) text = t("fewer_better");
  else if (c && c.declarer && v.variant === "swedish") text = t("needs_tricks", { side: t(sideOf(c.declarer) === mine ? "we" : "they"), n: 7 });
  note.textContent = text;
  $("#tally").dataset.misere = String(isMisere(c));
  $("#tally").hidden = false;
}

// the trump on the table: its symbol, or "no trump"; a card turned up for it beside it
function renderTrump(v) {
  const box = $("#trump-mark");
  box.replaceChildren();
  const c = v.contract;
  if (!c) return;
  const label = document.createElement("div");
  label.textContent = c.trump ? t("trump") : isMisere(c) ? t(`contract_${c.code}`) : t("no_trump");
  if (c.trump) {
    const sym = suitMark(c.trump);
    sym.classList.add("sym");
    sym.setAttribute("role", "img");
    sym.setAttribute("aria-label", t(`suit_${c.trump}`));
    box.append(label, sym);
  } else box.append(label);
  box.dataset.trump = c.trump || "";
  const turned = (v.public || {}).turned;
  if (isCard(turned)) box.append(cardFace(turned));
}

// public facts that belong to no seat (games won, the rubber, ...), as one line of text
function renderPublicInfo(v) {
  const parts = [];
  for (const [rawKey, value] of Object.entries(v.public || {})) {
    const key = publicKey(rawKey);
    if (PUBLIC_HIDDEN.has(key) || isSeatCards(value) || (isCard(value) && CARD_BESIDE[key])) continue;
    if (key === "committed") continue; // a badge on each seat that has chosen
    if (value === true) { parts.push(publicName(key)); continue; }
    let text = formatValue(value);
    const lead = key === "must_lead" && typeof value === "string" && /^([NESW]) (\w+)$/.exec(value);
    if (lead) {
      const suit = "SHDC"[["spades", "hearts", "diamonds", "clubs"].indexOf(lead[2])];
      text = `${seatName(lead[1])}: ${suit ? t(`suit_${suit}`) : lead[2]}`;
    }
    if (text) parts.push(`${publicName(key)}: ${text}`);
  }
  const bottoms = v.phase === "play" ? bottomsText(v.contract, (v.public || {}).revealed) : "";
  if (bottoms) parts.push(bottoms);
  const match = v.match || {};
  if (Array.isArray(match.games) && match.games.length) parts.push(gamesWonText(match.games));
  if (match.rubber && match.rubber.winner) {
    parts.push(t("rubber_won", { side: formatValue(match.rubber.winner), net: match.rubber.net }));
  }
  const el = $("#public-info");
  el.textContent = parts.join(" · ");
}

// Swedish: the bottom cards turned up, in order, with their colours, and what they made:
// "Bottom cards West 5♠ black, North 3♥ red: the first red card makes spel, North declares."
export function bottomsText(contract, revealed) {
  if (!contract || !revealed || typeof revealed !== "object" || !["SPEL", "NOLLSPEL"].includes(contract.code)) return "";
  const cards = Object.entries(revealed).filter(([seat, c]) => SEATS.includes(seat) && isCard(c))
    .map(([seat, c]) => {
      const red = c[1] === "H" || c[1] === "D";
      return `${seatName(seat)} ${shortCard(c)} ${t(red ? "colour_red" : "colour_black")}`;
    });
  if (!cards.length) return "";
  const list = cards.join(", ");
  if (contract.code === "NOLLSPEL") return t("bottoms_nollspel", { cards: list });
  return t("bottoms_spel", { cards: list, seat: seatName(contract.declarer) });
}

function renderTrick(v) {
  let cards = v.trick;
  let done = null;
  if (cards.length === 0 && app.doneTrick) {
    done = app.doneTrick;
    cards = done.cards;
  }
  const area = document.querySelector("[data-trick]");
  area.setAttribute("aria-label", t("trick_area"));
  area.classList.toggle("done", Boolean(done));
  // a card already on the table stays (drawn once): only a slot that changed is redone
  const bySlot = new Map(cards.map((c) => [posOf(c.seat), c]));
  for (const slot of area.querySelectorAll(".slot")) {
    const c = bySlot.get(slot.dataset.slot);
    const face = c ? cardFace(c.card) : null;
    if (face) {
      face.dataset.seat = c.seat;
      if (done && done.winner === c.seat) face.classList.add("winner");
    }
    patchChildren(slot, face ? [face] : []);
  }
  applyGather();
}

export function renderStatus(v) {
  let text;
  const closed = $("#table").dataset.closed;
  if (app.message) text = app.message;
  else if (closed) text = t(closed === "replaced" ? "seat_replaced" : "seat_closed");
  else if (app.shared && app.ended && !v.winner) text = t("table_ended");
  else if (v.winner) text = t("result_title");
  else if (app.shared && !app.started) text = waitingFor();
  else if (app.picking) text = t(`prompt_${app.picking}`);
  else if (app.armed) text = t("revoke_warning");
  else if (v.to_play === app.seat && app.role !== "watch") {
    const special = v.legal.some((a) => a.type === "action");
    text = v.phase === "bid" ? t("prompt_bid") : special && !v.legal.some((a) => a.type === "play") ? t("prompt_action") : t("your_turn");
  } else if (v.to_play && v.phase === "bid" && v.variant === "swedish") {
    text = t("choosing_bottom", { seat: seatName(v.to_play) }); // not yet a card to play
  } else if (v.to_play) text = t("turn_of", { seat: seatName(v.to_play) });
  else text = t("waiting");
  if (!app.message && !app.notice && v.trick.length === 0 && app.doneTrick && app.doneTrick.winner) {
    text = `${trickWonText(app.doneTrick.winner)} · ${text}`;
  }
  // the first Nóló hand of a game: what the player is to do, where they look
  if (!app.message && !v.winner && isMisere(v.contract) && firstMisere(v)) {
    text = `${t(v.variant === "swedish" ? "nollspel_advice" : "nolo_advice")} · ${text}`;
  }
  if (!app.message && app.hint && !v.winner) text = hintText(app.hint.action);
  if (!app.message && app.notice && !v.winner) text = `${app.notice} · ${text}`;
  const away = app.message ? "" : awayText(v);
  if (away) text = `${away} · ${text}`;
  const status = $("#status");
  status.textContent = text;
  // a long line (a correction, someone away) in a smaller type, in the same box
  status.dataset.long = String(text.length > 64);
}

// a shared table before it starts: who it waits for
function waitingFor() {
  const away = Object.entries(app.seats || {})
    .filter(([, p]) => p.kind === "person" && !p.connected)
    .map(([seat]) => seatName(seat));
  return away.length ? t("waiting_people", { seats: away.join(", ") }) : t("waiting");
}

// is this hand the game's first misère hand?
function firstMisere(v) {
  return !(v.results || []).some((r) => isMisere(r.contract));
}

export function showMessage(text) {
  app.message = text;
  $("#status").textContent = text;
  $("#status").dataset.long = String(text.length > 64);
  clearTimeout(showMessage.timer);
  showMessage.timer = setTimeout(() => { app.message = null; if (app.view) renderStatus(app.view); }, 4000);
}
