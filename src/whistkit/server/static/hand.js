// Your hand: sorted as a player holds it, which cards may be played, playing them by mouse
// and keyboard (the selection only ever rests on a card you may play), hints, and your
// only legal card played for you.

import { cardLabel, t } from "./i18n.js";
import { actionLabel } from "./actions.js";
import { send } from "./connection.js";
import { dismissHandEnd } from "./handend.js";
import { $, app, cardImg, placeChildren, setAttrs, shortCard, sortHand } from "./state.js";
import { render, showMessage } from "./table.js";

export function legalCards(v) {
  const set = new Map();
  if (app.picking) {
    // laws mode: choosing the card of a correction or a replacement
    for (const a of v.irregular || []) {
      if (a.type === "action" && a.action.kind === app.picking) set.set(a.action.card, a);
    }
    return set;
  }
  for (const a of v.legal) {
    if (a.type === "play") set.set(a.card, a);
    else if (a.type === "action" && typeof a.action.card === "string") set.set(a.action.card, a);
  }
  return set;
}

// laws mode: cards that may be played although not lawfully (a revoke)
export function irregularCards(v) {
  const set = new Map();
  if (app.picking) return set;
  for (const a of v.irregular || []) if (a.type === "play") set.set(a.card, a);
  return set;
}

// the hand as shown: the trump suit first, the colours alternating
export function shownHand(v) {
  return sortHand(v.hand, v.contract && v.contract.trump);
}

// the cards the selection may rest on: the playable ones on your turn, else all
function selectable(v, shown) {
  if (v.to_play !== app.seat && !app.picking) return shown;
  const legal = legalCards(v);
  const irregular = irregularCards(v);
  const ok = shown.filter((c) => legal.has(c) || irregular.has(c));
  return ok.length ? ok : shown;
}

export function renderHand(v) {
  const hand = $("#hand");
  if (app.role === "watch") return renderWatched(hand, v);
  delete hand.dataset.watch;
  hand.setAttribute("aria-label", t("your_hand"));
  if (app.picking && !(v.irregular || []).some((a) => a.type === "action" && a.action.kind === app.picking)) app.picking = null;
  const shown = shownHand(v);
  const auto = onlyCard(v);
  const legal = legalCards(v);
  const irregular = irregularCards(v);
  if (app.armed && !irregular.has(app.armed)) app.armed = null;
  hand.dataset.picking = app.picking || "";
  const hadFocus = hand.contains(document.activeElement);
  // the hint's card, once it comes, is where the selection goes
  const hinted = hintCard();
  if (hinted && app.hintSelected !== app.hint.v && shown.includes(hinted)) {
    app.selectedCard = hinted;
    app.hintSelected = app.hint.v;
  }
  const ok = selectable(v, shown);
  if (!ok.includes(app.selectedCard)) app.selectedCard = nearest(shown, ok, app.selectedCard);
  const trump = v.contract && v.contract.trump;
  const buttons = shown.map((code) => {
    const b = cardButtons.get(code) || cardButton(hand, code);
    const classes = ["card"];
    if (trump && code[1] === trump) classes.push("trump");
    if (code === app.selectedCard) classes.push("selected");
    if (hinted === code) classes.push("hint");
    const state = code === auto ? "auto" : legal.has(code) ? "legal" : irregular.has(code) ? "irregular" : null;
    setAttrs(b, {
      class: classes.join(" "),
      "aria-label": cardLabel(code),
      tabindex: code === app.selectedCard ? "0" : "-1",
      "data-auto": state === "auto" ? "true" : null, // being played for you
      "data-legal": state === "legal" ? "true" : null,
      "data-irregular": state === "irregular" ? "true" : null, // laws mode: playable, unlawful
      "aria-disabled": state === null ? "true" : null,
      "data-armed": code === app.armed ? "true" : null,
      "data-hint": hinted === code ? "true" : null,
    });
    return b;
  });
  placeChildren(hand, buttons);
  for (const code of cardButtons.keys()) if (!shown.includes(code)) cardButtons.delete(code);
  if (hadFocus) focusSelected();
  if (auto && app.autoPlayed !== app.version) {
    app.autoPlayed = app.version;
    send({ type: "play", card: auto });
  }
}

// the hand's buttons by card: a card that stays in the hand keeps its button, so that an
// event redraws only what changed
const cardButtons = new Map();

function cardButton(hand, code) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.card = code;
  b.append(cardImg(code));
  b.addEventListener("click", () => {
    hand.dataset.keys = "false"; // the mouse: no keyboard selection shown
    if (app.release) { dismissHandEnd(); return; } // the hand's end was showing
    // the selection stays on a card you may play: a refused click leaves it where it
    // was, and the next Enter plays that card
    const v = app.view;
    if (!v || selectable(v, shownHand(v)).includes(code)) app.selectedCard = code;
    playCard(code);
  });
  cardButtons.set(code, b);
  return b;
}

