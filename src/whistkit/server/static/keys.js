// The keyboard: the table's keys (see the Keys dialog), and in a dialog only its own.

import { toggleChat } from "./chat.js";
import { askHint, playCard, select, selectCode } from "./hand.js";
import { dismissHandEnd } from "./handend.js";
import { askNew, openNew } from "./newgame.js";
import { openGames } from "./review.js";
import { openRules } from "./rules.js";
import { openDialog, renderLast, renderSheet } from "./sheet.js";
import { $, app, RANKS } from "./state.js";
import { render } from "./table.js";

export function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  // the chat's keys are its own: typing there plays nothing; Escape closes it
  if (e.target instanceof Element && e.target.closest("#chat")) {
    if (e.key === "Escape") { e.preventDefault(); toggleChat(false); $("#btn-chat").focus(); }
    return;
  }
  const openDlg = document.querySelector("dialog[open]");
  if (!openDlg && e.key === "Escape" && app.picking) { app.picking = null; render(); return; }
  if (!openDlg && e.key === "Escape" && app.armed) { app.armed = null; render(); return; }
  if (!openDlg && e.key === "Escape" && app.handEnd) { dismissHandEnd(); return; }
  // the hand's end waits for the player: Enter or Space goes on to the next hand; where
  // nothing holds it back (pace 0) they put the panel away while it is not your turn (on
  // your turn they play your card, and the panel goes with it); a button's own Enter
  // stays the button's
  const onButton = e.target instanceof HTMLButtonElement && !e.target.classList.contains("card");
  const panelUp = app.handEnd && !$("#hand-end").hidden && !onButton && app.view && app.view.to_play !== app.seat;
  if (!openDlg && (e.key === "Enter" || e.key === " ") && (app.release || panelUp)) {
    e.preventDefault();
    dismissHandEnd();
    return;
  }
  if (openDlg) {
    // in a dialog only its own keys work; the letters toggle their dialogs shut
    const k = e.key.toLowerCase();
    const own = { "dlg-last": "l", "dlg-sheet": "s", "dlg-help": "?", "dlg-rules": "r", "dlg-games": "g" }[openDlg.id];
    if (own && (k === own || e.key === own)) { e.preventDefault(); openDlg.close(); }
    else if (openDlg.id === "dlg-result" && k === "n") { e.preventDefault(); openNew(); }
    return;
  }
  const target = e.target;
  // a field takes its own keys; one left in a dialog just closed is not one (Chromium
  // keeps the focus there until its next frame, and a quick N after Escape was lost)
  const field = target instanceof HTMLSelectElement || target instanceof HTMLInputElement;
  if (field && !target.closest("dialog:not([open])")) return;
  // arriving by an invite, before sitting down: no game, no game's keys
  if (app.joining) return;
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
    document.querySelector("#hand").dataset.keys = "true";
    if (app.selectedCard) playCard(app.selectedCard);
    return;
  }
  if (key === "?") { e.preventDefault(); openDialog("#dlg-help"); return; }
  if (upper === "N" && app.role !== "watch") { e.preventDefault(); askNew(); return; }
  if (upper === "L") { e.preventDefault(); renderLast(); openDialog("#dlg-last"); return; }
  if (upper === "S") { e.preventDefault(); renderSheet(); openDialog("#dlg-sheet"); return; }
  if (upper === "H" && app.role !== "watch") { e.preventDefault(); askHint(); return; }
  if (upper === "R") { e.preventDefault(); openRules(); return; }
  if (upper === "G") { e.preventDefault(); openGames(); return; }
  if (upper === "1") { app.typed = "1"; app.typedAt = now; return; }
  if (upper === "0" && app.typed === "1") { app.typed = "T"; app.typedAt = now; return; }
  if (upper.length === 1 && RANKS.includes(upper)) { e.preventDefault(); app.typed = upper; app.typedAt = now; }
}
