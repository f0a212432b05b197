// Finished games and the double-dummy review of one.

import { SUIT_SYMBOL, cardLabel, has, language, t } from "./i18n.js";
import { openDialog } from "./sheet.js";
import { $, app, contractText, shortCard } from "./state.js";

export async function openGames() {
  openDialog("#dlg-games");
  const body = $("#games-body");
  body.replaceChildren();
  $("#games-status").textContent = "";
  const games = await (await fetch("/api/games?finished=1")).json();
  if (!games.length) {
    body.textContent = t("no_games");
    return;
  }
  const ul = document.createElement("ul");
  ul.className = "games";
  for (const g of games) {
    const li = document.createElement("li");
    const when = new Date(g.updated * 1000).toLocaleString(language());
    const score = g.score ? `${g.score.NS}–${g.score.EW}` : "";
    const name = has(`variant_${g.variant}`) ? t(`variant_${g.variant}`) : g.variant;
    li.append(`${name} · ${when} · ${score} · `);
    const a = document.createElement("a");
    a.href = `/api/games/${g.id}/record`;
    a.download = `whistkit-${g.id}.json`;
    a.textContent = t("download");
    a.dataset.record = g.id;
    li.append(a, " · ");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.textContent = t("btn_review");
    b.dataset.review = g.id;
    b.addEventListener("click", () => openReview(g.id));
    li.append(b);
    ul.append(li);
  }
  body.append(ul);
}

export async function openReview(id) {
  const status = $("#games-status");
  const buttons = document.querySelectorAll("#games-body [data-review]");
  for (const b of buttons) b.disabled = true;
  status.textContent = t("review_working");
  let data = null;
  try {
    const r = await fetch(`/api/games/${id}/analysis`);
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    data = body;
  } catch (err) {
    status.textContent = t("review_failed", { error: err.message });
    return;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
  status.textContent = "";
  if (!$("#dlg-games").open) return; // closed while the review was worked out
  renderReview(data);
  openDialog("#dlg-review");
}

export function renderReview(data) {
  const body = $("#review-body");
  body.replaceChildren();
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  const side = t("side_ns").replace("–", "\u2060–\u2060"); // "N–S" is not broken
  const cols = [
    ["col-hand", t("col_hand")],
    ["col-contract", t("col_contract")],
    ["col-par", t("col_par", { side })],
    ["col-tricks", t("col_tricks_side", { side })],
    ["col-given", t("col_given")],
  ];
  for (const [cls, text] of cols) {
    const th = document.createElement("th");
    th.className = cls;
    th.textContent = text;
    head.append(th);
  }
  const tbody = table.createTBody();
  for (const h of data.hands) {
    const row = tbody.insertRow();
    row.dataset.hand = String(h.number);
    const given = document.createElement("ul");
    given.className = "given";
    for (const c of h.cards) {
      if (c.seat !== app.seat || !c.loss) continue;
      const li = document.createElement("li");
      li.dataset.card = c.card;
      const best = c.best.slice(0, 3).map(shortCard).join(" ") + (c.best.length > 3 ? " …" : "");
      li.textContent = t("review_mistake", { trick: c.trick, card: shortCard(c.card), loss: c.loss, best });
      li.title = cardLabel(c.card);
      given.append(li);
    }
    if (!given.children.length) given.textContent = t("review_none");
    const cells = [
      String(h.number),
      contractText({
        code: h.contract,
        trump: SUIT_SYMBOL[h.contract] ? h.contract : null,
        aces_low: h.aces_low,
      }),
      h.par_ns === null ? "?" : String(h.par_ns),
      h.tricks_ns === null ? "?" : String(h.tricks_ns),
      given,
    ];
    cells.forEach((v, i) => {
      const td = row.insertCell();
      td.className = cols[i][0];
      td.append(v);
    });
  }
  body.append(table);
  const seats = data.seats;
  const lost = (a, b) => (seats[a]?.tricks_lost ?? 0) + (seats[b]?.tricks_lost ?? 0);
  const summary = document.createElement("p");
  summary.className = "summary";
  summary.dataset.summary = "";
  summary.textContent = t("review_summary", {
    ns_side: t("side_ns"), ns: lost("N", "S"), ew_side: t("side_ew"), ew: lost("E", "W"),
  });
  body.append(summary);
  const unsolved = Object.values(seats).reduce((n, s) => n + s.unsolved, 0);
  if (unsolved) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = t("review_unsolved", { n: unsolved });
    body.append(p);
  }
}
