// Tables shared with friends (#22): the new-game dialog's seats, the invite panel with its
// links and QR codes, the host's controls, the join form of an invite link, watching.

import { has, t } from "./i18n.js";
import { send, startGame } from "./connection.js";
import { openRules } from "./rules.js";
import { closeDialogs, openDialog } from "./sheet.js";
import { $, app, gameEntry, NAME_KEY, rememberTable, SEATS } from "./state.js";
import { render, renderStatus, showMessage } from "./table.js";

export const TIMEOUTS = [0, 30, 60, 120];
const OTHER_SEATS = ["N", "E", "W"];
const NAME_MAX = 24;

// the seats' choices in the new-game dialog: a person, or a bot of a level
export function fillFriends(meta) {
  for (const seat of OTHER_SEATS) {
    $(`#choice-label-${seat}`).textContent = t(seat === "N" ? "seat_partner" : "seat_opponent", { seat: t(`seat_${seat}`) });
    const sel = document.querySelector(`[data-seat-choice="${seat}"]`);
    const keep = sel.value;
    sel.replaceChildren();
    const person = document.createElement("option");
    person.value = "person";
    person.textContent = t("choice_person");
    sel.append(person);
    for (const l of meta.levels) {
      const o = document.createElement("option");
      o.value = l;
      o.textContent = t("choice_bot", { level: has(`level_${l}`) ? t(`level_${l}`) : l });
      sel.append(o);
    }
    sel.value = keep || (seat === "N" ? "person" : meta.default_level);
  }
  const ts = $("#new-timeout");
  const keepTime = ts.value;
  ts.replaceChildren();
  for (const s of TIMEOUTS) {
    const o = document.createElement("option");
    o.value = String(s);
    o.textContent = timeoutLabel(s);
    ts.append(o);
  }
  ts.value = keepTime || "60";
  const name = $("#host-name");
  if (!name.value) name.value = localStorage.getItem(NAME_KEY) || "";
  showFriends();
}

export function timeoutLabel(s) {
  if (!s) return t("time_off");
  if (s === 60) return t("time_one_minute");
  return s < 60 ? t("time_seconds", { n: s }) : t("time_minutes", { n: s / 60 });
}

// "Play with friends" ticked: the seats are shown, the deal number (solo only) is not
export function showFriends() {
  const on = $("#new-friends").checked;
  $("#friends-box").hidden = !on;
  $("#seed-line").hidden = on;
  $("#new-level").closest("label").querySelector("span").textContent = t(on ? "level_table" : "level");
}

// a person's name as the server takes it: 1..24 characters, no control characters
export function nameProblem(name) {
  if (!name) return t("name_missing");
  if ([...name].length > NAME_MAX) return t("name_too_long", { n: NAME_MAX });
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return t("name_bad");
  return null;
}

// Start in the new-game dialog with "Play with friends": the table is made, S sits down
// and the invite panel opens
export async function startFriends(variant, level, options) {
  const name = $("#host-name").value.trim();
  const problem = nameProblem(name);
  if (problem) {
    $("#new-error").textContent = problem;
    $("#host-name").focus();
    return;
  }
  localStorage.setItem(NAME_KEY, name);
  const seats = {};
  for (const seat of OTHER_SEATS) seats[seat] = document.querySelector(`[data-seat-choice="${seat}"]`).value;
  const body = {
    variant, level, options, seats, name,
    timeout: Number($("#new-timeout").value),
    watch_hands: $("#new-watch-hands").checked,
  };
  let r;
  let data;
  try {
    r = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    data = await r.json();
  } catch (err) {
    $("#new-error").textContent = t("error", { message: err.message });
    return;
  }
  if (!r.ok) {
    $("#new-error").textContent = t("error", { message: data.error });
    return;
  }
  rememberTable(data.game, {
    token: data.token, seat: data.seat || "S", role: "play", host: true, variant,
    invites: data.invites || {}, watch: data.watch || null,
  });
  $("#dlg-new").close();
  startGame(data.game, data.seat || "S", data.token);
  openInvite();
}

function absolute(url) {
  return new URL(url, location.href).href;
}

// the invite panel: a link per person seat and one to watch, each with a copy button and a
// QR code; the host's controls for each seat, starting at once and ending the table
export function openInvite() {
  renderInvite();
  if (!$("#dlg-invite").open) openDialog("#dlg-invite");
}

