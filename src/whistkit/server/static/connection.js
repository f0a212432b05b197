// The connection: the WebSocket, the protocol's messages and the events they carry.

import { has, t } from "./i18n.js";
import { openNew } from "./newgame.js";
import { app, GAME_KEY, nonzero, pair, TOKEN_KEY } from "./state.js";
import { render, showMessage } from "./table.js";

export function connect() {
  if (!app.game) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  app.ws = ws;
  ws.onopen = () => {
    app.retry = 0;
    ws.send(JSON.stringify({ type: "join", game: app.game, seat: app.seat, token: app.token, since: app.version }));
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
  if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify(msg));
}

export function onMessage(msg) {
  if (msg.type === "event") {
    app.version = msg.v;
    if (msg.event) onEvent(msg.event);
    if (msg.view) setView(msg.view);
  } else if (msg.type === "state") {
    app.version = msg.v;
    app.message = null;
    app.liveTrick = msg.view.trick.slice();
    app.doneTrick = msg.view.trick.length ? null : msg.view.last_trick;
    setView(msg.view);
  } else if (msg.type === "error") {
    if (msg.code === "unknown_game" || msg.code === "forbidden" || (msg.code === "bad_seat" && !app.view)) {
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

export function onEvent(ev) {
  if (ev.type === "deal") {
    app.liveTrick = [];
  } else if (ev.type === "hand_end") {
    // the hand's points (and honours, in classic whist) for a moment in the status line
    const r = ev.result;
    let text = t("hand_points", { n: r.number, ns: r.points.NS, ew: r.points.EW });
    if (r.extra && nonzero(r.extra.honours)) text += ` · ${t("honours")} ${pair(r.extra.honours).join("–")}`;
    app.handNote = text;
  } else if (ev.type === "play") {
    if (app.liveTrick.length === 0) app.doneTrick = null;
    app.liveTrick.push({ seat: ev.seat, card: ev.card });
    if (ev.trick_complete) {
      app.doneTrick = { cards: app.liveTrick, winner: ev.winner };
      app.liveTrick = [];
    }
  }
}

export function setView(view) {
  app.view = view;
  app.seat = view.seat;
  render();
}

export function startGame(id, seat, token) {
  app.game = id;
  app.seat = seat;
  app.token = token;
  localStorage.setItem(TOKEN_KEY, token);
  app.version = 0;
  app.view = null;
  app.liveTrick = [];
  app.doneTrick = null;
  app.selected = 0;
  app.message = null;
  app.picking = null;
  app.hint = null;
  app.hintAsked = -1;
  localStorage.setItem(GAME_KEY, id);
  if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
  connect();
}

export function refusalText(msg) {
  const map = { not_your_turn: "refused_turn", game_over: "refused_over" };
  if (map[msg.code]) return t(map[msg.code]);
  if (msg.code === "illegal") return t("refused_other", { reason: msg.message });
  return t("error", { message: msg.message });
}
