// The connection: the WebSocket, the protocol's messages and the events they carry.
// Live events are shown one at a time at the bots' pace (motion.js), so that a person can
// follow the cards; replayed events and whole states are shown at once.

import { t } from "./i18n.js";
import { afterShown, gatherLater, holdsHandEnd, paceFor, showPlay, stopGather } from "./motion.js";
import { openNew } from "./newgame.js";
import { addChat, chatRefused, resetChat } from "./chat.js";
import { hostRefused, nameRefused, onHands, onInvite, onSeats, updateTools } from "./friends.js";
import {
  $, app, forgetGame, GAME_KEY, gameEntry, isCard, NAME_KEY, rememberGame, seatName, shortCard, sideOf, TOKEN_KEY,
} from "./state.js";
import { render, showMessage } from "./table.js";

// A server process that stops answering (paused, cut off) keeps the socket open: only
// silence shows it. The page pings while it hears nothing, and a socket silent for
// SILENT_MS is closed and opened again, to any process (docs/deploy.md). The server
// closes a socket that sends nothing for --idle-timeout (150 s by default), so the page
// also pings when it has sent nothing for SEND_MS (a watcher hears much, says nothing):
// it speaks at least every 25 s.
const PING_MS = 10000;
const SILENT_MS = 25000;
const SEND_MS = 20000;
let lastSent = 0;

function watchSilence(ws) {
  let heard = Date.now();
  lastSent = Date.now();
  const timer = setInterval(() => {
    if (app.ws !== ws) { clearInterval(timer); return; }
    const quiet = Date.now() - heard;
    if (quiet > SILENT_MS) { clearInterval(timer); ws.close(); return; }
    const mute = Date.now() - lastSent;
    if ((quiet > PING_MS || mute > SEND_MS) && ws.readyState === WebSocket.OPEN) {
      ws.send('{"type":"ping"}');
      lastSent = Date.now();
    }
  }, PING_MS / 2);
  return () => { heard = Date.now(); };
}

export function connect() {
  if (!app.game || app.replaced) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // the game in the URL: a proxy in front of several processes routes by it
  const ws = new WebSocket(`${proto}//${location.host}/ws?game=${encodeURIComponent(app.game)}`);
  app.ws = ws;
  const heard = watchSilence(ws);
  ws.addEventListener("message", heard);
  ws.onopen = () => {
    app.retry = 0;
    app.joined = false; // events before the state are replayed, not live
    if (app.role === "watch") {
      ws.send(JSON.stringify({ type: "watch", game: app.game, token: app.token, since: app.version }));
      return;
    }
    const join = { type: "join", game: app.game, seat: app.seat, token: app.token, since: app.version };
    // a person at a shared table sits down under their name
    // (an online evening's player under the name the evening knows them by)
    if (app.shared) join.name = app.eveningName || localStorage.getItem(NAME_KEY) || "";
    ws.send(JSON.stringify(join));
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    if (app.ws !== ws) return;
    app.ws = null;
    showMessage(t("reconnecting"));
    app.retry = Math.min(app.retry + 1, 10);
    setTimeout(connect, 200 * app.retry);
  };
}

export function send(msg) {
  // the version the player saw: the server refuses an action chosen on an older view
  if (msg.type === "play" || msg.type === "action") msg = { ...msg, v: app.version };
  if (app.ws && app.ws.readyState === WebSocket.OPEN) {
    app.ws.send(JSON.stringify(msg));
    lastSent = Date.now();
  }
}

// live events wait their turn in this queue; everything else is shown at once
const queue = [];
let draining = false;