function renderInvite() {
  const entry = gameEntry(app.game) || {};
  const invites = entry.invites || {};
  const body = $("#invite-body");
  body.replaceChildren();
  $("#invite-error").textContent = "";
  $("#invite-note").textContent = app.started ? t("invite_note_started") : t("invite_note");
  for (const seat of OTHER_SEATS) {
    const p = app.seats && app.seats[seat];
    const isPerson = p ? p.kind === "person" : Boolean(invites[seat]);
    const row = document.createElement("section");
    row.className = "invite";
    row.dataset.inviteSeat = seat;
    const h = document.createElement("h3");
    const who = p && p.kind === "person" && p.name ? ` · ${p.name}` : "";
    const what = isPerson ? (p && p.connected ? t("seat_here") : t("seat_waiting")) : t("choice_bot", { level: levelName(p && p.level) });
    h.textContent = `${t(`seat_${seat}`)}${who} · ${what}`;
    row.append(h);
    if (isPerson && invites[seat]) row.append(linkRow(seat, absolute(invites[seat]), t(seat === "N" ? "invite_partner" : "invite_opponent")));
    if (app.host) row.append(hostButtons(seat, isPerson));
    body.append(row);
  }
  if (entry.watch) {
    const row = document.createElement("section");
    row.className = "invite";
    row.dataset.inviteSeat = "watch";
    const h = document.createElement("h3");
    h.textContent = t("invite_watch");
    row.append(h, linkRow("watch", absolute(entry.watch), t("invite_watch_note")));
    body.append(row);
  }
  const end = $("#host-end");
  end.dataset.armed = "false";
  end.textContent = t("host_end");
  const over = app.ended || Boolean(app.view && app.view.winner);
  $("#host-start").hidden = !app.host || app.started || over;
  $("#host-end").hidden = !app.host || over;
}

function levelName(level) {
  return level && has(`level_${level}`) ? t(`level_${level}`) : level || "";
}

