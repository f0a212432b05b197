// Online evenings (#34): a player's page follows their personal link (?evening=ID#t=TOKEN)
// from table to table. The link's state (GET /api/online-evenings/ID/me) names the table
// of the hand in play with its seat's token; the page sits there as at any shared table,
// and when the hand's tables are all done it says how the hand went and where to go
// ("You won: move to table 5, North, partner Anna"), then goes there by itself.

import { cardTable, fetchCard, formatPoints } from "./card.js";
import { t } from "./i18n.js";
import { startGame } from "./connection.js";
import { closeDialogs } from "./sheet.js";
import { $, app, forgetEvening, rememberEvening, rememberTable } from "./state.js";
import { showMessage } from "./table.js";

// the link's state is asked this often (one request at a time) while the page has no
// live table; at a table the table's socket brings the next seat (evening_next), and the
// state is asked only now and then, in case that word was missed
const POLL_MS = 1500;
const SEATED_POLL_MS = 15000;
const GATHER_POLL_MS = 3000; // while the players gather (a room of hundreds asks at once)
const MOVE_MS = 4000; // the move's panel stays this long over the next table

const ev = {
  id: null,
  token: null,
  state: null, // the link's last state
  game: null, // the game this page sits at
  timer: null,
  moveTimer: null,
  asked: 0, // when the link's state was last asked (Date.now())
  polling: false, // a request under way
  again: false, // asked again meanwhile
};

export function eveningLink() {
  const q = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.slice(1));
  const id = q.get("evening");
  if (!id || !/^[0-9a-zA-Z]{1,32}$/.test(id)) return null;
  const key = `whistkit.evening.${id}`;
  // the token is in the fragment, which no request carries; this tab keeps it so that
  // a reload without it still works
  const token = hash.get("t") || sessionStorage.getItem(key);
  if (!token) return null;
  sessionStorage.setItem(key, token);
  // listed in this browser's "Games" (the link opens this page again)
  rememberEvening(id, { role: "player", token });
  return { id, token };
}

export async function startEvening(link) {
  ev.id = link.id;
  ev.token = link.token;
  app.evening = link.id;
  document.body.dataset.evening = link.id;
  $("#evening-bar").hidden = false;
  $("#evening-room").href = `/?room=${encodeURIComponent(link.id)}`;
  showMessage(t("connecting"));
  // the finished table says when the next hand is seated: no waiting for the next poll
  document.addEventListener("whistkit:evening-next", (e) => {
    if (e.detail && e.detail.player) onState(e.detail);
    else poll();
  });
  await poll();
}

// one request at a time: a look asked while one is under way is made right after it
async function poll() {
  if (ev.polling) { ev.again = true; return; }
  ev.polling = true;
  ev.asked = Date.now();
  clearTimeout(ev.timer);
  let state = null;
  let stop = false;
  try {
    const r = await fetch(`/api/online-evenings/${encodeURIComponent(ev.id)}/me?t=${encodeURIComponent(ev.token)}`);
    const body = await r.json().catch(() => ({}));
    if (r.status === 404) {
      // removed by the host while the evening gathered: the join link takes them again
      const joined = `whistkit.joined.${ev.id}`;
      if ((localStorage.getItem(joined) || "").includes(`#t=${ev.token}`)) {
        localStorage.removeItem(joined);
        forgetEvening(ev.id, ev.token);
        showMessage(t("evening_removed"));
        const again = $("#evening-room");
        again.href = `/?join-evening=${encodeURIComponent(ev.id)}`;
        again.removeAttribute("target"); // in this tab: the page it replaces is spent
        again.dataset.t = "evening_join_again";
        again.textContent = t("evening_join_again");
      } else {
        showMessage(t("evening_link_bad"));
      }
      stop = true; // a wrong link stays wrong: no more asking
    } else if (r.ok) state = body;
  } catch {
    // the server is away for a moment: ask again
  }
  try {
    if (state) onState(state);
  } finally {
    ev.polling = false;
  }
  if (stop || (ev.state && ev.state.finished)) return;
  const again = ev.again;
  ev.again = false;
  const wait = ev.state && ev.state.gathering ? GATHER_POLL_MS : POLL_MS;
  ev.timer = setTimeout(tick, again ? 0 : wait);
}