function onMessage(msg) {
  // a live event waits its turn, also one of several sent together (only the last of
  // them carries the view: the last card of a hand comes with the hand's end and the next
  // deal, and each is shown in its order, the last trick before the panel)
  if (msg.type === "event" && (msg.view || app.joined)) {
    queue.push(msg);
    if (!draining) drain();
    return;
  }
  if (msg.type === "event") {
    // a replayed event (joining): its view comes with the state that follows
    app.version = msg.v;
    if (msg.event) onEvent(msg.event, false);
  } else if (msg.type === "state") {
    queue.length = 0;
    releaseHold();
    app.joined = true;
    app.version = msg.v;
    app.message = null;
    app.liveTrick = msg.view.trick.slice();
    app.doneTrick = msg.view.trick.length ? null : msg.view.last_trick;
    setView(msg.view);
  } else if (msg.type === "seats") {
    onSeats(msg);
  } else if (msg.type === "chat") {
    addChat(msg);
  } else if (msg.type === "invite") {
    onInvite(msg);
  } else if (msg.type === "hands") {
    onHands(msg);
  } else if (msg.type === "evening_next") {
    // an online evening's next hand is seated: the evening's page (evening.js) goes on
    // with the link's state the message carries (or asks for it)
    document.dispatchEvent(new CustomEvent("whistkit:evening-next", { detail: msg.me || null }));
  } else if (msg.type === "error" && typeof msg.code === "string" && msg.code.startsWith("chat_")) {
    chatRefused(msg);
  } else if (msg.type === "error" && (msg.code === "replaced" || msg.code === "seat_closed")) {
    // the seat was taken over from another page or device, or the host gave it to a bot
    // or to someone else: this page stops here
    app.replaced = true;
    if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
    app.message = null;
    showMessage(t(msg.code === "replaced" ? "seat_replaced" : "seat_closed"));
    $("#table").dataset.closed = msg.code;
  } else if (msg.type === "error" && msg.code === "name_taken" && app.shared && !app.view) {
    nameRefused(msg);
  } else if (msg.type === "error" && (msg.code === "not_started" || msg.code === "table_ended" || msg.code === "stale")) {
    showMessage(t(`refused_${msg.code}`));
  } else if (msg.type === "error" && msg.code === "forbidden" && app.shared && app.view) {
    hostRefused(msg);
  } else if (msg.type === "error") {
    if (app.shared && (msg.code === "unknown_game" || msg.code === "forbidden" || msg.code === "bad_seat") && !app.view) {
      // a stale invite (the seat was given to someone else) or an ended table
      if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
      app.replaced = true;
      showMessage(t("link_stale", { message: msg.message }));
      return;
    }
    if (msg.code === "unknown_game" || msg.code === "forbidden" || (msg.code === "bad_seat" && !app.view)) {
      forgetGame(app.game);
      localStorage.removeItem(GAME_KEY);
      app.game = null;
      if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
      openNew();
      return;
    }
    app.hintAsked = -1; // a refused or failed hint may be asked again
    showMessage(refusalText(msg));
  } else if (msg.type === "ack") {
    app.message = null;
  } else if (msg.type === "hint") {
    if (msg.v !== app.version) return; // the position has changed since: stale
    app.hint = { v: msg.v, action: msg.action };
    app.message = null;
    render();
  }
}

async function drain() {
  draining = true;
  try {
    while (queue.length) {
      const msg = queue[0];
      const wait = paceFor(msg.event);
      if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
      if (queue[0] !== msg) continue; // a state replaced the queue meanwhile
      queue.shift();
      app.version = msg.v;
      const before = app.view;
      if (msg.event) onEvent(msg.event, true);
      // an event without its view: the table as it stands after it
      if (msg.event && msg.view) noteCorrection(before, msg.event, msg.view);
      setView(msg.view || (before && msg.event ? viewAfter(before, msg.event) : before));
      afterShown(msg.event);
      // the end of a hand waits for the player (a click, a key) before the next deal; not
      // the game's last hand, whose end is the game's (its events are on their way)
      const over = (msg.view && msg.view.winner) || queue.some((m) => (m.view && m.view.winner) || (m.event && m.event.type === "game_over"));
      if (msg.event && msg.event.type === "hand_end" && !over && holdsHandEnd()) {
        await new Promise((ok) => { app.release = ok; });
      }
    }
  } finally {
    draining = false;
  }
}

// let the queue go on after the end of a hand
export function releaseHold() {
  const go = app.release;
  app.release = null;
  if (go) go();
}

function onEvent(ev, live) {
  if (ev.type === "play" || ev.type === "deal") app.notice = null;
  if (ev.type === "deal") {
    app.liveTrick = [];
    app.doneTrick = null;
    stopGather();
  } else if (ev.type === "hand_end") {
    // the end-of-hand panel: it stays until the next card or a click
    app.handEnd = ev.result;
  } else if (ev.type === "play") {
    // the panel goes with your next card, or with any card where nothing holds the next
    // deal back (pace 0): a bot's lead is never hidden under it
    if (app.handEnd && live && (ev.seat === app.seat || !holdsHandEnd())) app.handEnd = null;
    if (app.liveTrick.length === 0) { app.doneTrick = null; stopGather(); }
    app.liveTrick.push({ seat: ev.seat, card: ev.card });
    if (live) showPlay(ev);
    if (ev.trick_complete) {
      app.doneTrick = { cards: app.liveTrick, winner: ev.winner };
      app.liveTrick = [];
      if (live) gatherLater(ev.winner);
    }
  }
}