function linkRow(kind, url, note) {
  const box = document.createElement("div");
  box.className = "invite-link";
  const text = document.createElement("div");
  text.className = "invite-text";
  const p = document.createElement("p");
  p.className = "note";
  p.textContent = note;
  const a = document.createElement("a");
  a.href = url;
  a.dataset.invite = kind;
  a.textContent = url;
  a.target = "_blank";
  a.rel = "noopener";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.dataset.copy = kind;
  copy.textContent = t("btn_copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
      copy.textContent = t("copied");
    } catch {
      // no clipboard (an insecure page): the link is selected for the person to copy
      const range = document.createRange();
      range.selectNodeContents(a);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      copy.textContent = t("copy_by_hand");
    }
  });
  text.append(p, a, copy);
  const qr = document.createElement("img");
  qr.className = "qr";
  qr.dataset.qr = kind;
  qr.alt = t("qr_alt");
  qr.width = 120;
  qr.height = 120;
  // asked by POST, so that the link's token stays out of every URL the server sees; kept
  // for the panel's next renderings
  if (qrCodes.has(url)) qr.src = qrCodes.get(url);
  else {
    fetch("/api/qr", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ u: url }) })
      .then((r) => (r.ok ? r.text() : null))
      .then((svg) => {
        if (!svg) return;
        qrCodes.set(url, `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
        qr.src = qrCodes.get(url);
      })
      .catch(() => {});
  }
  box.append(text, qr);
  return box;
}

function hostButtons(seat, isPerson) {
  const box = document.createElement("div");
  box.className = "host-seat";
  const over = app.ended || Boolean(app.view && app.view.winner);
  if (isPerson) {
    const bot = document.createElement("button");
    bot.type = "button";
    bot.dataset.host = "bot";
    bot.dataset.seat = seat;
    bot.textContent = t("host_bot");
    bot.disabled = over;
    bot.addEventListener("click", () => send({ type: "host", op: "bot", seat }));
    box.append(bot);
  }
  const reopen = document.createElement("button");
  reopen.type = "button";
  reopen.dataset.host = "reopen";
  reopen.dataset.seat = seat;
  reopen.textContent = t(isPerson ? "host_reopen" : "host_open");
  reopen.disabled = over;
  reopen.addEventListener("click", () => send({ type: "host", op: "reopen", seat }));
  box.append(reopen);
  return box;
}

// the server's word on who sits where
export function onSeats(msg) {
  const before = app.started ? app.seats : null; // (a table that starts: everyone arrives)
  app.seats = msg.seats || null;
  // an away person's stand-in: when it plays (counted down in the status line)
  app.standinDue = {};
  for (const [seat, p] of Object.entries(app.seats || {})) {
    if (p && Number.isFinite(p.standin_in)) app.standinDue[seat] = performance.now() + 1000 * p.standin_in;
  }
  tickAway();
  // a person back at the table: said once to the others
  if (before && app.seats && msg.started && app.view) {
    const back = SEATS.filter((s) => s !== (app.role === "watch" ? null : app.seat)
      && before[s] && before[s].kind === "person" && !before[s].connected && before[s].name
      && app.seats[s] && app.seats[s].kind === "person" && app.seats[s].connected);
    if (back.length) showMessage(back.map((s) => t("person_back", { name: personName(s) })).join(" "));
  }
  app.started = Boolean(msg.started);
  app.ended = Boolean(msg.ended);
  app.timeout = Number(msg.timeout) || 0;
  if (msg.invites && typeof msg.invites === "object" && app.host) {
    // the host learns a reopened seat's new link
    const entry = gameEntry(app.game) || {};
    rememberTable(app.game, { invites: { ...(entry.invites || {}), ...msg.invites } });
  }
  updateTools();
  if (app.view) render();
  if ($("#dlg-invite").open) renderInvite();
}

function personName(seat) {
  const p = app.seats && app.seats[seat];
  return (p && p.name) || t(`seat_${seat}`);
}

// who has left the table, for the status line: "Eve has left: a bot takes over in 25 s"
// on her turn, counting down; "Eve has left." otherwise
export function awayText(v) {
  if (!app.shared || !app.seats || !app.started || app.ended || !v || v.winner) return "";
  const parts = [];
  for (const seat of SEATS) {
    const p = app.seats[seat];
    if (!p || p.kind !== "person" || p.connected || (seat === app.seat && app.role !== "watch")) continue;
    const name = personName(seat);
    const due = (app.standinDue || {})[seat];
    if (p.standin) parts.push(t("away_standin", { name }));
    else if (due !== undefined && v.to_play === seat) parts.push(t("away_standin_in", { name, s: Math.max(0, Math.ceil((due - performance.now()) / 1000)) }));
    else parts.push(t("away_left", { name }));
  }
  return parts.join(" ");
}

// the countdown: the status line again each second while a stand-in is due
let awayTimer = 0;
function tickAway() {
  clearTimeout(awayTimer);
  const due = Object.values(app.standinDue || {});
  if (!due.length || due.every((d) => d < performance.now())) return;
  awayTimer = setTimeout(() => { if (app.view) renderStatus(app.view); tickAway(); }, 1000);
}

// a new link for a reopened seat (sent to the host)
export function onInvite(msg) {
  const entry = gameEntry(app.game) || {};
  const invites = { ...(entry.invites || {}) };
  if (typeof msg.url === "string") invites[msg.seat] = msg.url;
  else if (typeof msg.token === "string") {
    // the link on the same address as the table's other links (the LAN or public one)
    const other = Object.values(invites).concat(entry.watch || []).find((u) => typeof u === "string");
    const url = new URL(other || "/", location.href);
    url.search = new URLSearchParams({ join: app.game, seat: msg.seat }).toString();
    url.hash = new URLSearchParams({ t: msg.token }).toString();
    invites[msg.seat] = url.href;
  }
  const fields = { invites };
  if (msg.watch) fields.watch = msg.watch;
  rememberTable(app.game, fields);
  if ($("#dlg-invite").open) renderInvite();
}

// a watcher of a table that shows the hands: the hands of the hand just over, as dealt,
// in the end-of-hand panel
export function onHands(msg) {
  if (!msg.hands || typeof msg.hands !== "object") return;
  app.shownHands = { number: msg.hand_number, hands: msg.hands };
  render();
}

export function hostRefused(msg) {
  if ($("#dlg-invite").open) $("#invite-error").textContent = t("error", { message: msg.message });
  else showMessage(t("error", { message: msg.message }));
}

// the tools a shared table has: the host's table panel, the chat
export function updateTools() {
  $("#btn-table").hidden = !(app.shared && app.host);
  $("#btn-chat").hidden = !app.shared;
  document.body.dataset.shared = String(app.shared);
  document.body.dataset.role = app.role;
  if (!app.shared) $("#chat").hidden = true;
  // watchers read the chat; only the people at the table write in it
  $("#chat-form").hidden = app.role === "watch";
  $("#chat-phrases").hidden = app.role === "watch";
  // a watcher has no hand to hint at, and does not start the game watched
  const watching = app.role === "watch";
  $("#btn-hint").hidden = watching;
  $("#btn-new").hidden = watching;
  // behind the name form of an invite there is no game yet: no game's tools
  for (const id of ["#btn-new", "#btn-last", "#btn-sheet", "#btn-hint"]) $(id).disabled = Boolean(app.joining);
}

// -- arriving by a link ----------------------------------------------------------------

// an invite link (?join=<game>&seat=<N>#t=<token>) or a watch link (?watch=<game>#t=...):
// true when the page handles it. The token is in the fragment, which the browser never
// sends (no proxy logs it); an older link's &t= is read too, and moved to the fragment at
// once so that a reload does not send it again.
const qrCodes = new Map(); // link -> its QR code as a data: URL

export async function arriveByLink() {
  const q = new URLSearchParams(location.search);
  const token = new URLSearchParams(location.hash.slice(1)).get("t") || q.get("t");
  if (q.has("t")) {
    q.delete("t");
    const hash = token ? `#${new URLSearchParams({ t: token })}` : "";
    history.replaceState(null, "", `/?${q}${hash}`);
  }
  if (q.get("watch") && token) {
    const game = q.get("watch");
    history.replaceState(null, "", "/");
    rememberTable(game, { token, seat: "S", role: "watch", host: false });
    startGame(game, "S", token);
    return true;
  }
  const game = q.get("join");
  const seat = q.get("seat");
  if (!game || !token || !SEATS.includes(seat)) return false;
  const entry = gameEntry(game);
  const name = localStorage.getItem(NAME_KEY);
  // back at a seat this browser already sits at, with its name: straight to the table
  if (entry && entry.shared && entry.token === token && entry.seat === seat && name && !nameProblem(name)) {
    history.replaceState(null, "", "/");
    startGame(game, seat, token);
    return true;
  }
  await openJoin(game, seat, token);
  return true;
}

async function openJoin(game, seat, token) {
  app.joining = true;
  updateTools();
  const summary = $("#join-summary");
  summary.textContent = "";
  $("#join-next").textContent = "";
  $("#join-error").textContent = "";
  let info = null;
  const sit = $("#join-sit");
  sit.disabled = false;
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(game)}`, { headers: { "X-Table-Token": token } });
    const body = await r.json().catch(() => ({}));
    if (r.ok) info = body;
    else {
      // an unknown table or a link given to someone else: no seat to sit at
      $("#join-error").textContent = t("link_stale", { message: body.error || `${r.status} ${r.statusText}` });
      sit.disabled = r.status === 404;
    }
  } catch (err) {
    $("#join-error").textContent = t("error", { message: err.message });
  }
  if (info) {
    summary.textContent = joinSummary(info, seat);
    // what comes after "Sit down"
    const host = info.seats && info.seats.S && info.seats.S.name ? info.seats.S.name : t("seat_S");
    $("#join-next").textContent = t(info.started ? "join_next_started" : "join_next", { host });
  }
  $("#join-rules").onclick = () => openRules((info && info.variant) || "felagsvist", true);
  $("#dlg-join").addEventListener("close", () => { app.joining = false; updateTools(); }, { once: true });
  const input = $("#player-name");
  input.value = localStorage.getItem(NAME_KEY) || "";
  const form = $("#join-form");
  form.onsubmit = (e) => {
    e.preventDefault();
    const name = input.value.trim();
    const problem = nameProblem(name);
    if (problem) {
      $("#join-error").textContent = problem;
      input.focus();
      return;
    }
    localStorage.setItem(NAME_KEY, name);
    rememberTable(game, { token, seat, role: "play", host: false, variant: info ? info.variant : undefined });
    $("#dlg-join").close();
    history.replaceState(null, "", "/"); // the link stays in the games list, not the address
    startGame(game, seat, token);
  };
  openDialog("#dlg-join");
  input.focus();
}

// "Félagsvist · you sit at North, partner of Anna (South)"
function joinSummary(info, seat) {
  const variant = has(`variant_${info.variant}`) ? t(`variant_${info.variant}`) : String(info.variant || "");
  const seats = info.seats || {};
  const partner = SEATS[(SEATS.indexOf(seat) + 2) % 4];
  const host = seats.S && seats.S.name ? seats.S.name : t("seat_S");
  const p = seats[partner];
  const partnerName = p && p.kind === "person" ? p.name || t(`seat_${partner}`) : t("bot");
  return t("join_summary", { variant, seat: t(`seat_${seat}`), host, partner: partnerName });
}

export function closeJoin() {
  closeDialogs();
}

// the server refused the name at the table (another seat goes by it): the join form
// again, saying why, instead of reconnecting with the same name
export async function nameRefused(msg) {
  if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
  app.replaced = true;
  await openJoin(app.game, app.seat, app.token);
  $("#join-error").textContent = t("name_taken");
}
