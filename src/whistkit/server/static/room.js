// The room of an online evening (#34): ?room=ID for everyone (the leaderboard by group,
// the tables still playing, the moves, at the end the prizes); with the host's key in
// the fragment (#k=KEY) also the host's button that ends the hand in play.

import { cardTable, fetchCard, gameLinks } from "./card.js";
import { t } from "./i18n.js";
import { reviewGame } from "./review.js";
import { openDialog } from "./sheet.js";
import { $, rememberEvening } from "./state.js";

const POLL_MS = 2000;

const room = { id: null, key: null, state: null, timer: null, refused: false };

export function roomLink() {
  const q = new URLSearchParams(location.search);
  const id = q.get("room");
  if (!id || !/^[0-9a-zA-Z]{1,32}$/.test(id)) return null;
  const hash = new URLSearchParams(location.hash.slice(1));
  const stored = `whistkit.room.${id}`;
  const key = hash.get("k") || sessionStorage.getItem(stored);
  if (key) {
    sessionStorage.setItem(stored, key);
    // the host's evening, listed in this browser's "Games" (its key opens the room)
    rememberEvening(id, { role: "host", key });
  }
  return { id, key };
}

export async function startRoom(link) {
  room.id = link.id;
  room.key = link.key;
  document.body.dataset.page = "room";
  $("#room").hidden = false;
  $("#room-end-hand").hidden = !room.key;
  $("#room-end-hand").addEventListener("click", endHand);
  $("#room-start").addEventListener("click", startEvening);
  $("#room-join-toggle").addEventListener("click", toggleJoin);
  await poll();
}

export function rerenderRoom() {
  if (room.state) render(room.state);
}

async function poll() {
  clearTimeout(room.timer);
  const base = `/api/online-evenings/${encodeURIComponent(room.id)}`;
  const url = room.key ? `${base}?key=${encodeURIComponent(room.key)}` : `${base}/room`;
  try {
    const r = await fetch(url);
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      $("#room-status").textContent = t("error", { message: body.error || r.statusText });
      if (r.status === 404) return;
    } else {
      if (room.key && !room.state) rememberEvening(room.id, { role: "host", key: room.key, title: body.title });
      room.state = body;
      render(body);
      if (body.finished) return;
    }
  } catch (err) {
    $("#room-status").textContent = t("error", { message: err.message });
  }
  room.timer = setTimeout(poll, POLL_MS);
}

async function endHand() {
  const b = $("#room-end-hand");
  if (b.dataset.armed !== "true") {
    b.dataset.armed = "true";
    b.textContent = t("room_end_hand_confirm");
    return;
  }
  b.dataset.armed = "false";
  const url = `/api/online-evenings/${encodeURIComponent(room.id)}/end-hand?key=${encodeURIComponent(room.key)}`;
  const r = await fetch(url, { method: "POST" });
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    $("#room-status").textContent = t("error", { message: body.error || r.statusText });
  }
  await poll();
}

// an evening that gathers its players: the host starts it (asked twice, as ending a hand)
async function startEvening() {
  const b = $("#room-start");
  const n = room.state ? room.state.players.length : 0;
  if (b.dataset.armed !== "true") {
    b.dataset.armed = "true";
    b.textContent = t("room_start_confirm", { n });
    return;
  }
  b.dataset.armed = "false";
  b.disabled = true;
  try {
    const url = `/api/online-evenings/${encodeURIComponent(room.id)}/start?key=${encodeURIComponent(room.key)}`;
    const r = await fetch(url, { method: "POST" });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      const own = { too_few: "room_start_too_few" }[body.code];
      $("#room-status").textContent = own ? t(own) : t("error", { message: body.error || r.statusText });
      room.refused = true; // kept over the next poll's status
    }
  } catch (err) {
    $("#room-status").textContent = t("error", { message: err.message });
    room.refused = true;
  } finally {
    b.disabled = false;
  }
  await poll();
}

