// Finished games and the double-dummy review of one.

import { SUIT_SYMBOL, cardLabel, has, language, t } from "./i18n.js";
import { startGame } from "./connection.js";
import { openDialog } from "./sheet.js";
import { $, app, contractText, gameEntry, knownEvenings, knownGames, shortCard, sideOf, withSuits } from "./state.js";

// the most games one "Games" asks the server about (its limit): the newest remembered
const LISTED_MAX = 200;

// "Games": the unfinished games started in this browser (Continue), then its finished
// ones with who won, the record and the review. The server lists only the games named
// (the ids this browser keeps), so nobody sees the games of others.
export async function openGames() {
  openDialog("#dlg-games");
  const body = $("#games-body");
  body.replaceChildren();
  $("#games-status").textContent = "";
  const mine = knownGames();
  const ids = Object.keys(mine).slice(-LISTED_MAX);
  const listed = ids.length
    ? await fetch(`/api/games?ids=${encodeURIComponent(ids.join(","))}`).then((r) => r.json())
    : [];
  const solo = (id) => { const e = gameEntry(id); return Boolean(e && !e.shared); };
  const unfinished = listed.filter((g) => !g.finished && solo(g.id));
  const done = listed.filter((g) => g.finished);
  const tables = await sharedTables();
  const evenings = Object.values(knownEvenings()).sort((a, b) => (b.at || 0) - (a.at || 0));
  if (evenings.length) body.append(heading(t("games_evenings")), eveningList(evenings));
  if (tables.length) body.append(heading(t("games_shared")), tableList(tables));
  if (unfinished.length) body.append(heading(t("games_unfinished")), gameList(unfinished, continueButton));
  body.append(heading(t("games_finished")));
  if (!done.length) {
    const p = document.createElement("p");
    p.textContent = t("no_games");
    body.append(p);
  } else body.append(gameList(done, finishedLinks));
}

// the shared tables this browser sat at or watched, newest first, each with the server's
// summary (null when the server no longer knows it or the link was reopened for another)
async function sharedTables() {
  const ids = Object.keys(knownGames()).filter((id) => gameEntry(id) && gameEntry(id).shared);
  const rows = await Promise.all(ids.map(async (id) => {
    const e = gameEntry(id);
    let info = null;
    try {
      const r = await fetch(`/api/tables/${encodeURIComponent(id)}`, { headers: { "X-Table-Token": e.token } });
      if (r.ok) info = await r.json();
    } catch {
      info = null;
    }
    return { id, entry: e, info };
  }));
  return rows.sort((a, b) => (b.entry.at || 0) - (a.entry.at || 0));
}

function tableList(rows) {
  const ul = document.createElement("ul");
  ul.className = "games";
  for (const { id, entry, info } of rows) {
    const li = document.createElement("li");
    li.dataset.table = id;
    const variant = (info && info.variant) || entry.variant || "";
    const parts = [has(`variant_${variant}`) ? t(`variant_${variant}`) : variant || "?"];
    if (entry.at) parts.push(new Date(entry.at).toLocaleString(language()));
    parts.push(entry.role === "watch" ? t("games_watching") : t("games_seat", { seat: t(`seat_${entry.seat}`) }));
    if (info && info.seats) {
      const names = Object.values(info.seats).filter((p) => p.kind === "person" && p.name).map((p) => p.name);
      if (names.length) parts.push(names.join(", "));
    }
    if (info && info.score) parts.push(`${t("side_ns")} ${info.score.NS}–${info.score.EW} ${t("side_ew")}`);
    let state = t("games_gone");
    if (info) state = info.finished ? t("games_state_finished") : info.ended ? t("games_state_ended") : t("games_state_playing");
    li.dataset.finished = String(Boolean(info && (info.finished || info.ended)));
    parts.push(state);
    li.append(parts.join(" · "), " · ");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.textContent = t("btn_open");
    b.dataset.open = id;
    b.disabled = id === app.game && !app.replaced;
    b.addEventListener("click", () => {
      $("#dlg-games").close();
      const e = gameEntry(id);
      startGame(id, e.seat, e.token);
    });
    li.append(b);
    ul.append(li);
  }
  return ul;
}

