// Dialogs about the game so far: the last trick, the score sheet.

import { t } from "./i18n.js";
import { $, app, cardFace, contractText, nonzero, pair, seatName, trickWonText } from "./state.js";

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

export function renderSheet() {
  const body = $("#sheet-body");
  body.replaceChildren();
  const v = app.view;
  if (!v || !v.results.length) {
    body.textContent = t("no_hands");
    return;
  }
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  const cols = ["col_hand", "col_contract", "col_dealer", "col_tricks", "col_points", "col_score"];
  for (const k of cols) {
    const th = document.createElement("th");
    th.textContent = t(k);
    th.className = k.replace("_", "-");
    head.append(th);
  }
  const tb = table.createTBody();
  for (const r of v.results) {
    const row = tb.insertRow();
    const cells = [String(r.number), contractText(r.contract), seatName(r.dealer), `${r.tricks.NS}–${r.tricks.EW}`, `${r.points.NS}–${r.points.EW}`, `${r.score.NS}–${r.score.EW}`];
    cells.forEach((c, i) => {
      const td = row.insertCell();
      td.textContent = c;
      td.className = cols[i].replace("_", "-");
    });
    const extras = [];
    if (r.extra && r.extra.honours) extras.push(`${t("honours")} ${pair(r.extra.honours).join("–")}`);
    if (r.extra && nonzero(r.extra.penalties)) extras.push(`${t("penalties")} ${pair(r.extra.penalties).join("–")}`);
    if (r.extra && Array.isArray(r.extra.revokes) && r.extra.revokes.length) {
      extras.push(t("revokes_by", { seats: r.extra.revokes.map((x) => seatName(x.seat)).join(", ") }));
    }
    if (extras.length) {
      // on a line of their own under the points, so that the Score column stays in view
      const extra = document.createElement("span");
      extra.className = "extra";
      extra.textContent = extras.join(", ");
      row.cells[4].append(extra);
    }
  }
  const cap = table.createCaption();
  cap.textContent = `${t("side_ns")} – ${t("side_ew")}`;
  body.append(table);
}