// a watcher sees South's hand as backs, like the others
function renderWatched(hand, v) {
  const n = (v.hand_sizes || {}).S || 0;
  hand.setAttribute("aria-label", t("cards_left", { n }));
  hand.dataset.watch = "true";
  hand.replaceChildren();
  cardButtons.clear();
  for (let i = 0; i < n; i++) {
    const img = document.createElement("img");
    img.className = "back";
    img.src = "/static/cards/back.svg";
    img.alt = "";
    img.draggable = false;
    hand.append(img);
  }
}

// the card nearest to ``was`` (in the hand's order) among ``ok``
function nearest(shown, ok, was) {
  const at = Math.max(0, shown.indexOf(was));
  let best = ok[0] ?? null;
  let dist = Infinity;
  for (const c of ok) {
    const d = Math.abs(shown.indexOf(c) - at);
    if (d < dist) { best = c; dist = d; }
  }
  return best;
}

// the one card you may play, when it is played for you (never in laws mode, where a
// revoke is yours to make, nor while an action is to be chosen)
function onlyCard(v) {
  if (v.to_play !== app.seat || v.winner || v.phase !== "play" || app.picking) return null;
  if ((v.options && v.options.play_mode === "laws") || (v.irregular || []).length) return null;
  if (v.legal.length !== 1 || v.legal[0].type !== "play") return null;
  return v.legal[0].card;
}

export function playCard(code) {
  const v = app.view;
  if (!v) return;
  if (v.winner) return showMessage(t("refused_over"));
  if (!v.hand.includes(code)) return showMessage(t("refused_not_held"));
  if (v.to_play !== app.seat && !app.picking) return showMessage(t("refused_turn"));
  const legal = legalCards(v);
  let action = legal.get(code);
  if (app.picking) {
    if (!action) return showMessage(t(`prompt_${app.picking}`));
    app.picking = null;
    app.message = null;
    send({ type: "action", action: action.action });
    return;
  }
  if (!action) {
    // laws mode: a revoke is played only when asked for twice
    action = irregularCards(v).get(code);
    if (action && app.armed !== code) {
      app.armed = code;
      app.message = null;
      render();
      return;
    }
  }
  if (!action) {
    const led = v.trick.length ? v.trick[0].card[1] : null;
    if (led && v.hand.some((c) => c[1] === led)) return showMessage(t("refused_follow", { suit: t(`suit_${led}`) }));
    return showMessage(t("refused_action"));
  }
  app.armed = null;
  app.message = null;
  send(action.type === "play" ? { type: "play", card: code } : { type: "action", action: action.action });
}

export function focusSelected() {
  const b = document.querySelector(`#hand [data-card="${app.selectedCard}"]`);
  if (b) b.focus();
}

// the arrows: to the next card you may play (all cards when it is not your turn)
export function select(delta) {
  const v = app.view;
  if (!v || !v.hand.length) return;
  const shown = shownHand(v);
  const ok = selectable(v, shown);
  const i = ok.indexOf(app.selectedCard);
  app.selectedCard = ok[(i < 0 ? 0 : i + delta + ok.length) % ok.length];
  $("#hand").dataset.keys = "true";
  for (const b of $("#hand").children) {
    const on = b.dataset.card === app.selectedCard;
    b.classList.toggle("selected", on);
    b.tabIndex = on ? 0 : -1;
  }
  focusSelected();
}

// a card typed: the selection goes there only if the card may be played
export function selectCode(code) {
  const v = app.view;
  if (v && selectable(v, shownHand(v)).includes(code)) app.selectedCard = code;
}

// the card of the hint in our hand (a card to play, or the Swedish bottom card to show)
export function hintCard() {
  if (!app.hint) return null;
  const a = app.hint.action;
  if (a.type === "play") return a.card;
  return a.type === "action" && typeof a.action.card === "string" ? a.action.card : null;
}

export function hintText(a) {
  if (a.type === "play") return t("hint_card", { card: shortCard(a.card) });
  if (a.action.kind === "BottomCard") return t("hint_bottom", { card: shortCard(a.action.card) });
  return t("hint_action", { action: actionLabel(a.action) });
}

// H or the Hint button: ask the server what a strong player would do now
export function askHint() {
  const v = app.view;
  if (!v) return;
  if (v.winner) return showMessage(t("refused_over"));
  if (v.to_play !== app.seat || !v.legal.length) return showMessage(t("hint_not_turn"));
  if (app.hint) { app.hintSelected = -1; render(); focusSelected(); return; } // shown: select it again
  if (app.hintAsked === app.version) return; // on its way
  app.hintAsked = app.version;
  showMessage(t("hint_working"));
  send({ type: "hint" });
}