// the online evenings this browser created or was invited to: each opens the host's room
// or the player's page (their secret stays in the link's fragment)
function eveningList(entries) {
  const ul = document.createElement("ul");
  ul.className = "games";
  for (const e of entries) {
    if (typeof e.id !== "string" || !/^[0-9a-zA-Z]{1,32}$/.test(e.id)) continue;
    const host = e.role === "host";
    const secret = host ? e.key : e.token;
    if (typeof secret !== "string") continue;
    const li = document.createElement("li");
    li.dataset.evening = e.id;
    li.dataset.role = host ? "host" : "player";
    const parts = [typeof e.title === "string" && e.title ? e.title : t("ev_default_title")];
    if (e.at) parts.push(new Date(e.at).toLocaleString(language()));
    parts.push(host ? t("games_evening_host") : t("games_evening_player", { name: e.name || "?" }));
    li.append(parts.join(" · "), " · ");
    const a = document.createElement("a");
    const q = host ? `room=${encodeURIComponent(e.id)}#k=` : `evening=${encodeURIComponent(e.id)}#t=`;
    a.href = `/?${q}${encodeURIComponent(secret)}`;
    a.textContent = t("btn_open");
    a.dataset.openEvening = e.id;
    li.append(a);
    ul.append(li);
  }
  return ul;
}

function heading(text) {
  const h = document.createElement("h3");
  h.textContent = text;
  return h;
}

function gameList(games, extra) {
  const ul = document.createElement("ul");
  ul.className = "games";
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.game = g.id;
    const when = new Date(g.updated * 1000).toLocaleString(language());
    const name = has(`variant_${g.variant}`) ? t(`variant_${g.variant}`) : g.variant;
    const parts = [name, when];
    if (g.score) parts.push(`${t("side_ns")} ${g.score.NS}–${g.score.EW} ${t("side_ew")}`);
    if (g.finished) parts.push(winnerText(g.winner));
    li.append(parts.join(" · "), " · ");
    li.append(...extra(g));
    ul.append(li);
  }
  return ul;
}

// who won a finished game, from this seat's side
function winnerText(winner) {
  if (winner === "draw") return t("result_draw_short");
  if (winner !== "NS" && winner !== "EW") return "";
  return t(winner === sideOf(app.seat || "S") ? "won_by_us" : "won_by_them", { side: t(winner === "NS" ? "side_ns" : "side_ew") });
}

function continueButton(g) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link";
  b.textContent = t("btn_continue");
  b.dataset.continue = g.id;
  b.disabled = g.id === app.game;
  b.addEventListener("click", () => {
    $("#dlg-games").close();
    startGame(g.id, "S", gameEntry(g.id).token);
  });
  return [b];
}

function finishedLinks(g) {
  const a = document.createElement("a");
  a.href = `/api/games/${g.id}/record`;
  a.download = `whistkit-${g.id}.json`;
  a.textContent = t("download");
  a.dataset.record = g.id;
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link";
  b.textContent = t("btn_review");
  b.dataset.review = g.id;
  b.addEventListener("click", () => openReview(g.id));
  return [a, " · ", b];
}

