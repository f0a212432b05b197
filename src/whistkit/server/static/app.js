// The whistkit web game: renders the seat's view from the server and sends its actions.
// The server is authoritative; this page only shows what the server sends for its seat.
//
// Modules: state.js (the page's state, helpers), connection.js (WebSocket, protocol,
// paced events), table.js (header, tally, trump, trick, status), seats.js, hand.js (your
// hand, playing, hints), keys.js, actions.js, handend.js (end of hand, game over),
// sheet.js (last trick, score sheet), newgame.js, review.js (games, review), rules.js
// (how to play), motion.js (pace, travel, gather).

import { LANGUAGES, languageName, pickLanguage, setLanguage, t } from "./i18n.js";
import { initChat, renderPhrases } from "./chat.js";
import { connect, send, startGame } from "./connection.js";
import { arriveByLink, openInvite, showFriends, updateTools } from "./friends.js";
import { eveningLink, startEvening } from "./evening.js";
import { joinLink, rerenderJoin, startJoin } from "./join.js";
import { createEvening, openOrganise } from "./organise.js";
import { askHint } from "./hand.js";
import { dismissHandEnd } from "./handend.js";
import { onKey } from "./keys.js";
import { setPace } from "./motion.js";
import { askNew, fillOptions, openNew, startNew } from "./newgame.js";
import { openGames } from "./review.js";
import { openRules } from "./rules.js";
import { rerenderRoom, roomLink, startRoom } from "./room.js";
import { openDialog, renderLast, renderSheet } from "./sheet.js";
import { $, app, GAME_KEY, gameEntry, rememberGame, TOKEN_KEY } from "./state.js";
import { render, showMessage } from "./table.js";

async function main() {
  const lang = await setLanguage(pickLanguage());
  const sel = $("#lang");
  for (const l of LANGUAGES) {
    const o = document.createElement("option");
    o.value = l;
    o.textContent = languageName(l);
    sel.append(o);
  }
  sel.value = lang;
  sel.addEventListener("change", async () => {
    await setLanguage(sel.value, true);
    render();
    renderPhrases();
    rerenderRoom();
    rerenderJoin();
    if ($("#dlg-new").open) openNew();
    if ($("#dlg-invite").open) openInvite();
    if ($("#dlg-rules").open) openRules($("#rules-variant").value, true);
  });
  $("#btn-new").addEventListener("click", askNew);
  $("#confirm-yes").addEventListener("click", openNew);
  $("#btn-last").addEventListener("click", () => { renderLast(); openDialog("#dlg-last"); });
  $("#btn-sheet").addEventListener("click", () => { renderSheet(); openDialog("#dlg-sheet"); });
  $("#btn-hint").addEventListener("click", askHint);
  $("#btn-help").addEventListener("click", () => openDialog("#dlg-help"));
  $("#btn-rules").addEventListener("click", () => openRules());
  $("#btn-games").addEventListener("click", openGames);
  $("#result-new").addEventListener("click", openNew);
  $("#banner-new").addEventListener("click", openNew);
  $("#result-sheet").addEventListener("click", () => { renderSheet(); openDialog("#dlg-sheet"); });
  $("#new-variant").addEventListener("change", fillOptions);
  $("#new-friends").addEventListener("change", showFriends);
  $("#btn-table").addEventListener("click", openInvite);
  $("#host-start").addEventListener("click", () => send({ type: "host", op: "start" }));
  // ending the table asks once more on the button itself
  $("#host-end").addEventListener("click", (e) => {
    const b = e.currentTarget;
    if (b.dataset.armed !== "true") {
      b.dataset.armed = "true";
      b.textContent = t("host_end_confirm");
      return;
    }
    send({ type: "host", op: "end" });
  });
  initChat();
  $("#new-rules").addEventListener("click", () => openRules($("#new-variant").value, true));
  $("#pace").addEventListener("change", (e) => setPace(e.target.value));
  $("#new-cancel").addEventListener("click", () => $("#dlg-new").close());
  $("#new-evening").addEventListener("click", openOrganise);
  $("#ev-form").addEventListener("submit", (e) => { e.preventDefault(); createEvening(); });
  $("#ev-form").addEventListener("input", () => { $("#ev-error").textContent = ""; });
  $("#new-form").addEventListener("submit", (e) => { e.preventDefault(); startNew(); });
  // an error names what was wrong with the last try; it goes once the dialog is changed
  $("#new-form").addEventListener("input", () => { $("#new-error").textContent = ""; });
  $("#hand-end").addEventListener("click", dismissHandEnd);
  for (const b of document.querySelectorAll("dialog .close")) b.addEventListener("click", () => b.closest("dialog").close());
  document.addEventListener("keydown", onKey);
  // Space activates a button on key-up: the card was already played on key-down
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && e.target instanceof HTMLButtonElement && e.target.classList.contains("card")) e.preventDefault();
  });
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("game") && hash.get("token")) {
    app.game = hash.get("game");
    app.token = hash.get("token");
    localStorage.setItem(GAME_KEY, app.game);
    localStorage.setItem(TOKEN_KEY, app.token);
  }
  const evening = eveningLink();
  const inRoom = roomLink();
  const joining = joinLink();
  if (joining) {
    await startJoin(joining); // an online evening's open join link: a name, then their link
  } else if (inRoom) {
    await startRoom(inRoom); // an online evening's room: the leaderboard
  } else if (evening) {
    await startEvening(evening); // a player's link of an online evening: their tables
  } else if (await arriveByLink()) {
    // an invite or watch link: the join form, or the table
  } else if (app.game && gameEntry(app.game) && gameEntry(app.game).shared) {
    const entry = gameEntry(app.game);
    showMessage(t("connecting"));
    startGame(app.game, entry.seat, entry.token);
  } else if (app.game) {
    if (app.token) rememberGame(app.game, app.token);
    updateTools();
    showMessage(t("connecting"));
    connect();
  } else {
    await openNew(); // ready means ready to use: the new-game dialog is already open
  }
  document.body.dataset.ready = "true";
}

main();
