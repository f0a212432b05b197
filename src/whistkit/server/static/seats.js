// The four seats: name, a row of badges that is always there (so that a badge appearing
// moves nothing), the other hands as fanned card backs, and the public cards beside them.

import { cardLabel, t } from "./i18n.js";
import { send } from "./connection.js";
import {
  $, app, badge, CARD_BESIDE, cardFace, isCard, isSeatCards, partnerOf, patchChildren, posOf, publicKey,
  publicName, seatName, SEATS,
} from "./state.js";

export function renderSeats(v) {
  const committed = new Set(Array.isArray((v.public || {}).committed) ? v.public.committed : []);
  for (const seat of SEATS) {
    const pos = posOf(seat);
    const el = pos === "bottom" ? $("#me") : document.querySelector(`.seat[data-pos="${pos}"]`);
    const parts = [];
    el.dataset.seat = seat;
    el.classList.toggle("to-play", v.to_play === seat);
    const name = document.createElement("div");
    name.className = "name";
    const mine = seat === app.seat && app.role !== "watch";
    const role = mine || app.role === "watch" ? "" : seat === partnerOf(app.seat) ? ` (${t("partner")})` : "";
    const player = app.shared && app.seats ? app.seats[seat] : null;
    if (player) {
      // a shared table: the player's name, a dot for their connection, a bot's level
      el.dataset.player = player.name || "";
      el.dataset.kind = player.kind;
      el.dataset.connected = String(Boolean(player.connected));
      if (player.standin) el.dataset.standin = "true";
      else delete el.dataset.standin;
      if (player.kind === "person") {
        const dot = document.createElement("span");
        dot.className = "dot";
        dot.dataset.on = String(Boolean(player.connected));
        dot.setAttribute("role", "img");
        dot.setAttribute("aria-label", t(player.connected ? "connected" : "not_connected"));
        dot.title = dot.getAttribute("aria-label");
        name.append(dot);
      }
      const shown = player.kind === "person"
        ? (player.name || t(`seat_${seat}`)) + (mine ? ` (${t("you")})` : role)
        : t(`seat_${seat}`) + role;
      name.append(shown);
      name.title = name.textContent;
    } else {
      for (const k of ["player", "kind", "connected", "standin"]) delete el.dataset[k];
      name.textContent = seatName(seat) + role;
      name.title = name.textContent; // whole, where a narrow seat ends it in an ellipsis
    }
    parts.push(name);
    const badges = document.createElement("div");
    badges.className = "badges";
    if (player && player.kind === "bot") badges.append(badge(t("bot"), "bot"));
    if (player && player.standin) badges.append(badge(t("bot_playing"), "standin"));
    if (seat === v.dealer) badges.append(badge(t("dealer"), "dealer"));
    if (seat === v.leader && v.phase === "play") badges.append(badge(t("leads"), "leader")); // leads this trick
    if (committed.has(seat)) badges.append(badge(t("bottom_chosen"), "committed"));
    parts.push(badges);
    if (pos !== "bottom") parts.push(backs(seat, v.hand_sizes[seat]));
    // public cards beside their owner: revealed bottom cards, exposed cards, your own
    // bottom card beside you (the turned-up trump lies by the trump mark)
    for (const [rawKey, value] of Object.entries(v.public || {})) {
      const key = publicKey(rawKey);
      let codes = [];
      if (isSeatCards(value) && value[seat]) codes = [].concat(value[seat]);
      else if (isCard(value) && CARD_BESIDE[key] === "me" && seat === app.seat && !shownBeside(v, seat, value)) codes = [value];
      if (codes.length) {
        const box = document.createElement("div");
        box.className = "public";
        box.dataset.public = key;
        const label = document.createElement("span");
        label.className = "label";
        // one seat's revealed bottom card is one card
        label.textContent = key === "revealed" && codes.length === 1 ? t("public_revealed_one") : publicName(key);
        const cards = document.createElement("div");
        cards.className = "cards";
        for (const code of codes) cards.append(publicCard(code));
        box.append(label, cards);
        parts.push(box);
      }
    }
    // what did not change stays as it is: no card back drawn again for nothing
    patchChildren(el, parts);
  }
}

// a hand of ``n`` cards as fanned backs, with the count for the eye and the ear; the
// same node while ``n`` (and the language) stay, so a render makes no new image for it
const backsMade = new Map();
function backs(seat, n) {
  const key = `${n}|${t("cards_left", { n })}`;
  const made = backsMade.get(seat);
  if (made && made.key === key) return made.node;
  const node = makeBacks(n);
  backsMade.set(seat, { key, node });
  return node;
}

function makeBacks(n) {
  const box = document.createElement("div");
  box.className = "backs";
  box.setAttribute("role", "img");
  box.setAttribute("aria-label", t("cards_left", { n }));
  box.dataset.count = String(n);
  for (let i = 0; i < n; i++) {
    const img = document.createElement("img");
    img.src = "/static/cards/back.svg";
    img.alt = "";
    img.draggable = false;
    box.append(img);
  }
  const wrap = document.createElement("div");
  wrap.className = "hand-backs";
  const count = document.createElement("div");
  count.className = "count";
  count.textContent = String(n);
  count.setAttribute("aria-hidden", "true");
  wrap.append(box, count);
  return wrap;
}

// is ``code`` already drawn beside ``seat`` by a map of seats to cards (a revealed card)?
function shownBeside(v, seat, code) {
  return Object.values(v.public || {}).some((x) => isSeatCards(x) && [].concat(x[seat] || []).includes(code));
}

// a public card; an exposed card that we may call is a button that calls it
function publicCard(code) {
  const call = (app.view.irregular || []).find((a) => a.type === "action" && a.action.kind === "Call" && a.action.card === code);
  const face = cardFace(code);
  if (!call) return face;
  const b = document.createElement("button");
  b.type = "button";
  b.className = "call";
  b.dataset.call = code;
  b.setAttribute("aria-label", t("action_Call", { card: cardLabel(code) }));
  b.append(face);
  b.addEventListener("click", () => send({ type: "action", action: call.action }));
  return b;
}
