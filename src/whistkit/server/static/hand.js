// Your hand: which cards may be played, playing them by mouse and keyboard, hints.

import { cardLabel, t } from "./i18n.js";
import { actionLabel } from "./actions.js";
import { send } from "./connection.js";
import { openNew } from "./newgame.js";
import { openDialog, renderLast, renderSheet } from "./sheet.js";
import { $, app, cardImg, RANKS, shortCard } from "./state.js";
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

export function renderHand(v) {
  const hand = $("#hand");
  hand.setAttribute("aria-label", t("your_hand"));
  if (app.picking && !(v.irregular || []).some((a) => a.type === "action" && a.action.kind === app.picking)) app.picking = null;
  const legal = legalCards(v);
  const irregular = irregularCards(v);
  hand.dataset.picking = app.picking || "";
  const hadFocus = hand.contains(document.activeElement);
  hand.replaceChildren();
  if (app.selected >= v.hand.length) app.selected = Math.max(0, v.hand.length - 1);
  v.hand.forEach((code, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "card";
    b.dataset.card = code;
    b.setAttribute("aria-label", cardLabel(code));
    b.tabIndex = i === app.selected ? 0 : -1;
    if (legal.has(code)) b.dataset.legal = "true";
    else if (irregular.has(code)) b.dataset.irregular = "true"; // laws mode: playable, unlawful
    else b.setAttribute("aria-disabled", "true");
    if (i === app.selected) b.classList.add("selected");
    if (hintCard() === code) { b.classList.add("hint"); b.dataset.hint = "true"; }
    b.append(cardImg(code));
    b.addEventListener("click", () => { app.selected = i; playCard(code); });
    hand.append(b);
  });
  if (hadFocus) focusSelected();
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
  if (!action) action = irregularCards(v).get(code); // laws mode: a revoke
  if (!action) {
    const led = v.trick.length ? v.trick[0].card[1] : null;
    if (led && v.hand.some((c) => c[1] === led)) return showMessage(t("refused_follow", { suit: t(`suit_${led}`) }));
    return showMessage(t("refused_action"));
  }
  app.message = null;
  send(action.type === "play" ? { type: "play", card: code } : { type: "action", action: action.action });
}

export function focusSelected() {
  const b = $("#hand").children[app.selected];
  if (b) b.focus();
}

export function select(delta) {
  const n = app.view ? app.view.hand.length : 0;
  if (!n) return;
  app.selected = (app.selected + delta + n) % n;
  for (const [i, b] of [...$("#hand").children].entries()) {
    b.classList.toggle("selected", i === app.selected);
    b.tabIndex = i === app.selected ? 0 : -1;
  }
  focusSelected();
}

export function selectCode(code) {
  const v = app.view;
  if (!v) return;
  const i = v.hand.indexOf(code);
  if (i >= 0) { app.selected = i; select(0); }
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
  if (app.hint) { render(); return; } // already shown for this position
  if (app.hintAsked === app.version) return; // on its way
  app.hintAsked = app.version;
  showMessage(t("hint_working"));
  send({ type: "hint" });
}

export function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const openDlg = document.querySelector("dialog[open]");
  if (!openDlg && e.key === "Escape" && app.picking) { app.picking = null; render(); return; }
  if (openDlg) {
    // in a dialog only its own keys work; the letters toggle their dialogs shut
    const k = e.key.toLowerCase();
    const own = { "dlg-last": "l", "dlg-sheet": "s", "dlg-help": "?" }[openDlg.id];
    if (own && (k === own || e.key === own)) { e.preventDefault(); openDlg.close(); }
    else if (openDlg.id === "dlg-result" && k === "n") { e.preventDefault(); openNew(); }
    return;
  }
  const target = e.target;
  if (target instanceof HTMLSelectElement || target instanceof HTMLInputElement) return;
  const key = e.key;
  const upper = key.length === 1 ? key.toUpperCase() : key;
  const now = Date.now();
  if (app.typed && now - app.typedAt > 3000) app.typed = "";
  if (app.typed && "SHDC".includes(upper) && upper.length === 1) {
    e.preventDefault();
    const code = app.typed + upper;
    app.typed = "";
    selectCode(code);
    playCard(code);
    return;
  }
  if (key === "ArrowLeft") { e.preventDefault(); select(-1); return; }
  if (key === "ArrowRight") { e.preventDefault(); select(1); return; }
  if (key === "Enter" || key === " ") {
    if (target instanceof HTMLButtonElement && !target.classList.contains("card")) return;
    e.preventDefault();
    const v = app.view;
    if (v && v.hand[app.selected]) playCard(v.hand[app.selected]);
    return;
  }
  if (key === "?") { e.preventDefault(); openDialog("#dlg-help"); return; }
  if (upper === "N") { e.preventDefault(); openNew(); return; }
  if (upper === "L") { e.preventDefault(); renderLast(); openDialog("#dlg-last"); return; }
  if (upper === "S") { e.preventDefault(); renderSheet(); openDialog("#dlg-sheet"); return; }
  if (upper === "H") { e.preventDefault(); askHint(); return; }
  if (upper === "1") { app.typed = "1"; app.typedAt = now; return; }
  if (upper === "0" && app.typed === "1") { app.typed = "T"; app.typedAt = now; return; }
  if (upper.length === 1 && RANKS.includes(upper)) { e.preventDefault(); app.typed = upper; app.typedAt = now; }
}