// the open join link: shown while it takes players; the host opens and closes it
function renderJoin(s) {
  const url = s.join_url || new URL(`/?join-evening=${encodeURIComponent(s.id)}`, location.href).href;
  const a = $("#room-join-link");
  a.href = url;
  a.textContent = url;
  const toggle = $("#room-join-toggle");
  toggle.hidden = !room.key || s.finished;
  toggle.textContent = t(s.open_join ? "room_join_close" : "room_join_open");
  a.hidden = !s.joinable;
  // its QR code, for phones in the same room as the host's screen (asked once)
  const qr = $("#room-join-qr");
  qr.hidden = !s.joinable;
  qr.alt = t("qr_alt");
  if (s.joinable && qr.dataset.url !== url) {
    qr.dataset.url = url;
    fetch("/api/qr", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ u: url }) })
      .then((r) => (r.ok ? r.text() : null))
      .then((svg) => { if (svg) qr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`; })
      .catch(() => { qr.dataset.url = ""; });
  }
  const note = s.joinable ? (s.gathering ? "room_join_note_gather" : "room_join_note") : s.open_join ? "join_over" : "room_join_closed";
  $("#room-join-note").textContent = t(note);
  $("#room-join").hidden = !s.joinable && toggle.hidden;
}

async function toggleJoin() {
  const url = `/api/online-evenings/${encodeURIComponent(room.id)}/join-link?key=${encodeURIComponent(room.key)}`;
  const open = !(room.state && room.state.open_join);
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ open }) });
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    $("#room-status").textContent = t("error", { message: body.error || r.statusText });
  }
  await poll();
}

function points(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function cell(tag, text, cls) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

function render(s) {
  $("#room-title").textContent = s.title;
  document.title = `${s.title} · ${t("title")}`;
  let status;
  if (s.unplayed) status = t("room_unplayed");
  else if (s.finished) status = t("room_over");
  else if (s.gathering) status = t("room_gathering", { n: s.players.filter((p) => !p.absent).length });
  else {
    const hand = s.hands[s.current - 1];
    status = t("room_hand", { hand: s.current, hands: s.hands_total, contract: t(`contract_${hand.contract}`) });
    if (s.playing && s.playing.length) status += ` · ${t("room_playing", { tables: s.playing.join(", ") })}`;
    if (hand.finishing) status += ` · ${t("room_finishing")}`;
  }
  if (room.refused) room.refused = false; // a refused start's words stay until the next poll
  else $("#room-status").textContent = status;
  renderJoin(s);
  renderGathering(s);
  $("#room-end-hand").hidden = !room.key || s.finished || s.gathering;
  const end = $("#room-end-hand");
  if (end.dataset.armed !== "true") end.textContent = t("room_end_hand");
  // the leaderboard, by group: drawn again only when it changed (a name's button keeps
  // the keyboard's focus between polls)
  const boards = $("#room-boards");
  const drawn = `${document.documentElement.lang} ${JSON.stringify(s.leaderboard)}`;
  if (boards.dataset.drawn !== drawn) renderBoards(boards, s);
  boards.dataset.drawn = drawn;
  const started = !s.gathering && !s.unplayed;
  boards.hidden = !started;
  $("#room-card-hint").textContent = started ? t("room_card_hint") : "";
  // who has not come (while gathering: who has joined)
  const absent = s.players.filter((p) => p.absent).map((p) => p.name);
  $("#room-absent").textContent = absent.length && started ? t("room_absent", { names: absent.join(", ") }) : "";
  // the hand in play (or the last): its tables and who sits where
  const shown = s.hands[(s.current || s.hands.length) - 1];
  const tables = $("#room-tables");
  tables.replaceChildren();
  if (shown) {
    tables.append(cell("h2", t("room_tables", { hand: shown.hand })));
    const ul = document.createElement("ul");
    for (const tb of shown.tables) {
      const li = document.createElement("li");
      li.dataset.table = String(tb.table);
      const seats = ["N", "E", "S", "W"].map((k) => `${t(`seat_${k}`)} ${tb.seats[k].name}`).join(" · ");
      // in duplicate a finished table's result waits for the hand's end (the same deal)
      const state = tb.over ? t("room_table_done") : t("room_still_playing");
      const done = tb.points ? ` — ${t("side_ns")} ${tb.points[0]}, ${t("side_ew")} ${tb.points[1]}` : ` — ${state}`;
      li.textContent = `${t("room_table", { table: tb.table })}: ${seats}${done}`;
      ul.append(li);
    }
    tables.append(ul);
  }
  // the prizes at the end
  const prizes = $("#room-prizes");
  prizes.replaceChildren();
  if (s.finished && s.prizes.length) {
    prizes.append(cell("h2", t("room_prizes")));
    const ul = document.createElement("ul");
    for (const z of s.prizes) {
      ul.append(cell("li", `${t(`prize_${z.category}`)} (${z.place}): ${z.players.join(", ")} — ${points(z.value)}`));
    }
    prizes.append(ul);
  }
  // duplicate, at the end: how every table played each hand, and each table's review
  // (the double-dummy par of the deal and every card judged)
  const compare = $("#room-compare");
  compare.replaceChildren();
  if (s.finished && s.duplicate) {
    compare.append(cell("h2", t("room_compare")), cell("p", t("room_compare_note"), "note"));
    for (const hand of s.hands) {
      const sec = document.createElement("section");
      sec.dataset.compareHand = String(hand.hand);
      sec.append(cell("h3", t("room_hand_short", { hand: hand.hand, contract: t(`contract_${hand.contract}`) })));
      const ul = document.createElement("ul");
      for (const tb of hand.tables) {
        const li = document.createElement("li");
        const ns = `${tb.seats.N.name} – ${tb.seats.S.name}`;
        li.append(`${t("room_table", { table: tb.table })}: ${ns}, ${t("room_ns_tricks", { tricks: tb.ns_tricks })} `);
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.review = tb.game;
        b.textContent = t("room_review");
        b.addEventListener("click", () => showReview(tb, b));
        li.append(b);
        ul.append(li);
      }
      sec.append(ul);
      compare.append(sec);
    }
  }
  renderRecords(s);
  // the host's room: each player's own link, to send them
  const links = $("#room-links");
  links.replaceChildren();
  if (s.links && s.links.length) {
    links.append(cell("h2", t("room_links")), cell("p", t("room_links_note"), "note"));
    const ul = document.createElement("ul");
    for (const l of s.links) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = l.url;
      a.textContent = l.url;
      a.dataset.playerLink = l.name;
      a.target = "_blank";
      a.rel = "noopener";
      li.append(`${l.name}: `, a);
      ul.append(li);
    }
    links.append(ul);
  }
}

// while the players gather: who has joined (with their group), and what happens next;
// the host may remove one (joined twice, or a name that should not be there)
function renderGathering(s) {
  const box = $("#room-gathering");
  const start = $("#room-start");
  box.hidden = !s.gathering;
  start.hidden = !s.gathering || !room.key;
  if (start.dataset.armed !== "true") start.textContent = t("room_start");
  if (!s.gathering) return;
  $("#room-gathering-note").textContent = t(room.key ? "room_gathering_host" : "room_gathering_all");
  const list = $("#room-joined");
  const drawn = `${document.documentElement.lang} ${JSON.stringify(s.players)}`;
  if (list.dataset.drawn === drawn) return; // an armed Remove stays armed between polls
  list.dataset.drawn = drawn;
  list.replaceChildren();
  for (const p of s.players) {
    let text = s.grouped ? `${p.name} (${t("room_group", { group: p.group })})` : p.name;
    if (p.absent) text += ` · ${t("room_not_here")}`; // entered by the host, link not opened
    const li = cell("li", text);
    li.dataset.player = String(p.id);
    if (room.key) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "small";
      b.dataset.remove = String(p.id);
      b.textContent = t("room_remove");
      b.title = t("room_remove_confirm", { name: p.name });
      b.addEventListener("click", () => removePlayer(p, b));
      li.append(" ", b);
    }
    list.append(li);
  }
}

async function removePlayer(p, b) {
  if (b.dataset.armed !== "true") {
    b.dataset.armed = "true";
    b.textContent = t("room_remove_confirm", { name: p.name });
    return;
  }
  b.disabled = true;
  const url = `/api/online-evenings/${encodeURIComponent(room.id)}/remove?key=${encodeURIComponent(room.key)}`;
  try {
    const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ player: p.id }) });
    const body = await r.json().catch(() => ({}));
    // the name the server removed (the one asked for: ids are never given again)
    $("#room-status").textContent = r.ok ? t("room_removed", { name: body.removed }) : t("error", { message: body.error || r.statusText });
    room.refused = true; // these words stay until the next poll
    if (!r.ok) b.disabled = false;
  } catch (err) {
    $("#room-status").textContent = t("error", { message: err.message });
    room.refused = true;
    b.disabled = false;
  }
  await poll();
}

function renderBoards(boards, s) {
  boards.replaceChildren();
  for (const [group, rows] of Object.entries(s.leaderboard)) {
    const sec = document.createElement("section");
    sec.className = "room-board";
    sec.dataset.group = group;
    sec.append(cell("h2", group === "all" ? t("room_leaderboard") : t("room_group", { group })));
    const table = document.createElement("table");
    const head = document.createElement("tr");
    for (const k of ["room_place", "room_player", "room_total", "room_hands"]) head.append(cell("th", t(k)));
    table.append(head);
    for (const row of rows) {
      const tr = document.createElement("tr");
      tr.dataset.player = String(row.id);
      const name = row.bot ? `${row.name} (${t("bot")})` : row.name;
      // the name opens the player's score card
      const who = document.createElement("td");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "link";
      b.dataset.cardOf = String(row.id);
      b.textContent = name;
      b.title = t("room_card_show", { name: row.name });
      b.addEventListener("click", () => showCard(row.id, row.name));
      who.append(b);
      tr.append(cell("td", String(row.place), "num"), who, cell("td", points(row.total), "num"), cell("td", String(row.hands), "num"));
      if (row.bot) tr.className = "bot";
      table.append(tr);
    }
    sec.append(table);
    boards.append(sec);
  }
}

// at the end, every table of every hand: its record (whistkit-record/1) and its review,
// and all the evening's records at once (one JSON document)
function renderRecords(s) {
  const box = $("#room-records");
  const shown = s.finished ? s.hands.filter((h) => h.complete) : [];
  if (!shown.length) {
    box.replaceChildren();
    return;
  }
  if (box.dataset.version === String(s.version) && box.dataset.lang === document.documentElement.lang) return;
  box.dataset.version = String(s.version);
  box.dataset.lang = document.documentElement.lang;
  box.replaceChildren(cell("h2", t("room_records")), cell("p", t("room_records_note"), "note"));
  const all = document.createElement("a");
  all.href = `/api/online-evenings/${encodeURIComponent(s.id)}/records`;
  all.download = `whistkit-evening-${s.id}.json`;
  all.dataset.allRecords = "";
  all.className = "button";
  all.textContent = t("room_records_all");
  box.append(cell("p", ""));
  box.lastChild.append(all);
  for (const hand of shown) {
    const details = document.createElement("details");
    details.dataset.recordsHand = String(hand.hand);
    details.open = hand.hand === 1;
    const summary = document.createElement("summary");
    summary.textContent = t("room_hand_short", { hand: hand.hand, contract: t(`contract_${hand.contract}`) });
    details.append(summary);
    const ul = document.createElement("ul");
    for (const tb of hand.tables) {
      const li = document.createElement("li");
      li.dataset.table = String(tb.table);
      const seats = ["N", "E", "S", "W"].map((k) => `${t(`seat_${k}`)} ${tb.seats[k].name}`).join(" · ");
      li.append(`${t("room_table", { table: tb.table })}: ${seats} — ${t("room_ns_tricks", { tricks: tb.ns_tricks })} · `);
      li.append(...gameLinks(tb.game, (b) => showReview(tb, b)));
      ul.append(li);
    }
    details.append(ul);
    box.append(details);
  }
}

// a player's score card (the hands over at every table), in its dialog
async function showCard(player, name) {
  $("#card-title").textContent = t("card_title", { name });
  $("#card-body").replaceChildren();
  $("#card-status").textContent = "";
  $("#dlg-card").dataset.player = String(player);
  openDialog("#dlg-card");
  try {
    const card = await fetchCard(room.id, player);
    if ($("#dlg-card").dataset.player !== String(player)) return; // another card meanwhile
    $("#card-summary").textContent = t("evening_total", { points: points(card.total) });
    $("#card-body").replaceChildren(cardTable(card, { status: $("#card-status") }));
  } catch (err) {
    $("#card-status").textContent = t("error", { message: err.message });
  }
}

// a table's double-dummy review (worked out on the server, once per game): the room's
// visitor sat at none of its seats, so the costly cards are named by their players
function showReview(tb, button) {
  const names = Object.fromEntries(Object.entries(tb.seats).map(([k, p]) => [k, p.name]));
  return reviewGame(tb.game, { seat: null, names }, $("#room-review-status"), button);
}
