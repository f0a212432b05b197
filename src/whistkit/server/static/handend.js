// The end of a hand (a panel over the middle of the table, until the next card or a click)
// and the end of the game (a dialog recapping every hand, or for a rubber every game).

import { t } from "./i18n.js";
import { releaseHold } from "./connection.js";
import { gameLine, sheetTable, sideName } from "./sheet.js";
import {
  $, app, contractText, formatValue, isCard, nonzero, pair, seatName, shortCard, sideOf, sortHand, withSuits,
} from "./state.js";

export function renderHandEnd() {
  const panel = $("#hand-end");
  const r = app.handEnd;
  const v = app.view;
  if (!r || !v || v.winner) {
    panel.hidden = true;
    panel.replaceChildren();
    return;
  }
  panel.replaceChildren();
  panel.dataset.ended = String(r.number);
  const h = document.createElement("h3");
  h.append(withSuits(`${t("hand_over", { n: r.number })} · ${contractText(r.contract)}`));
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const k of ["", "col_tricks", "col_points", "col_score"]) {
    const th = document.createElement("th");
    th.textContent = k ? t(k) : "";
    head.append(th);
  }
  const mine = sideOf(app.seat);
  const body = table.createTBody();
  for (const side of ["NS", "EW"]) {
    const row = body.insertRow();
    row.dataset.side = side;
    const who = `${t(side === mine ? "we" : "they")} (${t(side === "NS" ? "side_ns" : "side_ew")})`;
    const cells = [who, String(r.tricks[side]), signed(r.points[side]), String(r.score[side])];
    cells.forEach((c, i) => {
      const td = row.insertCell();
      td.textContent = c;
      if (i) td.className = "num";
    });
  }
  panel.append(h, table);
  const notes = [];
  if (r.extra && nonzero(r.extra.honours)) notes.push(`${t("honours")} ${pair(r.extra.honours).join("–")}`);
  if (r.extra && r.extra.game && typeof r.extra.game === "object") notes.push(gameLine(v.match && v.match.games ? v.match.games.length : 1, r.extra.game));
  notes.push(t("hand_end_next"));
  // a watcher of a table that shows them: the hands as they were dealt
  const shown = app.shownHands;
  if (app.role === "watch" && shown && shown.number === r.number) panel.append(dealtHands(shown.hands));
  for (const n of notes) {
    const p = document.createElement("p");
    p.textContent = n;
    panel.append(p);
  }
  panel.hidden = false;
}

function dealtHands(hands) {
  const box = document.createElement("div");
  box.className = "dealt";
  box.dataset.hands = "true";
  for (const seat of ["N", "E", "S", "W"]) {
    const cards = Array.isArray(hands[seat]) ? hands[seat].filter(isCard) : [];
    if (!cards.length) continue;
    const row = document.createElement("p");
    row.dataset.seat = seat;
    const who = document.createElement("b");
    who.textContent = `${seatName(seat)}: `;
    row.append(who, withSuits(sortHand(cards, null).map(shortCard).join(" ")));
    box.append(row);
  }
  return box;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

// a click anywhere on the panel puts it away
export function dismissHandEnd() {
  app.handEnd = null;
  renderHandEnd();
  releaseHold();
}

export function renderResult(v) {
  const dlg = $("#dlg-result");
  const banner = $("#result-banner");
  if (!v.winner) {
    banner.removeAttribute("data-result");
    banner.hidden = true;
    if (dlg.open) dlg.close();
    return;
  }
  if (app.evening) {
    // an online evening's hand: the evening's panel says how it went and where to go
    banner.hidden = true;
    return;
  }
  const mine = sideOf(app.seat);
  let text = v.winner === "draw" ? t("result_draw") : v.winner === mine ? t("result_win") : t("result_loss");
  // a watcher is on neither side
  if (app.role === "watch" && v.winner !== "draw") text = t("result_side_won", { side: t(v.winner === "NS" ? "side_ns" : "side_ew") });
  let score = t("final_score", { ns: `${t("side_ns")} ${v.score.NS}`, ew: `${v.score.EW} ${t("side_ew")}` });
  // a rubber is won by games, not by the last game's score: say so
  const rubber = v.match && v.match.rubber;
  if (rubber && rubber.winner) score = t("rubber_won", { side: formatValue(sideName(rubber.winner)), net: rubber.net });
  $("#result-text").textContent = text;
  $("#result-score").textContent = score;
  renderRecap(v);
  banner.dataset.result = v.winner;
  banner.hidden = false;
  $("#banner-text").textContent = `${text} ${score}`;
  // shown once per game; the banner attribute stays for as long as the game is over
  if (app.resultShown !== app.game && !document.querySelector("dialog[open]")) {
    app.resultShown = app.game;
    dlg.showModal();
    $("#result-new").focus();
  }
}

// the game's recap: each game of a rubber and the net, then every hand
function renderRecap(v) {
  const box = $("#result-recap");
  box.replaceChildren();
  const games = (v.match && Array.isArray(v.match.games)) ? v.match.games : [];
  if (games.length > 1 || (v.match && v.match.rubber)) {
    const ul = document.createElement("ul");
    ul.className = "recap-games";
    games.forEach((g, i) => {
      const li = document.createElement("li");
      li.dataset.game = String(i + 1);
      li.textContent = gameLine(i + 1, g);
      ul.append(li);
    });
    box.append(ul);
  }
  if (v.results && v.results.length) box.append(sheetTable(v.results, { dealer: false }));
}
