// Dialogs about the game so far: the last trick, the score sheet (with a line after each
// game of a rubber, and the rubber's net at its foot).

import { t } from "./i18n.js";
import { $, app, cardFace, contractText, formatValue, nonzero, pair, seatName, trickWonText, withSuits } from "./state.js";

export function closeDialogs() {
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
}

export function openDialog(id) {
  closeDialogs();
  $(id).showModal();
}

export function renderLast() {
  const body = $("#last-body");
  body.replaceChildren();
  const v = app.view;
  const last = v && v.trick.length === 0 && app.doneTrick ? app.doneTrick : v && v.last_trick;
  if (!last) {
    body.textContent = t("no_last");
    return;
  }
  for (const { seat, card } of last.cards) {
    const row = document.createElement("div");
    row.className = "played";
    const who = document.createElement("span");
    who.textContent = seatName(seat);
    row.append(who, cardFace(card));
    if (seat === last.winner) row.classList.add("winner");
    body.append(row);
  }
  if (last.winner) {
    const p = document.createElement("p");
    p.textContent = trickWonText(last.winner);
    body.append(p);
  }
}

// a side from the server's game winner: "NS"/"EW", or a seat letter, or 0/1
export function sideName(winner) {
  if (winner === "NS" || winner === "N" || winner === "S" || winner === 0) return "NS";
  if (winner === "EW" || winner === "E" || winner === "W" || winner === 1) return "EW";
  return null;
}

// "Game 1 to E–W (N–S 0, E–W 7), worth 3": N–S first, as in the games line at the table
export function gameLine(i, game) {
  const side = sideName(game.winner);
  const [ns, ew] = pair(game.score || [0, 0]);
  const score = `${t("side_ns")} ${ns}, ${t("side_ew")} ${ew}`;
  return t("game_line", { n: i, side: formatValue(side), score, value: game.value });
}

// the games of a rubber so far, N–S first as everywhere else (the end-of-hand panel, the
// sheet): "Games won: N–S 0, E–W 1 (worth 3)"
export function gamesWonText(games) {
  const side = (key) => {
    const won = games.filter((g) => sideName(g.winner) === key);
    const worth = won.reduce((sum, g) => sum + (Number(g.value) || 0), 0);
    const text = t("games_side", { side: t(key === "NS" ? "side_ns" : "side_ew"), n: won.length });
    return won.length ? `${text} (${t("games_worth", { value: worth })})` : text;
  };
  return t("games_won_line", { list: `${side("NS")}, ${side("EW")}` });
}


const COLS = ["col_hand", "col_contract", "col_dealer", "col_tricks", "col_points", "col_score"];

// the score sheet of ``results`` as a table (the sheet dialog and the game-over recap)
export function sheetTable(results, { dealer = true } = {}) {
  const table = document.createElement("table");
  const cols = dealer ? COLS : COLS.filter((k) => k !== "col_dealer");
  const head = table.createTHead().insertRow();
  for (const k of cols) {
    const th = document.createElement("th");
    th.textContent = t(k);
    th.className = k.replace("_", "-");
    head.append(th);
  }
  const tb = table.createTBody();
  let games = 0;
  for (const r of results) {
    const row = tb.insertRow();
    row.dataset.row = String(r.number);
    const cells = {
      col_hand: String(r.number),
      col_contract: withSuits(contractText(r.contract)),
      col_dealer: seatName(r.dealer),
      col_tricks: `${r.tricks.NS}–${r.tricks.EW}`,
      col_points: `${r.points.NS}–${r.points.EW}`,
      col_score: `${r.score.NS}–${r.score.EW}`,
    };
    for (const k of cols) {
      const td = row.insertCell();
      td.append(cells[k]);
      td.className = k.replace("_", "-");
    }
    const extras = [];
    if (r.extra && r.extra.honours) extras.push(`${t("honours")} ${pair(r.extra.honours).join("–")}`);
    if (r.extra && nonzero(r.extra.penalties)) extras.push(`${t("penalties")} ${pair(r.extra.penalties).join("–")}`);
    if (r.extra && Array.isArray(r.extra.revokes) && r.extra.revokes.length) {
      extras.push(t("revokes_by", { seats: r.extra.revokes.map((x) => seatName(x.seat)).join(", ") }));
    }
    if (extras.length && dealer) {
      // on a line of their own under the points, so that the Score column stays in view
      const extra = document.createElement("span");
      extra.className = "extra";
      extra.textContent = extras.join(", ");
      row.cells[cols.indexOf("col_points")].append(extra);
    }
    // a game ends on this hand: a line under it, the game's result, and the next
    // game's score starts again from 0–0
    const game = r.extra && r.extra.game;
    if (game && typeof game === "object") {
      games += 1;
      row.classList.add("game-end");
      const line = tb.insertRow();
      line.className = "game-line";
      line.dataset.game = String(games);
      const td = line.insertCell();
      td.colSpan = cols.length;
      td.textContent = gameLine(games, game);
    }
    const rubber = r.extra && r.extra.rubber;
    if (rubber && typeof rubber === "object") {
      const line = tb.insertRow();
      line.className = "game-line";
      line.dataset.rubber = "";
      const td = line.insertCell();
      td.colSpan = cols.length;
      td.textContent = t("rubber_won", { side: formatValue(sideName(rubber.winner)), net: rubber.net });
    }
  }
  const cap = table.createCaption();
  cap.textContent = `${t("side_ns")} – ${t("side_ew")}`;
  return table;
}

export function renderSheet() {
  const body = $("#sheet-body");
  body.replaceChildren();
  const v = app.view;
  if (!v || !v.results.length) {
    body.textContent = t("no_hands");
    return;
  }
  body.append(sheetTable(v.results));
}