// laws mode: a revoke corrected (or a card replaced after it) says what happened, in the
// status line until the next card: which card went back to the hand, which came instead,
// and who wins the trick now if that changed
function noteCorrection(before, ev, after) {
  if (ev.type !== "action" || !ev.action || !before || !Array.isArray(before.trick)) return;
  const kind = ev.action.kind;
  if (kind !== "Correct" && kind !== "Replace") return;
  const seat = ev.seat;
  const was = before.trick.length ? before.trick : (before.last_trick ? before.last_trick.cards : []);
  const old = (was.find((c) => c.seat === seat) || {}).card;
  const card = ev.action.card;
  const you = seat === app.seat && app.role !== "watch";
  let text = t(`${kind === "Correct" ? "corrected" : "replaced"}${you ? "_you" : ""}`, {
    seat: seatName(seat), old: isCard(old) ? shortCard(old) : "?", card: isCard(card) ? shortCard(card) : "?",
  });
  const wonBefore = !before.trick.length && before.last_trick ? before.last_trick.winner : null;
  const wonAfter = !after.trick.length && after.last_trick ? after.last_trick.winner : null;
  if (wonBefore && wonAfter && wonBefore !== wonAfter) {
    text += ` ${wonAfter === app.seat && app.role !== "watch" ? t("trick_now_yours") : t("trick_now_won_by", { seat: seatName(wonAfter) })}`;
  }
  app.notice = text;
}

// the view after an event the server sent without one (the last of the batch has it):
// a card played leaves its hand for the trick, a finished trick counts for its side, and
// nobody acts until the view that follows
function viewAfter(v, ev) {
  if (ev.type === "hand_end") {
    // the tally and the header agree with the panel
    const r = ev.result || {};
    return { ...v, to_play: null, legal: [], irregular: [], tricks: r.tricks || v.tricks, score: r.score || v.score };
  }
  // another event (a decision made): what it changes comes with the next view
  if (ev.type !== "play") return { ...v, to_play: null, legal: [], irregular: [] };
  const seat = ev.seat;
  const sizes = { ...(v.hand_sizes || {}) };
  if (typeof sizes[seat] === "number") sizes[seat] = Math.max(0, sizes[seat] - 1);
  const out = {
    ...v,
    hand: seat === v.seat ? v.hand.filter((c) => c !== ev.card) : v.hand,
    hand_sizes: sizes,
    to_play: null,
    legal: [],
    irregular: [],
  };
  if (ev.trick_complete) {
    const tricks = { ...(v.tricks || { NS: 0, EW: 0 }) };
    tricks[sideOf(ev.winner)] = (tricks[sideOf(ev.winner)] || 0) + 1;
    out.tricks = tricks;
    out.trick = [];
    out.last_trick = { number: (v.last_trick ? v.last_trick.number : 0) + 1, cards: [...v.trick, { seat, card: ev.card }], winner: ev.winner };
  } else {
    out.trick = [...v.trick, { seat, card: ev.card }];
  }
  return out;
}

function setView(view) {
  if (!view) return;
  app.view = view;
  if (view.seat) app.seat = view.seat;
  // the table shows the server's trick: a card taken back (a corrected revoke) goes
  if (view.trick.length) app.doneTrick = null;
  else if (app.doneTrick) app.doneTrick = view.last_trick;
  render();
}

// open a game: a solo game (seat S), or a shared table from the entry this browser keeps
export function startGame(id, seat, token) {
  const entry = gameEntry(id);
  const shared = Boolean(entry && entry.shared);
  app.game = id;
  app.seat = seat;
  app.token = token;
  app.shared = shared;
  app.role = shared ? entry.role : "play";
  app.host = shared && Boolean(entry.host);
  app.seats = null;
  app.started = true;
  app.ended = false;
  app.replaced = false;
  app.shownHands = null;
  delete $("#table").dataset.closed;
  resetChat();
  localStorage.setItem(TOKEN_KEY, token);
  rememberGame(id, token);
  queue.length = 0;
  releaseHold();
  app.version = 0;
  app.view = null;
  app.liveTrick = [];
  app.doneTrick = null;
  app.handEnd = null; // the last game's hand does not follow us into this one
  app.selected = 0;
  app.message = null;
  app.notice = null;
  app.picking = null;
  app.armed = null;
  app.hint = null;
  app.hintAsked = -1;
  app.autoPlayed = -1;
  app.resultShown = null;
  $("#hand-end").hidden = true;
  localStorage.setItem(GAME_KEY, id);
  updateTools();
  if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
  connect();
}

export function refusalText(msg) {
  const map = { not_your_turn: "refused_turn", game_over: "refused_over" };
  if (map[msg.code]) return t(map[msg.code]);
  if (msg.code === "illegal") return t("refused_other", { reason: msg.message });
  return t("error", { message: msg.message });
}