// the review is worked out on the server; until it is ready, its progress is shown
async function openReview(id) {
  const status = $("#games-status");
  const buttons = document.querySelectorAll("#games-body [data-review]");
  for (const b of buttons) b.disabled = true;
  const bar = document.createElement("progress");
  bar.max = 1;
  bar.value = 0;
  bar.setAttribute("aria-label", t("review_working"));
  const label = document.createElement("span");
  label.textContent = t("review_working");
  status.replaceChildren(label, bar);
  let data = null;
  try {
    for (;;) {
      const r = await fetch(`/api/games/${id}/analysis?wait=0`);
      const body = await r.json();
      if (!r.ok) throw new Error(body.error || r.statusText);
      if (r.status !== 202) { data = body; break; }
      const { done, total } = body.progress || { done: 0, total: 0 };
      if (total) {
        bar.max = total;
        bar.value = done;
        label.textContent = t("review_progress", { done, total });
      }
      if (!$("#dlg-games").open) return; // closed meanwhile: the server keeps working
      await new Promise((ok) => setTimeout(ok, 250));
    }
  } catch (err) {
    status.textContent = t("review_failed", { error: err.message });
    return;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
  status.textContent = "";
  if (!$("#dlg-games").open) return; // closed while the review was worked out
  $("#dlg-review").dataset.game = id;
  renderReview(data);
  openDialog("#dlg-review");
  if (data.refining) followRefinement(id);
}

// a review with ranges is worked out again on the server with a larger budget: its
// progress is shown in the review, and the refined review replaces it when it is done
async function followRefinement(id) {
  const dialog = $("#dlg-review");
  while (dialog.open) {
    await new Promise((ok) => setTimeout(ok, 1000));
    if (!dialog.open || dialog.dataset.game !== id) return; // closed, or another review
    let body;
    try {
      const r = await fetch(`/api/games/${id}/analysis?wait=0`);
      if (r.status !== 200) continue; // busy, or not ready: ask again
      body = await r.json();
    } catch {
      continue;
    }
    if (!dialog.open || dialog.dataset.game !== id) return;
    if (!body.refining) {
      renderReview(body);
      return;
    }
    showRefining(body.refining);
  }
}

function showRefining({ done, total }) {
  const line = $("#review-body [data-refining]");
  if (!line) return;
  const [label, bar] = line.children;
  if (total) {
    bar.max = total;
    bar.value = done;
    label.textContent = t("review_refining_progress", { done, total });
  }
}

// who looks at a review: ``seat`` the viewer's own seat (their cards are listed: "Your
// cards that cost tricks"), or null for someone who sat at no seat of that table (a room's
// visitor): then every seat's costly cards are listed, each with its player's name from
// ``names`` ({N: "Anna", …}) or its side's
export function seatViewer(seat) {
  return { seat, names: null };
}

export function renderReview(data, viewer = seatViewer(app.seat)) {
  const mine = viewer.seat;
  const who = (seat) => {
    const name = viewer.names && viewer.names[seat];
    return name || t(seat === "N" || seat === "S" ? "side_ns" : "side_ew");
  };
  const body = $("#review-body");
  body.dataset.viewer = mine || "";
  body.replaceChildren();
  if (data.refining) {
    // the ranges are being settled with a deeper search (followRefinement)
    const line = document.createElement("p");
    line.className = "refining";
    line.dataset.refining = "";
    const label = document.createElement("span");
    label.textContent = t("review_refining");
    const bar = document.createElement("progress");
    bar.max = 1;
    bar.value = 0;
    bar.setAttribute("aria-label", t("review_refining"));
    line.append(label, " ", bar);
    body.append(line);
  }
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  const side = t("side_ns").replace("–", "\u2060–\u2060"); // "N–S" is not broken
  const cols = [
    ["col-hand", t("col_hand")],
    ["col-contract", t("col_contract")],
    ["col-par", t("col_par", { side })],
    ["col-tricks", t("col_tricks_side", { side })],
    ["col-given", t(mine ? "col_given" : "col_given_all")],
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
      if ((mine && c.seat !== mine) || !c.loss) continue;
      const li = document.createElement("li");
      li.dataset.card = c.card;
      li.dataset.seat = c.seat;
      const best = c.best.slice(0, 3).map(shortCard).join(" ") + (c.best.length > 3 ? " …" : "");
      const text = t("review_mistake", { trick: c.trick, card: shortCard(c.card), loss: c.loss, best });
      li.append(withSuits(mine ? text : t("review_by", { name: who(c.seat), seat: t(`seat_${c.seat}`), text })));
      li.title = cardLabel(c.card);
      given.append(li);
    }
    if (!given.children.length) {
      const li = document.createElement("li"); // a list holds only items
      li.textContent = t("review_none");
      given.append(li);
    }
    const cells = [
      String(h.number),
      withSuits(contractText({
        code: h.contract,
        trump: SUIT_SYMBOL[h.contract] ? h.contract : null,
        aces_low: h.aces_low,
      })),
      h.par_ns !== null ? String(h.par_ns) : h.par_ns_range ? rangeCell(h.par_ns_range) : unsolvedCell(),
      h.tricks_ns === null ? unsolvedCell() : String(h.tricks_ns),
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

// a par the solver proved to lie in a range within its limit (a single value when the
// position's value settled but not every card's)
function rangeCell([lo, hi]) {
  if (lo === hi) return String(lo);
  const span = document.createElement("span");
  span.className = "range";
  span.dataset.range = `${lo}-${hi}`;
  span.textContent = `${lo}–${hi}`;
  span.title = t("review_par_range");
  return span;
}

// a par the solver did not reach within its limit
function unsolvedCell() {
  const span = document.createElement("span");
  span.className = "unsolved";
  span.dataset.unsolved = "";
  span.textContent = t("not_solved");
  return span;
}

// one finished game's review opened from a list (an evening's room or a score card), its
// progress in ``status``; ``viewer`` as renderReview takes it
export async function reviewGame(game, viewer, status, button) {
  if (button) button.disabled = true;
  status.textContent = t("review_working");
  try {
    for (;;) {
      const r = await fetch(`/api/games/${encodeURIComponent(game)}/analysis?wait=0`);
      const body = await r.json();
      if (!r.ok) throw new Error(body.error || r.statusText);
      if (r.status !== 202) {
        status.textContent = "";
        $("#dlg-review").dataset.game = game;
        renderReview(body, viewer);
        openDialog("#dlg-review");
        return;
      }
      const { done, total } = body.progress || { done: 0, total: 0 };
      if (total) status.textContent = t("review_progress", { done, total });
      await new Promise((ok) => setTimeout(ok, 250));
    }
  } catch (err) {
    status.textContent = t("review_failed", { error: err.message });
  } finally {
    if (button) button.disabled = false;
  }
}