// every POLL_MS: ask the link's state, but at a live table only every SEATED_POLL_MS
function tick() {
  if (atLiveTable() && Date.now() - ev.asked < SEATED_POLL_MS) {
    ev.timer = setTimeout(tick, POLL_MS);
    return;
  }
  poll();
}

// sitting at the evening's table with its socket open and its game not over
function atLiveTable() {
  return Boolean(ev.game && app.game === ev.game && app.ws && app.ws.readyState === WebSocket.OPEN
    && app.view && !app.view.winner);
}

// how far on the evening is in a state: a state that comes late (a poll's answer
// overtaken by the table's word on the socket) never takes the page back
function progress(state) {
  if (state.finished) return Infinity;
  return state.now ? state.now.hand : 0;
}

function onState(state) {
  const before = ev.state;
  if (before && progress(state) < progress(before)) return;
  ev.state = state;
  app.eveningName = state.player.name;
  if (!before) rememberEvening(ev.id, { role: "player", token: ev.token, title: state.title, name: state.player.name });
  renderBar(state);
  const now = state.now;
  if (now && now.game !== ev.game) {
    // to the next table at once; the move's words stay a few seconds over it
    const moved = Boolean(ev.game && state.last);
    sitAt(now);
    if (moved) showMove(state.last, now);
  } else if (!now && state.gathering) {
    // the evening gathers its players: the host starts it, and the next look seats them
    showMessage(t("evening_gathering", { n: state.joined, name: state.player.name }));
  } else if (!now && state.unplayed) {
    showMessage(t("evening_unplayed"));
  } else if (!now && state.from_hand && !ev.game) {
    // joined through the open link during a hand: their first table is the next hand's
    showMessage(t("evening_wait_join", { hand: state.from_hand }));
  } else if (!now && state.finished && (!before || !before.finished)) {
    clearTimeout(ev.moveTimer);
    clearTimeout(ev.timer);
    $("#evening-move").hidden = false;
    $("#evening-move-text").textContent = t("evening_over", { points: formatPoints(state.total) });
    $("#evening-move").dataset.over = "true";
    if (!ev.game) showMessage(""); // the link opened after the end: no table to connect to
    showCard(state.player); // (it says itself if the card could not be fetched)
  }
}

function sitAt(now) {
  ev.game = now.game;
  const table = $("#table");
  table.dataset.eveningTable = String(now.table);
  table.dataset.eveningHand = String(now.hand);
  rememberTable(now.game, { token: now.token, seat: now.seat, role: "play", host: false, evening: ev.id });
  closeDialogs();
  startGame(now.game, now.seat, now.token);
}

function showMove(last, now) {
  const result = t(last.won ? "evening_won" : "evening_lost");
  const where = {
    result,
    table: now.table,
    seat: t(`seat_${now.seat}`),
    partner: now.partner,
  };
  const box = $("#evening-move");
  box.hidden = false;
  delete box.dataset.over;
  box.dataset.won = String(last.won);
  $("#evening-move-text").textContent = t(now.table === last.table ? "evening_stay" : "evening_move", where);
  clearTimeout(ev.moveTimer);
  ev.moveTimer = setTimeout(() => { box.hidden = true; }, MOVE_MS);
}

// at the end, the player's own score card under their total (its reviews list their own
// costly cards)
async function showCard(player) {
  const box = $("#evening-card");
  box.hidden = false;
  try {
    const card = await fetchCard(ev.id, player.id);
    box.replaceChildren(cell("h2", t("evening_card")), cardTable(card, { own: true, status: $("#evening-card-status") }));
  } catch (err) {
    $("#evening-card-status").textContent = t("error", { message: err.message });
  }
}

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

function renderBar(state) {
  const now = state.now;
  const parts = [state.title];
  if (now) parts.push(t("evening_where", { hand: now.hand, hands: state.hands, table: now.table }));
  $("#evening-info").textContent = parts.join(" · ");
  $("#evening-total").textContent = t("evening_total", { points: formatPoints(state.total) });
}
