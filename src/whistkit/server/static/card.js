// A player's score card of an online evening (#34): hand by hand the table, seat, partner,
// opponents, contract, the side's tricks, points and running total (the card the hall
// organiser prints), each hand with its table's record and review. The server lists only
// the hands over at every table (GET /api/online-evenings/ID/card/PLAYER).

import { t } from "./i18n.js";
import { reviewGame } from "./review.js";

const SEATS = ["N", "E", "S", "W"];

export function formatPoints(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

export async function fetchCard(evening, player) {
  const r = await fetch(`/api/online-evenings/${encodeURIComponent(evening)}/card/${encodeURIComponent(player)}`);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function cell(tag, text, cls) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

// the names at a table from the card's line: the player's seat, partner and opponents
function seatNames(name, line) {
  const at = SEATS.indexOf(line.seat);
  return {
    [SEATS[at]]: name,
    [SEATS[(at + 2) % 4]]: line.partner,
    [SEATS[(at + 1) % 4]]: line.opponents[0],
    [SEATS[(at + 3) % 4]]: line.opponents[1],
  };
}

// the card as a table; ``own`` when it is the viewer's card (a review then lists the
// viewer's own costly cards, else every seat's by name); ``status`` shows a review's
// progress
// a finished table's record (a download) and its review (``review(button)`` on a click)
export function gameLinks(game, review) {
  const a = document.createElement("a");
  a.href = `/api/games/${encodeURIComponent(game)}/record`;
  a.download = `whistkit-${game}.json`;
  a.dataset.record = game;
  a.textContent = t("card_record");
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link";
  b.dataset.review = game;
  b.textContent = t("room_review");
  b.addEventListener("click", () => review(b));
  return [a, " · ", b];
}

export function cardTable(card, { own = false, status }) {
  const box = document.createElement("div");
  box.className = "score-card";
  box.dataset.cardPlayer = String(card.player.id);
  if (!card.lines.length) {
    box.append(cell("p", t("card_none"), "note"));
    return box;
  }
  const table = document.createElement("table");
  const head = document.createElement("tr");
  head.className = "head";
  const cols = [
    ["col_hand", "c-hand"], ["card_table", "num"], ["card_seat", ""], ["partner", ""], ["card_opponents", ""],
    ["col_tricks", "num"], ["col_points", "num"], ["room_total", "num"], ["card_record", ""],
  ];
  for (const [k, cls] of cols) head.append(cell("th", t(k), cls));
  table.append(head);
  for (const line of card.lines) {
    const tr = document.createElement("tr");
    tr.dataset.hand = String(line.hand);
    tr.dataset.won = String(line.won);
    const hand = cell("td", `${line.hand} · ${t(`contract_${line.contract}`)}`, "c-hand");
    const links = document.createElement("td");
    links.className = "links";
    const viewer = { seat: own ? line.seat : null, names: seatNames(card.player.name, line) };
    links.append(...gameLinks(line.game, (b) => reviewGame(line.game, viewer, status, b)));
    const cells = [
      hand, cell("td", String(line.table), "num"), cell("td", t(`seat_${line.seat}`)),
      cell("td", line.partner), cell("td", line.opponents.join(", ")),
      cell("td", String(line.tricks), "num"), cell("td", formatPoints(line.points), "num"),
      cell("td", formatPoints(line.total), "num total"), links,
    ];
    // each cell names its column, for a phone's narrow card (a line per hand, wrapped)
    cells.forEach((td, i) => { if (i > 0 && i < cols.length - 1) td.dataset.label = t(cols[i][0]); });
    tr.append(...cells);
    table.append(tr);
  }
  const wrap = document.createElement("div");
  wrap.className = "score-card-scroll";
  wrap.append(table);
  box.append(wrap);
  return box;
}
