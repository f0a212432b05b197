// The end of a hand (a panel over the middle of the table, until the next card or a click)
// and the end of the game (a dialog recapping every hand, or for a rubber every game).

import { t } from "./i18n.js";
import { releaseHold } from "./connection.js";
import { gameLine, sheetTable, sideName } from "./sheet.js";
import { bottomsText } from "./table.js";
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
  // laws mode: a revoke that stood, who claimed it and what it cost, first
  for (const line of revokeLines(r)) {
    const p = document.createElement("p");
    p.className = "revoke";
    p.append(withSuits(line));
    panel.append(p);
  }
  const notes = [];
  // Swedish: what the bottom cards made, and whether the declarer made it
  const swedish = swedishLines(r);
  if (swedish) {
    const p = document.createElement("p");
    p.className = "made";
    p.append(withSuits(swedish));
    panel.append(p);
  }
  if (r.extra && nonzero(r.extra.honours)) notes.push(`${t("honours")} ${pair(r.extra.honours).join("–")}`);
  if (r.extra && r.extra.game && typeof r.extra.game === "object") {
    // the game this hand ended: the match's last, or the next one while the view shown is
    // still the one before the hand's end (its next deal not shown yet)
    const games = v.match && Array.isArray(v.match.games) ? v.match.games : [];
    const key = (g) => JSON.stringify([sideName(g.winner), pair(g.score || [0, 0]), g.value]);
    const listed = games.length && key(games[games.length - 1]) === key(r.extra.game);
    notes.push(gameLine(listed ? games.length : games.length + 1, r.extra.game));
  }
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

// the hand's established revokes in words: who revoked (card, trick), then who claimed
// and what it cost, or why it cost nothing
export function revokeLines(r) {
  const extra = r.extra || {};
  const revokes = Array.isArray(extra.revokes) ? extra.revokes.filter((x) => x && typeof x.seat === "string") : [];
  if (!revokes.length) return [];
  const lines = revokes.map((x) => t(x.seat === app.seat && app.role !== "watch" ? "revoke_established_you" : "revoke_established", {
    seat: seatName(x.seat), card: isCard(x.card) ? shortCard(x.card) : "?", trick: x.trick,
  }));
  const side = (s) => t(s === "NS" ? "side_ns" : "side_ew");
  const count = { NS: 0, EW: 0 };
  for (const x of revokes) count[sideOf(x.seat)] += 1;
  if (extra.void) return [...lines, t("revoke_void")];
  const offenders = count.NS > count.EW ? "NS" : count.EW > count.NS ? "EW" : null;
  if (!offenders) return [...lines, t("revoke_cancel")];
  const claimants = offenders === "NS" ? "EW" : "NS";
  if (!extra.penalised) return [...lines, t("revoke_not_claimed", { side: side(claimants) })];
  let cost = "";
  if (extra.penalties && nonzero(extra.penalties)) {
    const [ns, ew] = pair(extra.penalties);
    cost = [["NS", ns], ["EW", ew]].filter(([, n]) => n).map(([s, n]) => `${side(s)} ${signed(n)}`).join(", ");
    cost = t("revoke_cost_points", { points: cost });
  } else if (extra.tricks_played) {
    const [ns] = pair(extra.tricks_played);
    const moved = ns - r.tricks.NS; // > 0: N-S gave tricks away
    if (moved) cost = t("revoke_cost_tricks", { n: Math.abs(moved), from: side(moved > 0 ? "NS" : "EW"), to: side(moved > 0 ? "EW" : "NS") });
  }
  return [...lines, t("revoke_claimed", { side: side(claimants) }) + (cost ? ` ${cost}` : "")];
}

function swedishLines(r) {
  const c = r.contract;
  if (!c || !["SPEL", "NOLLSPEL"].includes(c.code) || !r.tricks) return "";
  const parts = [];
  const extra = r.extra || {};
  // the bottom cards turned up, as the table showed them (in reveal order)
  if (Array.isArray(extra.revealed) && extra.bottom && typeof extra.bottom === "object") {
    const bottom = Array.isArray(extra.bottom) ? Object.fromEntries(["N", "E", "S", "W"].map((s, i) => [s, extra.bottom[i]])) : extra.bottom;
    const shown = Object.fromEntries(extra.revealed.filter((s) => isCard(bottom[s])).map((s) => [s, bottom[s]]));
    const text = bottomsText(c, shown);
    if (text) parts.push(text);
  }
  const side = (s) => t(s === "NS" ? "side_ns" : "side_ew");
  if (c.code === "SPEL" && c.declarer) {
    const s = sideOf(c.declarer);
    const n = r.tricks[s];
    parts.push(t(n >= 7 ? "spel_made" : "spel_failed", { seat: seatName(c.declarer), side: side(s), n }));
  } else if (c.code === "NOLLSPEL") {
    const s = r.tricks.NS <= 6 ? "NS" : "EW";
    parts.push(t("nollspel_made", { side: side(s), n: r.tricks[s] }));
  }
  return parts.join(" ");
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
